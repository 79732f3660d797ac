import { type Command, Option } from 'commander';
import { countProgressReporter, stepProgressReporter } from '../client/progress.ts';
import { parseIntArg, positiveInt, reportError } from './common.ts';
import type { CliIO } from './io.ts';

/** `infx trace …`: agentic trace corpora (Weka kv-cache-tester format): a synthetic one, and a corpus's figures. */

interface SynthFlags {
  traces: number;
  seed: number;
  maxContext: string;
  out?: string;
}

interface StatsFlags {
  format: 'text' | 'json';
  public?: string;
  maxContext?: string;
}

const progressSink = (io: CliIO) => ({ write: io.stderr, isTTY: io.stderrIsTTY ?? io.isTTY });

export function registerTrace(program: Command, io: CliIO, setExit: (code: number) => void): void {
  const trace = program
    .command('trace')
    .description(
      'agentic trace corpora (traces.jsonl, Weka kv-cache-tester format): synthesize one, summarise one',
    );
  const maxContext = (what: string) =>
    new Option('--max-context <tokens>', `${what}: 1M (1048576), 256k (256000) or a token count`);

  trace
    .command('synth')
    .description(
      'write a synthetic corpus shaped like semianalysisai/cc-traces-weka-062126 (subagents, compactions, ' +
        'preamble calls, context growing toward the cap), one trace per line; the same seed gives the same bytes',
    )
    .requiredOption('--traces <n>', 'how many traces (the public corpus has 393)', positiveInt)
    .requiredOption('--seed <n>', 'random seed', parseIntArg)
    .addOption(maxContext('the context every call stays within').default('1M'))
    .option('--out <file>', 'write to this file (default: stdout)')
    .action(async (flags: SynthFlags) => {
      try {
        const [{ parseMaxContext }, synth] = await Promise.all([
          import('../workload/agentic/max-context.ts'),
          import('../workload/agentic/synth.ts'),
        ]);
        const options = {
          traces: flags.traces,
          seed: flags.seed,
          maxContext: parseMaxContext(flags.maxContext),
        };
        if (flags.out === undefined) synth.writeSynthCorpus(options, io.stdout);
        else {
          const progress = stepProgressReporter(progressSink(io), 'trace synth: traces');
          synth.writeSynthCorpusFile(options, flags.out, progress);
          io.stderr(`wrote ${flags.traces} traces to ${flags.out}\n`);
        }
      } catch (err) {
        setExit(reportError(err, io));
      }
    });

  trace
    .command('stats')
    .description(
      'a corpus in figures: traces, requests (every n/s call, subagents included), top-level turns, ' +
        'subagents, input and output tokens, maximum context, theoretical prefix-cache hit rate',
    )
    .argument('[files...]', 'traces.jsonl files')
    .option(
      '--public <model-prefix>',
      'the public corpus the reference replays for this model prefix (semianalysisai/cc-traces-weka-062126 ' +
        'for dsv4, glm5.2, minimaxm3, kimik3; its -256k sibling otherwise), from the local Hugging Face cache',
    )
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text'))
    .addOption(maxContext('drop whole traces needing more context than this'))
    .action(async (named: string[], flags: StatsFlags) => {
      let files = named;
      try {
        const [{ parseMaxContext }, { droppedNote }, stats] = await Promise.all([
          import('../workload/agentic/max-context.ts'),
          import('../workload/agentic/corpus.ts'),
          import('../workload/agentic/stats.ts'),
        ]);
        const max = flags.maxContext === undefined ? null : parseMaxContext(flags.maxContext);
        if (flags.public !== undefined) {
          const { publicCorpusFiles } = await import('../workload/agentic/hf-corpus.ts');
          const found = publicCorpusFiles(flags.public);
          io.stderr(`corpus ${found.corpus.dataset}: ${found.files.join(', ')}\n`);
          files = [...files, ...found.files];
        }
        const tty = io.stderrIsTTY ?? io.isTTY;
        const { stats: s, report } = await stats.corpusStats(
          files,
          { maxContext: max },
          countProgressReporter(progressSink(io), 'trace stats: traces read'),
        );
        if (tty) io.stderr('\n');
        const note = droppedNote(report);
        if (note !== null) io.stderr(`note: ${note}\n`);
        io.stdout(flags.format === 'json' ? `${JSON.stringify(s, null, 2)}\n` : stats.formatTraceStats(s));
      } catch (err) {
        setExit(reportError(err, io));
      }
    });
}
