import { compareRuns } from '../../analysis/compare.ts';
import { compareToFrontier, frontierBaseline, frontierPoolOf } from '../../analysis/compare-frontier.ts';
import { sameIds } from '../../analysis/compare-noise.ts';
import { storedRepeats } from '../../analysis/repeats-db.ts';
import type { CompareReport } from '../../schema/compare-report.ts';
import type { FrontierCompareReport } from '../../schema/frontier-compare.ts';
import type { ComparePointsResponse, CompareQuery } from '../../schema/web-api.ts';
import { agenticPoints } from '../../store/agentic-queries.ts';
import { curvePoints, runById } from '../../store/queries.ts';
import { badRequest, notFound } from '../http.ts';
import type { ApiContext } from './context.ts';

/**
 * `GET /api/compare` (the CompareReport of `infx compare --format json`) and `GET /api/compare/points` (the
 * points of both sides, for the chart): a stored run against a stored run or `official` (the latest
 * official result of each of the run's configs), as src/analysis/sources-db.ts loads them. `against=frontier`:
 * the report of `infx compare --against frontier`, and `official` holds every official config of the run's
 * configs' groups (model, precision, hardware, workload, engine kind), not only the run's config keys.
 */

type Side = ComparePointsResponse['run'];

async function storedRun(ctx: ApiContext, runId: string, param: 'run' | 'baseline'): Promise<Side> {
  if ((await runById(ctx.store, runId)) === undefined)
    throw notFound(`no run '${runId}' in the database (GET /api/runs lists them)`, param);
  return { label: runId, runIds: [runId], points: await curvePoints(ctx.store, { runId }) };
}

export async function compareSides(
  ctx: ApiContext,
  q: Pick<CompareQuery, 'run' | 'baseline'> & { against?: CompareQuery['against'] },
): Promise<ComparePointsResponse> {
  const run = await storedRun(ctx, q.run, 'run');
  if (q.baseline !== 'official') return { run, baseline: await storedRun(ctx, q.baseline, 'baseline') };
  const configKeys = [...new Set(run.points.map((p) => p.configKey))];
  const points =
    configKeys.length === 0
      ? []
      : q.against === 'frontier'
        ? frontierPoolOf(run.points, await curvePoints(ctx.store, { official: true }))
        : await curvePoints(ctx.store, { official: true, configKeys });
  return { run, baseline: { label: 'official', runIds: [...new Set(points.map((p) => p.runId))], points } };
}

/** As `infx compare` with the database: the spread is measured from every other stored run's repeats. */
export async function compareReport(
  ctx: ApiContext,
  q: CompareQuery,
): Promise<CompareReport | FrontierCompareReport> {
  if (q.against === 'frontier') {
    const extra = (['at', 'price', 'noise'] as const).find((k) => q[k] !== undefined);
    if (extra !== undefined)
      throw badRequest(
        `against=frontier compares each of the run's measured points and takes no '${extra}'`,
        extra,
      );
  }
  const { run, baseline } = await compareSides(ctx, q);
  if (q.against === 'frontier') {
    // Agentic configs too, each against the agentic configs of its group (the run was looked up above).
    const mine = { ...run, agentic: await agenticPoints(ctx.store, { runId: q.run }) };
    const official = q.baseline === 'official';
    const theirs = {
      ...baseline,
      agentic: await agenticPoints(ctx.store, official ? { status: 'official' } : { runId: q.baseline }),
    };
    return compareToFrontier(mine, official ? frontierBaseline(mine, theirs) : theirs, {
      stat: q.interactivity,
    });
  }
  const configKeys = [...new Set(run.points.map((p) => p.configKey))];
  return compareRuns(run, baseline, {
    at: q.at ?? null,
    stat: q.interactivity,
    pricePerGpuHour: q.price ?? null,
    noisePct: q.noise ?? null,
    // Not needed when the run is its own baseline (as infx compare).
    repeats: sameIds(run.runIds, baseline.runIds)
      ? undefined
      : await storedRepeats(ctx.store, configKeys, run.runIds),
  });
}
