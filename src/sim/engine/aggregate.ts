import type { PoolRoute, PoolRouter } from '../../schema/router.ts';
import { createSimEngine, type ResolvedSim, type SimSetup } from './config.ts';
import { type DisaggSetup, leastLoaded, sumGauges, workerSeed } from './disagg.ts';
import type { SimEngine } from './engine.ts';
import { PacedEngines } from './paced-engines.ts';
import type { EngineGauges, EngineHooks, SimRequest } from './types.ts';

/**
 * An aggregated pool: several identical engines on one allocation behind one endpoint (packed TP4: two TP4
 * servers on an 8-GPU node), each serving whole requests. A request goes to the engine its router picks
 * (the router code of src/router, handed in; without one, the least-loaded engine). Every engine runs on
 * one clock, so the client's lockstep holds over the pool as over one engine; the GPUs are all the engines'.
 */

export interface AggregateSetup {
  replicas: number;
  setup: SimSetup;
}

/** What a matrix row is to the simulator: one engine, a prefill/decode cluster, or an aggregated pool. */
export type RowSetup = SimSetup | DisaggSetup | AggregateSetup;

export const isAggregate = (s: RowSetup): s is AggregateSetup => 'replicas' in s && 'setup' in s;
export const isDisaggSetup = (s: RowSetup): s is DisaggSetup => 'prefill' in s && 'decode' in s;

/** The engine setups a row runs (one; the pool's; prefill's and decode's). */
export function engineSetups(s: RowSetup): SimSetup[] {
  if (isAggregate(s)) return [s.setup];
  if (isDisaggSetup(s)) return [s.prefill.setup, s.decode.setup];
  return [s];
}

export class AggregatePool extends PacedEngines {
  readonly engines: SimEngine[] = [];
  readonly resolved: ResolvedSim;
  readonly gpus: number;

  constructor(
    setup: AggregateSetup,
    public hooks: EngineHooks = {},
    private readonly router: PoolRouter | null = null,
  ) {
    super();
    if (!(Number.isInteger(setup.replicas) && setup.replicas >= 1))
      throw new RangeError(`an aggregated pool needs at least one engine, got ${setup.replicas}`);
    let resolved: ResolvedSim | null = null;
    for (let i = 0; i < setup.replicas; i++) {
      // Request ids are unique across the pool, so the engines share the endpoint's hooks.
      const made = createSimEngine(
        { ...setup.setup, seed: workerSeed(setup.setup.seed, 0, i) },
        {
          onToken: (id, total, t) => {
            // The router counts the first call only.
            this.router?.firstToken(id);
            this.hooks.onToken?.(id, total, t);
          },
          onFinish: (id, info) => {
            this.router?.done(id);
            this.hooks.onFinish?.(id, info);
          },
        },
      );
      this.engines.push(made.engine);
      resolved = made.resolved;
    }
    this.resolved = resolved as ResolvedSim;
    this.gpus = setup.replicas * this.resolved.gpus;
  }

  /** KV capacity of one engine: the most a single request may hold. */
  get capacityTokens(): number {
    return this.engines[0]?.capacityTokens ?? 0;
  }

  submit(req: SimRequest, atMs?: number, route: PoolRoute | null = null): number {
    const picked = this.router?.pick(req.id, route);
    const engine =
      picked === undefined
        ? leastLoaded(this.engines)
        : (this.engines[picked] ?? (this.engines[0] as SimEngine));
    if (atMs !== undefined && !this.pacer) engine.advanceTo(atMs);
    const arrival = engine.submit(req, atMs);
    this.wake();
    return arrival;
  }

  abort(id: string): boolean {
    let found = false;
    for (const e of this.engines) found = e.abort(id) || found;
    return found;
  }

  protected workers(): readonly SimEngine[] {
    return this.engines;
  }

  gauges(): EngineGauges {
    const all = this.engines.map((e) => e.gauges());
    return sumGauges(all, all);
  }

  /** Co-simulation in virtual time: the earliest engine's step, until none has work (tests, prediction). */
  runUntilIdle(): void {
    for (;;) {
      let next: SimEngine | null = null;
      for (const e of this.engines) if (e.hasWork() && (next === null || e.nowMs < next.nowMs)) next = e;
      if (next === null) return;
      next.step();
    }
  }
}
