import type { EstimatedHit, NoWorkerReason, RouterPolicyName } from '../schema/router.ts';

/**
 * The one interface every routing policy implements. A policy sees a request and the workers, and names a
 * worker by index or says why there is none; the pool (pool.ts) keeps the load counters and calls the
 * hooks as a request starts, streams its first token and completes, so policies that account for more
 * than in-flight requests (kv-aware's prefill and decode blocks) stay in step.
 */

export interface RouteRequest {
  /** Header names lowercased. */
  headers: Readonly<Record<string, string>>;
  /** The body parsed as JSON, or null when it is not JSON. */
  body: unknown;
  /** The body as received (vllm-router hashes it when no key is found). */
  rawBody: string;
  /** The text prefix matching runs over (cache-aware's character tree). */
  text: string;
  /** Prompt token ids, when the caller has them. */
  tokens?: readonly number[];
  /** Hashes of the prompt's KV blocks in order, when the caller has them (kv-aware's overlap). */
  blockHashes?: readonly (number | string)[];
  /** Prompt length in tokens, when known without the token list. */
  inputTokens?: number;
}

export interface WorkerView {
  readonly url: string;
  readonly healthy: boolean;
  /** Requests in flight on this worker, counted by the router. */
  readonly load: number;
}

export type Decision =
  | { kind: 'worker'; index: number; estimatedHit: EstimatedHit | null }
  | { kind: 'none'; reason: NoWorkerReason; message: string };

export interface RoutingPolicy {
  readonly name: RouterPolicyName;
  /** Chooses a worker. Policies that learn from their choices (cache-aware's tree) record it here. */
  select(request: RouteRequest, workers: readonly WorkerView[]): Decision;
  /** The request `id` was sent to `worker` (after a select that chose it). */
  started?(id: number, request: RouteRequest, worker: number, workers: readonly WorkerView[]): void;
  /** Request `id` streamed its first output token: its prefill is done. */
  firstToken?(id: number): void;
  /** Request `id` ended, successfully or not. */
  completed?(id: number, ok: boolean): void;
  /** Periodic housekeeping the caller schedules (cache-aware's LRU eviction every eviction interval). */
  evict?(): void;
}

export function healthyIndices(workers: readonly WorkerView[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < workers.length; i++) if (workers[i]!.healthy) out.push(i);
  return out;
}

export function chosen(index: number, estimatedHit: EstimatedHit | null = null): Decision {
  return { kind: 'worker', index, estimatedHit };
}

export function noWorker(reason: NoWorkerReason, message: string): Decision {
  return { kind: 'none', reason, message };
}

/** No workers at all, or none healthy: the decision to return when `healthy` is empty. */
export function noHealthyWorker(workers: readonly WorkerView[]): Decision {
  return workers.length === 0
    ? noWorker('no-workers', 'the router has no workers')
    : noWorker('no-healthy-worker', `none of the ${workers.length} workers is healthy`);
}

/** The index (from `among`) with the lowest load; ties go to the first. */
export function leastLoaded(workers: readonly WorkerView[], among: readonly number[]): number {
  let best = among[0]!;
  for (const i of among) if (workers[i]!.load < workers[best]!.load) best = i;
  return best;
}
