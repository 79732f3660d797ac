import { type Command, Option } from 'commander';
import { nonNegativeInt, numberIn, positiveInt, reportError } from './common.ts';
import type { CliIO } from './io.ts';
import { onInterrupt } from './signals.ts';

/** `infx eval …`: accuracy evals graded as lm-evaluation-harness grades them (GSM8K), and their thresholds. */

interface RunFlags {
  task: string;
  baseUrl: string;
  model: string;
  endpoint: 'chat' | 'completions';
  concurrency: number;
  limit?: number;
  fewshot: number;
  maxRetries: number;
  timeout: number;
  maxTokens: number;
  dataset?: string;
  fewshotDataset?: string;
  fewshotAsMultiturn: boolean;
  gradeTruncated: boolean;
  out: string;
  format: 'text' | 'json';
}

interface ScoreFlags {
  task: string;
  dataset?: string;
  responses: string;
  fewshot: number;
  gradeTruncated: boolean;
  format: 'text' | 'json';
}

interface ValidateFlags {
  dir: string;
  resultsGlob: string;
  metaEnv?: string;
  modelPrefix?: string;
  thresholds?: string;
  minScore: number;
  metricPrefix: string;
  expectedConcs?: string;
  exactPrefix: boolean;
  format: 'text' | 'json';
}

const taskOption = () =>
  new Option('--task <task>', 'the eval task').choices(['gsm8k']).makeOptionMandatory();
const formatOption = (d: string) =>
  new Option('--format <format>', 'output format').choices(['text', 'json']).default(d);

