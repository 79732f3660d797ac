import type { TheoreticalPrefixCacheHit } from '../../schema/agentic-metrics.ts';
import type { AgenticRequestRecord } from '../../schema/agentic-record.ts';
import { isKept } from './records.ts';

/**
 * The runtime theoretical prefix-cache hit (addendum §1.4): the per-request hit and block counts fixed
 * at compile time (schema/agentic-record.ts), summed over successful profiling records only, the hit
 * clamped to [0, total]. A recycled trace counts again. Null with no blocks.
 */
export function theoreticalPrefixCacheHit(
  records: readonly AgenticRequestRecord[],
): TheoreticalPrefixCacheHit | null {
  let hit = 0;
  let total = 0;
  for (const r of records) {
    if (!isKept(r)) continue;
    const t = r.agentic.theoreticalPrefix.totalBlocks;
    hit += Math.min(Math.max(r.agentic.theoreticalPrefix.hitBlocks, 0), t);
    total += t;
  }
  if (total === 0) return null;
  return { unit: '%', avg: (100 * hit) / total, sum: hit, count: total };
}

/** The shape AIPerf's aggregate may hold the metric in: any of its fields can be missing. */
export interface TheoreticalHitAggregate {
  unit?: string;
  avg?: number;
  sum?: number;
  count?: number;
}

/**
 * The reference's reading of `theoretical_prefix_cache_hit` (§4.4): sum/count when both are there with
 * count > 0 (hit blocks / blocks), else avg (÷100 when the unit is "%"); missing → null.
 */
export function theoreticalCacheHitRate(m: TheoreticalHitAggregate | null): number | null {
  if (m === null) return null;
  if (m.sum !== undefined && m.count !== undefined && m.count > 0) return m.sum / m.count;
  if (m.avg === undefined) return null;
  return m.unit === '%' ? m.avg / 100 : m.avg;
}
