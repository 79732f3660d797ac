import { MinHeap } from './heap.ts';
import { BLOCK_SIZE } from './kv-cache.ts';
import type { BatchTotals } from './perf-model.ts';
import type { SimRequest } from './types.ts';

/** The fast engine's per-request state and its decode-group bookkeeping (fast-engine.ts). */

export const WAITING = 0;
export const PREFILL = 1;
export const DECODE = 2;
export const DONE = 3;

export class FSeq {
  state = WAITING;
  output = 0;
  computed = 0;
  /** Tokens whose KV blocks are held (blocks = ⌈res / 16⌉): prefills and fresh decodes. */
  res = 0;
  scheduled = 0;
  preemptions = 0;
  firstTokenMs: number | null = null;
  /** Running order (admission order). */
  ord = 0;
  /** As a decode: computed = base + T, output = outBase + T; fresh until its first decode step. */
  base = 0;
  outBase = 0;
  /** As a lockstep decode: the token clock T at which it finishes (FastBase.finishClock). */
  finishAt = 0;
  fresh = false;
  gen = 0;
  capP = false;
  capK = false;
  /** A recomputed request one token short of its length, verifying drafts this step (engine.ts). */
  drafting = false;
  /** Its attention-DP rank where a DP balancer holds prompts (dp-balancer.ts); else 0. */
  rank = 0;
  constructor(
    readonly req: SimRequest,
    readonly target: number,
    readonly arrivalMs: number,
  ) {}
  get length(): number {
    return this.req.promptTokens + this.output;
  }
}

export const blocksOf = (tokens: number) => Math.ceil(tokens / BLOCK_SIZE);
export const mod16 = (x: number) => ((x % BLOCK_SIZE) + BLOCK_SIZE) % BLOCK_SIZE;

/** Decodes whose context has reached a cap: count and base sums on either side, a heap of crossings. */
export class CapTracker {
  uncCount = 0;
  uncBase = 0;
  capCount = 0;
  private readonly heap = new MinHeap<FSeq>();
  constructor(
    /** Capped once computed ≥ th. */
    readonly th: number,
    private readonly flag: 'capP' | 'capK',
  ) {}
  add(s: FSeq, T: number): void {
    if (s.base + T >= this.th) {
      s[this.flag] = true;
      this.capCount++;
      return;
    }
    s[this.flag] = false;
    this.uncCount++;
    this.uncBase += s.base;
    if (Number.isFinite(this.th)) this.heap.push(this.th - s.base, s.ord, s, s.gen);
  }
  remove(s: FSeq): void {
    if (s[this.flag]) this.capCount--;
    else {
      this.uncCount--;
      this.uncBase -= s.base;
    }
  }
  advance(T: number): void {
    while (this.heap.topKey() <= T) {
      const gen = this.heap.topTag();
      const s = this.heap.pop()!;
      if (s.state !== DECODE || s.gen !== gen || s[this.flag]) continue;
      s[this.flag] = true;
      this.uncCount--;
      this.uncBase -= s.base;
      this.capCount++;
    }
  }
}

/**
 * Blocks the steady decodes need to grow by the `e` tokens each emitted since `tRes` (their reservation
 * point): per residue class q of (base + width) mod 16, the multiples of 16 in [q + tRes, q + tRes + e).
 */
export function crossings(cls: Float64Array, tRes: number, e: number): number {
  if (e <= 0) return 0;
  let need = 0;
  for (let q = 0; q < BLOCK_SIZE; q++) {
    const c = cls[q]!;
    if (c === 0) continue;
    const x = (q + tRes) % BLOCK_SIZE;
    need += c * (Math.floor((x + e - 1) / BLOCK_SIZE) + (x === 0 ? 1 : 0));
  }
  return need;
}

/**
 * The decodes' share of a batch's totals, into `t` (pairs and KV tokens; tokens and seqs are the caller's):
 * per decode w·min(c + (w+1)/2, topK) pairs and min(c + w, topK·w) KV tokens, c = base + T, summed over the
 * uncapped side of each tracker and the capped side at the cap. Integers, so equal to engine.ts's sums.
 */
export function decodeTotals(
  t: BatchTotals,
  P: CapTracker,
  K: CapTracker,
  T: number,
  w: number,
  topK: number,
): void {
  P.advance(T);
  K.advance(T);
  t.pairs = w * (P.uncBase + P.uncCount * T) + (P.uncCount * w * (w + 1)) / 2;
  if (P.capCount > 0) t.pairs += P.capCount * w * topK;
  t.kvTokens = K.uncBase + K.uncCount * T + K.uncCount * w;
  if (K.capCount > 0) t.kvTokens += K.capCount * topK * w;
}

/** The decodes' share of a batch's totals one decode at a time (draws each: contexts differ). */
export function eachTotals(t: BatchTotals, decs: readonly FSeq[], w: number, topK: number): void {
  let pairs = 0;
  let kv = 0;
  for (const d of decs) {
    if (d.state !== DECODE) continue;
    pairs += w * Math.min(d.computed + (w + 1) / 2, topK);
    kv += Math.min(d.computed + w, topK * w);
  }
  t.pairs = pairs;
  t.kvTokens = kv;
}
