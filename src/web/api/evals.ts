import { configLabel } from '../../analysis/labels.ts';
import type { EvalDetail, EvalSamplesQuery, EvalsQuery, EvalVerdict } from '../../schema/web-evals.ts';
import { type StoredVerdict, storedSamples, storedVerdicts } from '../../store/eval-queries.ts';
import { configOf } from '../../store/queries.ts';
import { notFound } from '../http.ts';
import type { ApiContext } from './context.ts';

/** `GET /api/evals` and `GET /api/runs/:id/points/:pointId/eval`: the evaluation page's data. */

function verdictOf(v: StoredVerdict): EvalVerdict {
  const e = v.row;
  return {
    runId: e.run_id,
    runStatus: v.runStatus as EvalVerdict['runStatus'],
    runCreatedAt: v.runCreatedAt,
    pointId: e.point_id,
    attempt: e.attempt,
    configKey: e.config_key,
    model: v.config.model,
    config: configLabel(configOf(v.config)),
    isl: v.config.isl,
    osl: v.config.osl,
    conc: e.conc,
    task: e.task,
    evalOnly: e.eval_only === 1,
    strictMatch: { value: e.strict_match, stderr: e.strict_match_stderr },
    flexibleExtract: { value: e.flexible_extract, stderr: e.flexible_extract_stderr },
    threshold: e.threshold,
    thresholdSource: e.threshold_source,
    thresholdRule: e.threshold_rule as EvalVerdict['thresholdRule'],
    pass: e.pass === 1,
    simulated: e.simulated === 1,
    samples: e.samples,
    failedSamples: e.failed_samples,
  };
}

export async function listEvals(ctx: ApiContext, q: EvalsQuery): Promise<EvalVerdict[]> {
  return (await storedVerdicts(ctx.store, q)).map(verdictOf);
}

export async function evalDetail(
  ctx: ApiContext,
  runId: string,
  pointId: string,
  q: EvalSamplesQuery,
): Promise<EvalDetail> {
  const [v] = await storedVerdicts(ctx.store, { run: runId, point: pointId });
  if (!v) throw notFound(`run ${runId} has no stored eval for point ${pointId}`);
  const page = await storedSamples(ctx.store, runId, pointId, q);
  return { verdict: verdictOf(v), filter: q.filter, offset: q.offset, ...page };
}
