import { bulkWrite, type WriteTarget } from './bulk.ts';
import type { EvalSamplesTable, PointEvalsTable } from './tables.ts';

/**
 * Writes a run's eval verdicts and their samples inside the ingest's transaction, touching only what
 * changed: a verdict is rewritten when any of its columns differs from the stored one, and a point's samples
 * are replaced (all of them, in one go) when its verdict changed or the stored samples are not the ones read
 * now. Samples that the run directory no longer yields (a deleted samples file) are kept, as results are.
 * Returns the points whose eval changed.
 */
export async function writeEvals(
  t: WriteTarget,
  runId: string,
  verdicts: readonly PointEvalsTable[],
  samples: readonly EvalSamplesTable[],
): Promise<Set<string>> {
  const changed = new Set<string>();
  if (verdicts.length === 0) return changed;
  const db = t.db;
  const [stored, counts] = await Promise.all([
    db.selectFrom('point_evals').selectAll().where('run_id', '=', runId).execute(),
    db
      .selectFrom('eval_samples')
      .select(['point_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('run_id', '=', runId)
      .groupBy('point_id')
      .execute(),
  ]);
  const storedBy = new Map(stored.map((r) => [r.point_id, r]));
  const storedCount = new Map(counts.map((c) => [c.point_id, Number(c.n)]));
  const samplesBy = new Map<string, EvalSamplesTable[]>();
  for (const s of samples) {
    const list = samplesBy.get(s.point_id);
    if (list) list.push(s);
    else samplesBy.set(s.point_id, [s]);
  }
  const cols = Object.keys(verdicts[0]!) as (keyof PointEvalsTable)[];
  const same = (a: PointEvalsTable, b: PointEvalsTable) =>
    cols.every((c) => (a[c] ?? null) === (b[c] ?? null));

  const rewrite: PointEvalsTable[] = [];
  const replace: string[] = [];
  for (const v of verdicts) {
    const old = storedBy.get(v.point_id);
    const verdictChanged = !old || !same(old, v);
    const read = samplesBy.get(v.point_id) ?? [];
    const samplesChanged = read.length > 0 && (verdictChanged || storedCount.get(v.point_id) !== read.length);
    if (verdictChanged) rewrite.push(v);
    if (samplesChanged) replace.push(v.point_id);
    if (verdictChanged || samplesChanged) changed.add(v.point_id);
  }
  await bulkWrite(t, 'point_evals', rewrite, 'update');
  for (const pointId of replace) {
    await db.deleteFrom('eval_samples').where('run_id', '=', runId).where('point_id', '=', pointId).execute();
    await bulkWrite(t, 'eval_samples', samplesBy.get(pointId)!, 'error');
  }
  return changed;
}
