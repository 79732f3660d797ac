import type { KvAwareOptions } from '../schema/router.ts';
import {
  chosen,
  type Decision,
  healthyIndices,
  noHealthyWorker,
  type RouteRequest,
  type RoutingPolicy,
  type WorkerView,
} from './policy.ts';
import type { Rng } from './rng.ts';

/**
 * The Dynamo KV router's cost (≤ v1.1), per healthy worker:
 *
 *   cost = overlap_score_weight × prefill_blocks + decode_blocks
 *   prefill_blocks = (input_tokens − overlap_blocks × block_size) / block_size
 *                    + the worker's active prompt tokens / block_size
 *   decode_blocks  = the worker's active KV blocks + ceil(input_tokens / block_size)
 *
 * A request's prompt tokens count as active prompt load from its start until its first output token; its
 * blocks count as active KV blocks until it completes. Temperature 0 takes the lowest cost (ties to the
 * lower worker index; Dynamo breaks ties by tree size, then at random); above 0 it samples a softmax of the
 * normalised logits −(cost / (max − min)) / temperature, uniform when all costs are equal, taking the first
 * worker whose cumulative probability reaches the uniform draw.
 *
 * overlap_blocks is the leading run of the request's block hashes a worker holds. With KV events the
 * holdings come from the engines (`cachedBlocks`, which the proxy fills from `infx sim serve`); without,
 * from the router's own history: every block routed to a worker counts as held there for ttl_secs after it
 * was routed. Active blocks are counted per request (Dynamo counts a prefix shared by two in-flight
 * requests once).
 */

export type BlockHash = number | string;

export interface KvAwareSources {
  rng: Rng;
  /** Milliseconds on any monotonic clock (the history TTL); Date.now by default. */
  now?: () => number;
  /** The blocks a worker's engine holds now (KV events); required unless kvEvents is off. */
  cachedBlocks?: (url: string) => ReadonlySet<BlockHash> | undefined;
}

export interface KvAwarePolicy extends RoutingPolicy {
  /** Per worker URL: active prompt tokens and active KV blocks. */
  active(url: string): { prefillTokens: number; blocks: number };
  /** The cost of sending `request` to each worker (null for an unhealthy one). */
  costs(request: RouteRequest, workers: readonly WorkerView[]): (number | null)[];
}

interface Shape {
  inputTokens: number;
  blocks: number;
  hashes: readonly BlockHash[];
}

interface InFlight {
  url: string;
  prefillTokens: number;
  blocks: number;
  prefillDone: boolean;
}

/** Samples an index from costs as Dynamo does; `draw` is uniform in [0, 1). */
export function softmaxPick(costs: readonly number[], temperature: number, draw: number): number {
  const min = Math.min(...costs);
  const max = Math.max(...costs);
  let probabilities: number[];
  if (min === max) probabilities = costs.map(() => 1 / costs.length);
  else {
    const range = max - min;
    const scaled = costs.map((c) => -(c / range) / temperature);
    const top = Math.max(...scaled);
    const weights = scaled.map((s) => Math.exp(s - top));
    const sum = weights.reduce((a, b) => a + b, 0);
    probabilities = weights.map((w) => w / sum);
  }
  let cumulative = 0;
  for (let i = 0; i < probabilities.length; i++) {
    cumulative += probabilities[i]!;
    if (draw <= cumulative) return i;
  }
  return probabilities.length - 1;
}

