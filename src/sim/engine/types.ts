import type { DpBalanceOptions } from './dp-balancer.ts';
import type { HostKvOptions } from './host-tier.ts';
import type { BlockEvents } from './kv-cache.ts';
import type { BatchEntry, BatchTotals } from './perf-model.ts';
import type { SpecDecodingConfig } from './spec-decode.ts';

/** The engine's public shapes: requests in, callbacks and gauges out. */

export interface SimRequest {
  id: string;
  promptTokens: number;
  maxTokens: number;
  /** Hashes of the prompt's full 16-token blocks, chained (block i's hash covers tokens 0..16(i+1)). */
  prefixHashes?: readonly string[];
  ignoreEos?: boolean;
  /** Output length at which the simulated model "emits EOS"; ignored with ignoreEos. Default maxTokens. */
  stopAfter?: number;
  /**
   * The prompt's KV arrives already computed (a disaggregated decode worker receiving it from a prefill
   * worker): admission allocates its blocks and goes straight to decoding. After a preemption the KV is
   * gone and the prompt is recomputed here, as a real decode worker would.
   */
  kvTransferred?: boolean;
}

export type FinishReason = 'length' | 'stop' | 'abort';

export interface FinishInfo {
  reason: FinishReason;
  promptTokens: number;
  outputTokens: number;
  /** Prompt tokens served from the prefix cache at the first admission. */
  cachedTokens: number;
  arrivalMs: number;
  firstTokenMs: number | null;
  finishMs: number;
  preemptions: number;
}

export interface EngineHooks {
  /** Tokens were emitted: `tokensEmitted` is the request's running total (a step may emit several). */
  onToken?: (requestId: string, tokensEmitted: number, virtualTimeMs: number) => void;
  onFinish?: (requestId: string, info: FinishInfo) => void;
}

export interface StepTimer {
  /** `queued`: requests still waiting after the step's admissions (0 when not known). */
  stepTimeMs(entries: readonly BatchEntry[], draftSeqs: number, queued?: number): number;
  /** The same step time from the batch's totals (the fast engine needs it; PerfModel has it). */
  stepTimeTotals?(totals: BatchTotals, draftSeqs: number): number;
  /** Past tokens one query reads (sparse attention), +Infinity for dense; with stepTimeTotals. */
  readonly attentionTopK?: number;
}

export interface EngineOptions {
  timer: StepTimer;
  /** KV cache capacity in blocks of BLOCK_SIZE tokens (from the catalog memory model). */
  kvBlocks: number;
  maxNumSeqs?: number;
  maxNumBatchedTokens?: number;
  /**
   * Whether decodes take from maxNumBatchedTokens (default true: vLLM's and TensorRT-LLM's token budget
   * holds every scheduled token). False: the budget bounds prefill chunks only and every running decode
   * runs each step, as SGLang's chunked_prefill_size does; a request admitted with its KV transferred
   * then needs no budget either.
   */
  decodesInBudget?: boolean;
  chunkedPrefill?: boolean;
  prefixCaching?: boolean;
  /** A host-memory KV tier under the prefix cache (`kv-offloading: dram`); needs prefixCaching. */
  hostKv?: HostKvOptions | null;
  spec?: SpecDecodingConfig | null;
  seed?: number;
  /** TensorRT-LLM's attention-DP balancer holding prompts (dp-balancer.ts); absent: admit at once. */
  dpBalance?: DpBalanceOptions | null;
}

/** The host-memory KV tier's counters (tokens and bytes since start). */
export interface HostKvGauges {
  capacityTokens: number;
  usedTokens: number;
  /** Prompt tokens looked up in the tier (every prompt, as vLLM's connector queries). */
  queries: number;
  /** Prompt tokens copied back from the tier instead of recomputed. */
  hits: number;
  bytesGpuToCpu: number;
  bytesCpuToGpu: number;
  /** Simulated seconds spent copying host → GPU. */
  secondsCpuToGpu: number;
}

export interface EngineGauges {
  nowMs: number;
  running: number;
  waiting: number;
  /** Fraction of KV blocks held by requests, 0..1. */
  kvUsage: number;
  /** KV cache size in tokens (blocks × block size). */
  kvCapacityTokens: number;
  /** Prefix-cache hits / queries in tokens since start, 0..1 (0 with no queries). */
  prefixCacheHitRate: number;
  prefixCacheQueries: number;
  prefixCacheHits: number;
  /** Null without a host tier. */
  hostKv: HostKvGauges | null;
  preemptionsTotal: number;
  promptTokensTotal: number;
  generationTokensTotal: number;
  requestsFinishedTotal: number;
  stepsTotal: number;
}

export interface StepInfo {
  startMs: number;
  durationMs: number;
  endMs: number;
  seqs: number;
  prefillTokens: number;
  decodeTokens: number;
  preempted: number;
  /** Of durationMs, the host → GPU KV copies of the requests admitted in this step. */
  kvLoadMs: number;
}

export class SimRequestError extends Error {
  override name = 'SimRequestError';
}

/** The checks both engines make of a request at submit (ids aside): lengths, and the whole KV cache. */
export function checkRequest(req: SimRequest, capacityTokens: number): void {
  if (!(Number.isInteger(req.promptTokens) && req.promptTokens >= 1))
    throw new SimRequestError(`promptTokens must be an integer >= 1, got ${req.promptTokens}`);
  if (!(Number.isInteger(req.maxTokens) && req.maxTokens >= 1))
    throw new SimRequestError(`maxTokens must be an integer >= 1, got ${req.maxTokens}`);
  if (req.promptTokens + req.maxTokens > capacityTokens)
    throw new SimRequestError(
      `prompt (${req.promptTokens}) + max tokens (${req.maxTokens}) exceeds the KV cache of ` +
        `${capacityTokens} tokens: raise gpu memory utilization or parallelism, or shorten the request`,
    );
}

/** The tokens a request emits: max tokens, or fewer where it stops early (EOS honoured). */
export function stopOf(req: SimRequest): number {
  return Math.max(1, req.ignoreEos ? req.maxTokens : Math.min(req.maxTokens, req.stopAfter ?? req.maxTokens));
}

/**
 * What a co-simulation (a prefill/decode cluster, the predictor) needs of an engine: the full-fidelity
 * SimEngine and the aggregated FastEngine both provide it.
 */
export interface StepEngine {
  readonly nowMs: number;
  hooks: EngineHooks;
  readonly capacityTokens: number;
  readonly kvUsage: number;
  /** Requests running plus waiting (what least-loaded routing compares). */
  readonly load: number;
  /** Requests waiting for admission (the queue in front of the batch). */
  readonly queued: number;
  hasWork(): boolean;
  /** Whether the GPU KV cache holds the block of this prefix hash. */
  holdsBlock(hash: string): boolean;
  /** Reports the prefix blocks cached and evicted from now on; absent: the engine caches none. */
  watchBlocks?(events: BlockEvents): void;
  submit(req: SimRequest, atMs?: number): number;
  abort(id: string): boolean;
  advanceTo(ms: number): void;
  /**
   * Open arrivals in virtual time: the owner's promise that nothing arrives before this time, so the fast
   * engine may skip the decode steps that start earlier (fast-engine.ts); default none.
   */
  quietUntilMs?: number;
  step(): StepInfo | null;
  gauges(): EngineGauges;
  start(): void;
  nextDueMs(): number | null;
  fire(ms: number): void;
  waitForWork(): Promise<void>;
  attachClock(clock: (() => number) | null): void;
}
