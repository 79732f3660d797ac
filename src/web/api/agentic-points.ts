import type { AgenticCurvePoint, AgenticPointsQuery } from '../../schema/agentic-curve.ts';
import { agenticPoints } from '../../store/agentic-queries.ts';
import { runById } from '../../store/queries.ts';
import { notFound } from '../http.ts';
import type { ApiContext } from './context.ts';

/**
 * `GET /api/agentic-points`: the agentic view's data. Without `run`: the newest result per config and
 * number of users among the runs of `status` (official by default); with `run`: that run's points.
 */
export async function agenticPointsOf(ctx: ApiContext, q: AgenticPointsQuery): Promise<AgenticCurvePoint[]> {
  if (q.run !== undefined) {
    if ((await runById(ctx.store, q.run)) === undefined)
      throw notFound(`no run '${q.run}' in the database (GET /api/runs lists them)`, 'run');
    const points = await agenticPoints(ctx.store, { runId: q.run });
    return q.model === undefined ? points : points.filter((p) => p.config.model === q.model);
  }
  return agenticPoints(ctx.store, { status: q.status ?? 'official', model: q.model });
}