export function kvAware(options: KvAwareOptions, sources: KvAwareSources): KvAwarePolicy {
  if (options.kvEvents && sources.cachedBlocks === undefined)
    throw new Error(
      'kv-aware routing with KV events needs the engines’ block hashes (a cachedBlocks source); ' +
        'turn KV events off to predict them from the routing history',
    );
  const now = sources.now ?? Date.now;
  const ttlMs = options.ttlSecs * 1000;
  const bs = options.blockSize;
  const activeByUrl = new Map<string, { prefillTokens: number; blocks: number }>();
  const history = new Map<string, Map<BlockHash, number>>();
  const inFlight = new Map<number, InFlight>();

  const active = (url: string) => activeByUrl.get(url) ?? { prefillTokens: 0, blocks: 0 };
  const shape = (request: RouteRequest): Shape => {
    const hashes = request.blockHashes ?? [];
    const inputTokens = request.inputTokens ?? request.tokens?.length ?? hashes.length * bs;
    return { inputTokens, blocks: Math.ceil(inputTokens / bs), hashes };
  };
  const holds = (url: string): ((h: BlockHash) => boolean) => {
    if (options.kvEvents) {
      const cached = sources.cachedBlocks!(url);
      return (h) => cached?.has(h) ?? false;
    }
    const routed = history.get(url);
    const t = now();
    return (h) => {
      const at = routed?.get(h);
      return at !== undefined && t - at < ttlMs;
    };
  };
  const overlapOn = (url: string, s: Shape): number => {
    const held = holds(url);
    const most = Math.floor(s.inputTokens / bs);
    let n = 0;
    while (n < s.hashes.length && n < most && held(s.hashes[n]!)) n++;
    return n;
  };
  const costOn = (url: string, s: Shape, overlap: number): number => {
    const a = active(url);
    const prefillBlocks = (s.inputTokens - overlap * bs) / bs + a.prefillTokens / bs;
    return options.overlapScoreWeight * prefillBlocks + a.blocks + s.blocks;
  };
  const adjust = (url: string, prefillTokens: number, blocks: number) => {
    const a = active(url);
    activeByUrl.set(url, { prefillTokens: a.prefillTokens + prefillTokens, blocks: a.blocks + blocks });
  };
  const releasePrefill = (f: InFlight) => {
    if (f.prefillDone) return;
    f.prefillDone = true;
    adjust(f.url, -f.prefillTokens, 0);
  };

  return {
    name: 'kv-aware',
    active,
    costs(request, workers) {
      const s = shape(request);
      return workers.map((w) => (w.healthy ? costOn(w.url, s, overlapOn(w.url, s)) : null));
    },
    select(request, workers): Decision {
      const healthy = healthyIndices(workers);
      if (healthy.length === 0) return noHealthyWorker(workers);
      const s = shape(request);
      const overlaps = healthy.map((i) => overlapOn(workers[i]!.url, s));
      const costs = healthy.map((i, k) => costOn(workers[i]!.url, s, overlaps[k]!));
      let pick = 0;
      if (options.temperature === 0) {
        for (let k = 1; k < costs.length; k++) if (costs[k]! < costs[pick]!) pick = k;
      } else pick = softmaxPick(costs, options.temperature, sources.rng.next());
      return chosen(healthy[pick]!, { unit: 'blocks', matched: overlaps[pick]!, total: s.hashes.length });
    },
    started(id, request, worker, workers) {
      const url = workers[worker]!.url;
      const s = shape(request);
      const prefillTokens = Math.max(0, s.inputTokens - overlapOn(url, s) * bs);
      adjust(url, prefillTokens, s.blocks);
      inFlight.set(id, { url, prefillTokens, blocks: s.blocks, prefillDone: false });
      if (!options.kvEvents) {
        const routed = history.get(url) ?? new Map<BlockHash, number>();
        const t = now();
        for (const h of s.hashes) routed.set(h, t);
        history.set(url, routed);
      }
    },
    firstToken(id) {
      const f = inFlight.get(id);
      if (f) releasePrefill(f);
    },
    completed(id) {
      const f = inFlight.get(id);
      if (!f) return;
      releasePrefill(f);
      adjust(f.url, 0, -f.blocks);
      inFlight.delete(id);
    },
    evict() {
      const t = now();
      for (const [url, routed] of history) {
        for (const [h, at] of routed) if (t - at >= ttlMs) routed.delete(h);
        if (routed.size === 0) history.delete(url);
      }
    },
  };
}