export function registerEval(program: Command, io: CliIO, setExit: (code: number) => void): void {
  const evalCmd = program
    .command('eval')
    .description('accuracy evals graded as lm-evaluation-harness grades them (GSM8K), and their thresholds');

  evalCmd
    .command('run')
    .description(
      'run GSM8K against an OpenAI-compatible server as the reference runs lm-eval (5-shot, chat template on the ' +
        'server, temperature 0); writes results.json and samples_gsm8k.jsonl',
    )
    .addOption(taskOption())
    .requiredOption('--base-url <url>', 'server address, e.g. http://127.0.0.1:8000')
    .requiredOption('--model <name>', 'the model name the server serves')
    .addOption(
      new Option('--endpoint <endpoint>', 'API endpoint').choices(['chat', 'completions']).default('chat'),
    )
    .option(
      '--concurrency <n>',
      'requests in flight (the reference: its eval concurrency, 64 by default)',
      positiveInt,
      64,
    )
    .option('--limit <n>', 'evaluate the first N test questions only', positiveInt)
    .option('--fewshot <n>', 'few-shot examples from the train split', nonNegativeInt, 5)
    .option(
      '--max-retries <n>',
      "attempts per request, as lm-eval's max_retries (the reference: 5)",
      positiveInt,
      5,
    )
    .option(
      '--timeout <seconds>',
      'per-request timeout (the reference: 1800)',
      numberIn(0, Number.POSITIVE_INFINITY, true),
      1800,
    )
    .option(
      '--max-tokens <n>',
      'max_tokens of every request (the reference: context 16384 − 4096)',
      positiveInt,
      12288,
    )
    .option(
      '--dataset <file>',
      'GSM8K test split as JSONL (default: the local Hugging Face cache of openai/gsm8k)',
    )
    .option(
      '--fewshot-dataset <file>',
      'GSM8K train split as JSONL, for few-shot examples (default: the cache)',
    )
    .option(
      '--no-fewshot-as-multiturn',
      'chat endpoint: send the examples and the question as one user message',
    )
    .option(
      '--grade-truncated',
      'grade truncated responses (finish_reason length) as lm-eval does, instead of counting them wrong',
    )
    .option('--out <dir>', 'where results.json and samples_gsm8k.jsonl go', 'eval-out')
    .addOption(formatOption('text'))
    .action(async (flags: RunFlags) => {
      const interrupt = onInterrupt({
        say: () =>
          io.stderr(
            '\nstopping: no new requests; in-flight ones are dropped, what was graded is kept (again to quit now)\n',
          ),
      });
      try {
        const [{ runGsm8k }, { formatResults }] = await Promise.all([
          import('../evals/api.ts'),
          import('../evals/format.ts'),
        ]);
        const tty = io.stderrIsTTY ?? io.isTTY;
        let lastLine = 0;
        const outcome = await runGsm8k({
          task: flags.task,
          baseUrl: flags.baseUrl,
          model: flags.model,
          endpoint: flags.endpoint,
          concurrency: flags.concurrency,
          limit: flags.limit ?? null,
          fewshot: flags.fewshot,
          maxRetries: flags.maxRetries,
          timeoutMs: flags.timeout * 1000,
          maxTokens: flags.maxTokens,
          fewshotAsMultiturn: flags.fewshotAsMultiturn,
          gradeTruncated: flags.gradeTruncated === true,
          dataset: flags.dataset ?? null,
          fewshotDataset: flags.fewshotDataset ?? null,
          out: flags.out,
          signal: interrupt.signal,
          onSample: (done, total, sample) => {
            const now = Date.now();
            if (done !== total && now - lastLine < 1000) return;
            lastLine = now;
            const text = `eval gsm8k: ${done}/${total} done${sample.status === 'failed' ? ` (doc ${sample.doc_id} failed: ${sample.error})` : ''}`;
            io.stderr(
              tty
                ? `\r${text}\x1b[K${done === total ? '\n' : ''}`
                : `${new Date(now).toISOString()} ${text}\n`,
            );
          },
        });
        io.stderr(`wrote ${outcome.files.results} and ${outcome.files.samples}\n`);
        io.stdout(
          flags.format === 'json'
            ? `${JSON.stringify(outcome.results, null, 2)}\n`
            : formatResults(outcome.results),
        );
        if (outcome.interrupted) {
          io.stderr(
            `interrupted: the results cover the ${outcome.results.infx.samples} samples graded before the stop\n`,
          );
          setExit(130);
        }
      } catch (err) {
        setExit(reportError(err, io));
      } finally {
        interrupt.dispose();
      }
    });

  evalCmd
    .command('score')
    .description('grade saved responses (JSONL of doc_id, response) and print the lm-eval keys')
    .addOption(taskOption())
    .option(
      '--dataset <file>',
      'GSM8K test split as JSONL (default: the local Hugging Face cache of openai/gsm8k)',
    )
    .requiredOption('--responses <file>', 'JSONL, one {"doc_id", "response"[, "finish_reason"]} a line')
    .option('--fewshot <n>', 'the n-shot the responses were produced with (reported)', nonNegativeInt, 5)
    .option(
      '--grade-truncated',
      'grade truncated responses (finish_reason length) as lm-eval does, instead of counting them wrong',
    )
    .addOption(formatOption('text'))
    .action(async (flags: ScoreFlags) => {
      try {
        const [{ scoreGsm8k }, { formatResults }] = await Promise.all([
          import('../evals/api.ts'),
          import('../evals/format.ts'),
        ]);
        const { results } = scoreGsm8k({
          task: flags.task,
          dataset: flags.dataset ?? null,
          responses: flags.responses,
          fewshot: flags.fewshot,
          gradeTruncated: flags.gradeTruncated === true,
        });
        io.stdout(flags.format === 'json' ? `${JSON.stringify(results, null, 2)}\n` : formatResults(results));
      } catch (err) {
        setExit(reportError(err, io));
      }
    });

  evalCmd
    .command('validate')
    .description(
      "check eval scores against thresholds as the reference's validate_scores.py does (exit 1 on a failing or " +
        'missing metric); per-model overrides fall back to the model family unless --exact-prefix',
    )
    .option('--dir <dir>', 'folder with the results files and meta_env.json', '.')
    .option('--results-glob <glob>', 'result files, relative to --dir', 'results*.json')
    .option('--meta-env <file>', 'meta_env.json (default: <dir>/meta_env.json)')
    .option(
      '--model-prefix <prefix>',
      'model prefix (default: meta_env.json infmax_model_prefix, then $MODEL_PREFIX)',
    )
    .option('--thresholds <file>', "thresholds YAML or JSON (default: the reference's thresholds)")
    .option('--min-score <score>', 'fallback minimum when no threshold applies', numberIn(0, 1), 0.85)
    .option('--metric-prefix <prefix>', 'check metrics whose name starts with this', 'exact_match,')
    .option('--expected-concs <list>', 'space-separated concurrencies the workflow requested')
    .option('--exact-prefix', 'look model prefixes up exactly, as the reference does (no family fallback)')
    .addOption(formatOption('text'))
    .action(async (flags: ValidateFlags) => {
      try {
        const { validateScores } = await import('../evals/validate.ts');
        const report = validateScores({
          dir: flags.dir,
          resultsGlob: flags.resultsGlob,
          metaEnv: flags.metaEnv,
          modelPrefix: flags.modelPrefix,
          thresholds: flags.thresholds,
          minScore: flags.minScore,
          metricPrefix: flags.metricPrefix,
          expectedConcs: flags.expectedConcs,
          lookup: flags.exactPrefix ? 'exact' : 'family',
        });
        if (flags.format === 'json') io.stdout(`${JSON.stringify(report, null, 2)}\n`);
        else for (const l of report.lines) (l.stream === 'stdout' ? io.stdout : io.stderr)(`${l.text}\n`);
        if (!report.ok) setExit(1);
      } catch (err) {
        setExit(reportError(err, io));
      }
    });
}
