import type { PoolBlockSource, PoolRoute, PoolRouter } from '../../schema/router.ts';
import { AggregatePool, isAggregate, isDisaggSetup, type RowSetup } from '../engine/aggregate.ts';
import { createSimEngine, type ResolvedSim } from '../engine/config.ts';
import { DisaggCluster } from '../engine/disagg.ts';
import { BLOCK_SIZE, type BlockEvents } from '../engine/kv-cache.ts';
import type { Pacer } from '../engine/pacer.ts';
import type { EngineGauges, EngineHooks, SimRequest } from '../engine/types.ts';

/** What the HTTP layer needs from one engine or a prefill/decode cluster. */
export interface Backend {
  /**
   * Queues a request; returns its arrival (engine ms). `atMs`: a paced event at that time. `route`: what a
   * pool's router reads (headers, text) to pick the engine.
   */
  submit(req: SimRequest, atMs?: number, route?: PoolRoute | null): number;
  /** Whether a router reads `route` (only then is it worth building). */
  routed: boolean;
  abort(id: string): boolean;
  gauges(): EngineGauges;
  /** Whether any engine's GPU KV cache holds the block of this prefix hash (`GET /infx/kv-blocks`). */
  holdsBlock(hash: string): boolean;
  /** Reports what the engines that reuse prefix blocks cache and evict (`GET /infx/kv-events`). */
  watchBlocks(events: BlockEvents): void;
  run(pacer: Pacer): Promise<void>;
  resolved: ResolvedSim;
  gpus: number;
  kvTokens: number;
  describe: Record<string, unknown>;
}

/** The router code for a pool of `engines` (src/router, handed in by the CLI); null: the least-loaded engine. */
export type PoolRouterFor = (
  pool: 'aggregate' | 'prefill' | 'decode',
  engines: number,
  blocks: PoolBlockSource,
) => PoolRouter | null;

export function backendOf(setup: RowSetup, hooks: EngineHooks, routerFor?: PoolRouterFor): Backend {
  if (isAggregate(setup)) {
    let pool: AggregatePool | null = null;
    const router =
      routerFor?.('aggregate', setup.replicas, (i, h) => pool?.engines[i]?.holdsBlock(h) ?? false) ?? null;
    pool = new AggregatePool(setup, hooks, router);
    const r = pool.resolved;
    return {
      submit: (req, atMs, route) => pool.submit(req, atMs, route ?? null),
      routed: router !== null,
      abort: (id) => pool.abort(id),
      gauges: () => pool.gauges(),
      holdsBlock: (h) => pool.engines.some((e) => e.holdsBlock(h)),
      watchBlocks: (events) => {
        for (const e of pool.engines) e.watchBlocks?.(events);
      },
      run: (pacer) => pool.runRealtime({ timeScale: pacer.timeScale }, pacer),
      resolved: r,
      gpus: pool.gpus,
      // One request lives on one engine: the most it may hold is one engine's cache.
      kvTokens: r.kvBlocks * BLOCK_SIZE,
      describe: {
        replicas: setup.replicas,
        gpus_per_worker: r.gpus,
        routing: router?.name ?? 'least-loaded',
        tp: r.par.tp,
        pp: r.par.pp,
        ep: r.par.ep,
        dp_attn: r.par.dpAttn,
      },
    };
  }
  if (isDisaggSetup(setup)) {
    let cluster: DisaggCluster | null = null;
    const prefillRouter =
      routerFor?.('prefill', setup.prefill.workers, (i, h) => cluster?.prefill[i]?.holdsBlock(h) ?? false) ??
      null;
    const decodeRouter =
      routerFor?.('decode', setup.decode.workers, (i, h) => cluster?.decode[i]?.holdsBlock(h) ?? false) ??
      null;
    cluster = new DisaggCluster(setup, hooks, {
      ...(prefillRouter ? { prefill: prefillRouter } : {}),
      ...(decodeRouter ? { decode: decodeRouter } : {}),
    });
    const pool = (r: ResolvedSim, workers: number) => ({
      workers,
      gpus_per_worker: r.gpus,
      tp: r.par.tp,
      pp: r.par.pp,
      ep: r.par.ep,
      dp_attn: r.par.dpAttn,
    });
    return {
      submit: (req, atMs, route) => cluster.submit(req, atMs, route ?? null),
      routed: prefillRouter !== null || decodeRouter !== null,
      abort: (id) => cluster.abort(id),
      gauges: () => cluster.gauges(),
      // A prompt's prefix blocks are reused where it is prefilled.
      holdsBlock: (h) => cluster.prefill.some((e) => e.holdsBlock(h)),
      watchBlocks: (events) => {
        for (const e of cluster.prefill) e.watchBlocks?.(events);
      },
      run: (pacer) => cluster.runRealtime({ timeScale: pacer.timeScale }, pacer),
      resolved: cluster.decodeResolved,
      gpus: cluster.gpus,
      kvTokens: cluster.gauges().kvCapacityTokens,
      describe: {
        prefill: {
          ...pool(cluster.prefillResolved, setup.prefill.workers),
          routing: prefillRouter?.name ?? 'least-loaded',
        },
        decode: {
          ...pool(cluster.decodeResolved, setup.decode.workers),
          routing: decodeRouter?.name ?? 'least-loaded',
        },
        kv_transfer_ms_per_1k_tokens: Number(cluster.transferMs(1000).toFixed(3)),
      },
    };
  }
  const { engine, resolved } = createSimEngine(setup, hooks);
  return {
    submit: (req, atMs) => engine.submit(req, atMs),
    routed: false,
    abort: (id) => engine.abort(id),
    gauges: () => engine.gauges(),
    holdsBlock: (h) => engine.holdsBlock(h),
    watchBlocks: (events) => engine.watchBlocks(events),
    run: (pacer) => engine.runRealtime({ timeScale: pacer.timeScale }, pacer),
    resolved,
    gpus: resolved.gpus,
    kvTokens: resolved.kvBlocks * BLOCK_SIZE,
    describe: { tp: resolved.par.tp, pp: resolved.par.pp, ep: resolved.par.ep, dp_attn: resolved.par.dpAttn },
  };
}
