import type { CurvePoint } from '../../schema/curve.ts';
import type { PointsQuery } from '../../schema/web-api.ts';
import { chartPoints, curvePoints, runById } from '../../store/queries.ts';
import { latestPointsOfStatus } from '../../store/web-queries.ts';
import { configId } from '../config-id.ts';
import { notFound } from '../http.ts';
import type { ApiContext } from './context.ts';

/**
 * `GET /api/points`: the inference view's data request. Without `run`: the latest result per config and
 * concurrency among the runs of `status` (official by default: the store's latest_results); with `run`:
 * that run's points. Every other parameter narrows the points.
 */
export async function selectPoints(ctx: ApiContext, q: PointsQuery): Promise<CurvePoint[]> {
  const { store } = ctx;
  let points: CurvePoint[];
  if (q.run !== undefined) {
    if ((await runById(store, q.run)) === undefined)
      throw notFound(`no run '${q.run}' in the database (GET /api/runs lists them)`, 'run');
    points = await curvePoints(store, { runId: q.run });
  } else if ((q.status ?? 'official') === 'official') {
    points =
      q.isl !== undefined && q.osl !== undefined
        ? await chartPoints(store, { isl: q.isl, osl: q.osl, model: q.model, hardware: q.hardware })
        : await curvePoints(store, { official: true });
  } else points = await latestPointsOfStatus(store, q.status!, { isl: q.isl, osl: q.osl, model: q.model });

  const set = (xs: readonly string[] | undefined) =>
    xs === undefined || xs.length === 0 ? null : new Set(xs);
  const precision = set(q.precision);
  const hardware = set(q.hardware);
  const framework = set(q.framework);
  const hide = set(q.hide);
  return points.filter(
    (p) =>
      (q.model === undefined || p.config.model === q.model) &&
      (q.isl === undefined || (p.config.isl === q.isl && p.config.osl === q.osl)) &&
      (precision === null || precision.has(p.config.precision)) &&
      (hardware === null || hardware.has(p.config.hardware)) &&
      (framework === null || framework.has(p.config.framework)) &&
      (hide === null || !hide.has(configId(p.configKey))),
  );
}
