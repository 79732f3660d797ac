import { join } from 'node:path';
import { loadGsm8k } from '../evals/dataset.ts';
import { GSM8K_TASK } from '../evals/gsm8k.ts';
import { runEval, writeEvalOutput } from '../evals/run.ts';
import { loadThresholds, REFERENCE_THRESHOLDS, resolveThreshold } from '../evals/thresholds.ts';
import type { EngineLaunch } from '../schema/engine-launch.ts';
import type { PointEvalOutcome, PointEvalSpec } from '../schema/point-eval.ts';
import { ATTEMPT_FILES } from '../schema/run-dir.ts';

/**
 * The accuracy eval of a run-eval point, after its benchmark and on the same engine: GSM8K as `infx eval
 * run` runs it (chat, few-shot as multi-turn, lm-eval's retries), written to `eval/` in the attempt
 * directory, and its verdict against the point's threshold (the model prefix's, else its family's, else
 * the default, as `infx eval validate` resolves it): both filters must reach it.
 */

export interface PointEvalContext {
  outDir: string;
  modelPrefix: string | null;
  log: (line: string) => void;
  signal?: AbortSignal;
}

const metric = (v: unknown): number => (typeof v === 'number' ? v : Number.NaN);

export async function runPointEval(
  spec: PointEvalSpec,
  launch: EngineLaunch,
  c: PointEvalContext,
): Promise<PointEvalOutcome> {
  const data = loadGsm8k({ dataset: spec.dataset, fewshotDataset: spec.fewshotDataset }, spec.fewshot);
  const simulated = spec.simAccuracy !== null;
  c.log(
    `eval ${GSM8K_TASK}: ${spec.limit ?? data.test.length} questions at concurrency ${spec.concurrency}` +
      (simulated ? ` (simulated engine: accuracy ${spec.simAccuracy}, a simulated score)` : ''),
  );
  let last = 0;
  const outcome = await runEval(data.test, data.train, {
    baseUrl: launch.baseUrl,
    model: launch.servedModel,
    endpoint: 'chat',
    concurrency: spec.concurrency,
    limit: spec.limit,
    fewshot: spec.fewshot,
    maxRetries: 5,
    timeoutMs: 1_800_000,
    maxTokens: spec.maxTokens,
    fewshotAsMultiturn: true,
    gradeTruncated: false,
    ...(c.signal ? { signal: c.signal } : {}),
    onSample: (done, total) => {
      if (done === total || done - last >= Math.max(1, Math.floor(total / 10))) {
        last = done;
        c.log(`eval ${GSM8K_TASK}: ${done}/${total} done`);
      }
    },
  });
  const dir = join(c.outDir, ATTEMPT_FILES.eval);
  writeEvalOutput(dir, outcome);
  const thresholds = spec.thresholds === null ? REFERENCE_THRESHOLDS : loadThresholds(spec.thresholds);
  const t = resolveThreshold(thresholds, c.modelPrefix, GSM8K_TASK, spec.minScore);
  const task = outcome.results.results[GSM8K_TASK] as Record<string, unknown>;
  const scores = {
    'strict-match': metric(task['exact_match,strict-match']),
    'flexible-extract': metric(task['exact_match,flexible-extract']),
  };
  const pass = scores['strict-match'] >= t.threshold && scores['flexible-extract'] >= t.threshold;
  return {
    task: GSM8K_TASK,
    samples: outcome.samples.length,
    failed: outcome.samples.filter((s) => s.status === 'failed').length,
    scores,
    threshold: t.threshold,
    source: t.source,
    rule: t.rule,
    pass,
    simulated,
    resultsFile: `${ATTEMPT_FILES.eval}/results.json`,
  };
}

/** One line for the log and the status reason. */
export function evalVerdictLine(e: PointEvalOutcome): string {
  const f = (v: number) => v.toFixed(4);
  return (
    `eval ${e.task}${e.simulated ? ' (simulated)' : ''}: strict-match ${f(e.scores['strict-match'])}, ` +
    `flexible-extract ${f(e.scores['flexible-extract'])} ${e.pass ? '>=' : '<'} ${e.threshold} from ${e.source}` +
    (e.pass ? '' : ': below its threshold')
  );
}
