import type { EstimatedHit, NoWorkerReason, RouterMetrics, RouterOptions } from '../schema/router.ts';
import type { RouteRequest, RoutingPolicy, WorkerView } from './policy.ts';

/**
 * The workers behind a router and their counters, around one policy: `route` asks the policy and counts
 * the request in flight on the worker chosen; `firstToken` and `complete` end its phases. Every hook of the
 * policy is called from here, so a proxy only reports what it sees on the wire. `metrics()` is what
 * `/metrics` answers.
 */

interface WorkerRecord extends WorkerView {
  url: string;
  healthy: boolean;
  load: number;
  requests: number;
  completed: number;
  failed: number;
  estimatedHits: EstimatedHit | null;
}

export type Routed =
  | { kind: 'worker'; id: number; worker: number; url: string; estimatedHit: EstimatedHit | null }
  | { kind: 'none'; reason: NoWorkerReason; message: string };

export class RouterPool {
  private readonly records: WorkerRecord[];
  private readonly open = new Map<number, { worker: number; firstToken: boolean }>();
  private nextId = 1;
  private readonly noWorker: Record<NoWorkerReason, number> = {
    'no-workers': 0,
    'no-healthy-worker': 0,
    'target-worker-unavailable': 0,
  };

  constructor(
    urls: readonly string[],
    readonly policy: RoutingPolicy,
    private readonly options: Pick<RouterOptions, 'hashFlavor' | 'seed'>,
  ) {
    this.records = urls.map((url) => ({
      url,
      healthy: true,
      load: 0,
      requests: 0,
      completed: 0,
      failed: 0,
      estimatedHits: null,
    }));
  }

  get workers(): readonly WorkerView[] {
    return this.records;
  }

  setHealthy(worker: number, healthy: boolean): void {
    const r = this.records[worker];
    if (r) r.healthy = healthy;
  }

  route(request: RouteRequest): Routed {
    const decision = this.policy.select(request, this.records);
    if (decision.kind === 'none') {
      this.noWorker[decision.reason]++;
      return decision;
    }
    const r = this.records[decision.index]!;
    const id = this.nextId++;
    r.load++;
    r.requests++;
    const hit = decision.estimatedHit;
    if (hit) {
      const sum = r.estimatedHits;
      r.estimatedHits =
        sum && sum.unit === hit.unit
          ? { unit: hit.unit, matched: sum.matched + hit.matched, total: sum.total + hit.total }
          : { ...hit };
    }
    this.open.set(id, { worker: decision.index, firstToken: false });
    this.policy.started?.(id, request, decision.index, this.records);
    return { kind: 'worker', id, worker: decision.index, url: r.url, estimatedHit: hit };
  }

  /** The request's first output token arrived (once; later calls do nothing). */
  firstToken(id: number): void {
    const o = this.open.get(id);
    if (!o || o.firstToken) return;
    o.firstToken = true;
    this.policy.firstToken?.(id);
  }

  /** The request ended; `ok` false for an error or a reset stream. Unknown or repeated ids do nothing. */
  complete(id: number, ok: boolean): void {
    const o = this.open.get(id);
    if (!o) return;
    this.open.delete(id);
    const r = this.records[o.worker]!;
    r.load--;
    if (ok) r.completed++;
    else r.failed++;
    this.policy.completed?.(id, ok);
  }

  metrics(): RouterMetrics {
    return {
      schemaVersion: 1,
      policy: this.policy.name,
      hashFlavor: this.policy.name === 'consistent-hash' ? this.options.hashFlavor : null,
      seed: this.options.seed,
      workers: this.records.map((r) => ({
        url: r.url,
        healthy: r.healthy,
        load: r.load,
        requests: r.requests,
        completed: r.completed,
        failed: r.failed,
        estimatedHits: r.estimatedHits ? { ...r.estimatedHits } : null,
      })),
      noWorker: { ...this.noWorker },
    };
  }
}
