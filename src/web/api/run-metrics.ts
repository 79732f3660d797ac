import type { CurveMetrics } from '../../schema/curve.ts';
import type { RunPoint } from '../../schema/web-api.ts';
import { agenticRunMetrics } from '../../store/agentic-queries.ts';
import type { Store } from '../../store/db.ts';
import { curvePoints } from '../../store/queries.ts';

/**
 * What the run page shows of each stored result: the headline metrics (from the hot columns) and how many
 * measured requests completed and failed (from the stored result.json's `counts`).
 */

export interface PointFacts {
  metrics: CurveMetrics;
  requests: RunPoint['requests'];
}

// `counts` is a flat object of integers: reading it alone spares parsing every whole result document.
const COUNTS = /"counts"\s*:\s*(\{[^{}]*\})/;

function requestsOf(resultJson: string): RunPoint['requests'] {
  const m = COUNTS.exec(resultJson);
  if (!m) return null;
  try {
    const c = JSON.parse(m[1] as string) as { completed?: unknown; failed?: unknown };
    return typeof c.completed === 'number' && typeof c.failed === 'number'
      ? { ok: c.completed, failed: c.failed }
      : null;
  } catch {
    return null;
  }
}

export async function runPointFacts(store: Store, runId: string): Promise<Map<string, PointFacts>> {
  const [points, agentic, docs] = await Promise.all([
    curvePoints(store, { runId }),
    agenticRunMetrics(store, runId),
    store.db
      .selectFrom('result_documents')
      .select(['point_id', 'result_json'])
      .where('run_id', '=', runId)
      .execute(),
  ]);
  const requests = new Map(docs.map((d) => [d.point_id, requestsOf(d.result_json)]));
  const metrics: [string, CurveMetrics][] = [
    ...points.map((p): [string, CurveMetrics] => [p.pointId, p.metrics]),
    ...agentic,
  ];
  return new Map(metrics.map(([id, m]) => [id, { metrics: m, requests: requests.get(id) ?? null }]));
}
