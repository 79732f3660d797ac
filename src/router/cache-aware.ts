import type { CacheAwareOptions } from '../schema/router.ts';
import {
  chosen,
  type Decision,
  healthyIndices,
  leastLoaded,
  noHealthyWorker,
  type RouteRequest,
  type RoutingPolicy,
  type WorkerView,
} from './policy.ts';
import { ApproxTree, charCount } from './radix-tree.ts';

/**
 * SGLang Model Gateway's `cache_aware` policy over HTTP (its character tree).
 *
 * Load is each worker's in-flight counter. Over *all* workers, the system is imbalanced when
 * (max − min) > balance_abs_threshold and max > balance_rel_threshold × min; then the request goes to the
 * least-loaded healthy worker, and its text is still inserted under that worker. Otherwise the tree's
 * longest prefix match gives match_rate = matched / input characters and the tenant at the deepest
 * matched node; above cache_threshold the request goes to that tenant, else to the least-loaded healthy
 * worker, and the text is inserted under the worker chosen. A matched tenant that is no longer a healthy
 * worker sends the request to the first healthy worker without an insert, as SMG does.
 *
 * The comparisons are made in f32 as SMG makes them (`as f32`), so a rate that is 0.3 in f32 is not above
 * a 0.3 threshold. Ties of load go to the lower worker index. SMG picks an arbitrary tenant of the deepest
 * node; here it is the one that routed there most recently. `evict()` is the LRU pass the caller runs
 * every eviction_interval (the tree does not start timers).
 */

const f32 = Math.fround;

export interface CacheAwarePolicy extends RoutingPolicy {
  readonly tree: ApproxTree;
}

export function isImbalanced(loads: readonly number[], options: CacheAwareOptions): boolean {
  if (loads.length === 0) return false;
  const min = Math.min(...loads);
  const max = Math.max(...loads);
  return (
    max - min > options.balanceAbsThreshold && f32(max) > f32(f32(min) * f32(options.balanceRelThreshold))
  );
}

/** match_rate > cache_threshold, computed in f32. */
export function aboveCacheThreshold(matched: number, input: number, threshold: number): boolean {
  const rate = input === 0 ? 0 : f32(f32(matched) / f32(input));
  return rate > f32(threshold);
}

export function cacheAware(options: CacheAwareOptions): CacheAwarePolicy {
  const tree = new ApproxTree();
  const routeTo = (
    index: number,
    text: string,
    matched: number,
    input: number,
    workers: readonly WorkerView[],
  ) => {
    tree.insert(text, workers[index]!.url);
    return chosen(index, { unit: 'chars', matched, total: input });
  };
  return {
    name: 'cache-aware',
    tree,
    select(request: RouteRequest, workers): Decision {
      const healthy = healthyIndices(workers);
      if (healthy.length === 0) return noHealthyWorker(workers);
      const text = request.text;
      if (
        isImbalanced(
          workers.map((w) => w.load),
          options,
        )
      ) {
        const index = leastLoaded(workers, healthy);
        const match = tree.matchTenant(text, workers[index]!.url);
        return routeTo(index, text, match, charCount(text), workers);
      }
      const match = tree.match(text);
      if (aboveCacheThreshold(match.matchedChars, match.inputChars, options.cacheThreshold)) {
        const index = workers.findIndex((w) => w.url === match.tenant);
        if (index < 0 || !workers[index]!.healthy) return chosen(healthy[0]!, null);
        return routeTo(index, text, match.matchedChars, match.inputChars, workers);
      }
      const index = leastLoaded(workers, healthy);
      return routeTo(index, text, tree.matchTenant(text, workers[index]!.url), match.inputChars, workers);
    },
    evict() {
      tree.evict(options.maxTreeSize);
    },
  };
}
