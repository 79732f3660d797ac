import type { PoolBlockSource, PoolRoute, PoolRouter, RouterOptionsInput } from '../schema/router.ts';
import { createPolicy } from './create.ts';
import { RouterPool } from './pool.ts';

/**
 * The router code in front of a pool of engines that lives in one process (the simulated engine's
 * aggregated and disaggregated pools): the same policies and load counters as `infx router`, asked for an
 * engine index instead of a URL. A request the policy cannot place (every engine is healthy here, so only
 * an SMG target worker out of range) goes to engine 0. `blocks`: what each engine's KV cache holds, for
 * kv-aware routing with KV events (the engines are in this process, so their caches are read directly).
 */
export function createPoolRouter(
  options: RouterOptionsInput,
  engines: number,
  blocks?: PoolBlockSource,
): PoolRouter {
  const urls = Array.from({ length: engines }, (_, i) => `engine-${i}`);
  const policy = createPolicy(
    options,
    blocks
      ? {
          // kv-aware asks only whether a block is held.
          cachedBlocks: (url) => {
            const i = urls.indexOf(url);
            return { has: (h: string | number) => blocks(i, String(h)) } as unknown as ReadonlySet<string>;
          },
        }
      : {},
  );
  const pool = new RouterPool(urls, policy, {
    hashFlavor: options.hashFlavor ?? 'smg',
    seed: options.seed ?? 0,
  });
  const open = new Map<string, number>();
  return {
    name:
      options.hashFlavor && options.policy === 'consistent-hash'
        ? `consistent-hash (${options.hashFlavor})`
        : policy.name,
    pick(id: string, route: PoolRoute | null): number {
      const r = route ?? { headers: {}, body: null, rawBody: '', text: '', inputTokens: 0 };
      const routed = pool.route({
        headers: r.headers,
        body: r.body,
        rawBody: r.rawBody,
        text: r.text,
        inputTokens: r.inputTokens,
        ...(r.blockHashes ? { blockHashes: r.blockHashes } : {}),
      });
      if (routed.kind === 'none') return 0;
      open.set(id, routed.id);
      return routed.worker;
    },
    firstToken(id: string): void {
      const routed = open.get(id);
      if (routed !== undefined) pool.firstToken(routed);
    },
    done(id: string): void {
      const routed = open.get(id);
      if (routed === undefined) return;
      open.delete(id);
      pool.complete(routed, true);
    },
  };
}

/** `least-loaded`: the simulated pool's own choice, no router code. */
export const POOL_LEAST_LOADED = 'least-loaded';

/**
 * The router a pool gets unless told otherwise, as the reference's deployments route: aggregated pools
 * behind SGLang Model Gateway's cache-aware policy, prefill and decode pools behind session affinity
 * (vllm-router's consistent hash, which keys on x-session-id … x-correlation-id).
 */
export function defaultPoolPolicy(pool: 'aggregate' | 'prefill' | 'decode'): RouterOptionsInput {
  return pool === 'aggregate' ? { policy: 'cache-aware' } : { policy: 'consistent-hash', hashFlavor: 'vllm' };
}
