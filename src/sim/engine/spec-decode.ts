import { InfxError } from '../../schema/errors.ts';
import type { Prng } from './prng.ts';

/**
 * Speculative decoding: each verification step of a decoding sequence feeds its last token plus
 * `draftTokens` drafted ones and emits 1 to draftTokens + 1 tokens. The emitted count follows the usual
 * chain model: draft i is accepted only if drafts 1..i-1 were, each with probability p, and the target
 * model always contributes one token (the correction or bonus token). So E[emitted] = Σ_{i=0..k} p^i, and p
 * is solved from the requested mean acceptance length AL (the number the reference reports as "AL").
 */

export type SpecMethod = 'mtp' | 'draft_model';

export interface SpecDecodingConfig {
  method: SpecMethod;
  /** Tokens drafted per step (k). */
  draftTokens: number;
  /** Mean tokens emitted per verification step, in [1, k + 1]. */
  acceptanceLength: number;
}

export class SpecConfigError extends InfxError {
  override name = 'SpecConfigError';
}

/** The most draft tokens a step may verify: engines stop well below (golden tables measure up to 8). */
export const MAX_DRAFT_TOKENS = 16;

export function validateSpec(spec: SpecDecodingConfig): void {
  const { draftTokens: k, acceptanceLength: al } = spec;
  if (!Number.isInteger(k) || k < 1 || k > MAX_DRAFT_TOKENS)
    throw new SpecConfigError(`draft tokens must be an integer from 1 to ${MAX_DRAFT_TOKENS}, got ${k}`);
  if (!(al >= 1 && al <= k + 1)) {
    throw new SpecConfigError(
      `acceptance length ${al} is impossible with ${k} draft tokens: it must lie in [1, ${k + 1}] ` +
        '(the verified tokens per step, the bonus token included)',
    );
  }
}

/** Expected tokens per step when each draft is accepted with probability p: Σ_{i=0..k} p^i. */
export function expectedAcceptance(p: number, k: number): number {
  let sum = 0;
  let term = 1;
  for (let i = 0; i <= k; i++) {
    sum += term;
    term *= p;
  }
  return sum;
}

/** The per-draft acceptance probability p with Σ_{i=0..k} p^i = al (bisection; monotone in p). */
export function acceptanceProbability(k: number, al: number): number {
  if (al <= 1) return 0;
  if (al >= k + 1) return 1;
  let lo = 0;
  let hi = 1;
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (expectedAcceptance(mid, k) < al) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** Steps per block in AcceptanceSampler.stepsToEmit, largest first. */
const BLOCK_STEPS = [64, 8] as const;

/** The first index whose cumulative probability exceeds u (the last one if rounding leaves none). */
function upperIndex(cdf: Float64Array, u: number): number {
  let lo = 0;
  let hi = cdf.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cdf[mid]! > u) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Draws emitted-token counts per verification step, deterministically from the given PRNG. */
export class AcceptanceSampler {
  private readonly k: number;
  /** at[j] = p^(j+1): the chance that drafts 1..j+1 are all accepted. */
  private readonly at: Float64Array;

  constructor(
    spec: SpecDecodingConfig,
    private readonly prng: Prng,
  ) {
    validateSpec(spec);
    this.k = spec.draftTokens;
    const p = acceptanceProbability(spec.draftTokens, spec.acceptanceLength);
    this.at = new Float64Array(this.k);
    for (let j = 0, q = p; j < this.k; j++, q *= p) this.at[j] = q;
  }

  /**
   * Tokens emitted by one verification step with `drafted` drafts (≤ k): 1 + accepted drafts. One uniform
   * per step, by inverse CDF (at least j drafts accepted iff u < p^j): the chain's distribution with a
   * single draw, where drawing each draft's coin cost up to k + 1 (the sampler runs per decode per step).
   */
  sample(drafted = this.k): number {
    const u = this.prng.next();
    const at = this.at;
    let n = 1;
    while (n <= drafted && u < at[n - 1]!) n++;
    return n;
  }

  /**
   * The verification steps (each with all k drafts) a sequence takes to emit `tokens` tokens: the least n
   * whose n draws of `sample()` sum to at least `tokens`, in a few dozen draws rather than one per step.
   * Blocks of 64, then 8, steps are drawn whole from their sum's distribution while even a block of all
   * accepted drafts stays short of the target, so the stopping step is never inside a block: the same
   * distribution as drawing step by step (not the same draws).
   */
  stepsToEmit(tokens: number): number {
    const top = this.k + 1;
    let got = 0;
    let steps = 0;
    for (const size of BLOCK_STEPS) {
      const cdf = this.blockCdf(size);
      while (got + size * top < tokens) {
        got += size + upperIndex(cdf, this.prng.next());
        steps += size;
      }
    }
    for (; got < tokens; steps++) got += this.sample();
    return steps;
  }

  /** CDF of the tokens of `size` steps, minus `size` (index i: P(sum − size ≤ i)), built once per size. */
  private blockCdf(size: number): Float64Array {
    let cdf = this.blocks.get(size);
    if (cdf) return cdf;
    // One step emits 1 + j tokens, j accepted drafts: P(j) = p^j (1 − p) below k, p^k at k.
    const one = new Float64Array(this.k + 1);
    for (let j = 0; j <= this.k; j++)
      one[j] = (j === 0 ? 1 : this.at[j - 1]!) - (j < this.k ? this.at[j]! : 0);
    let pmf = Float64Array.of(1);
    for (let n = 0; n < size; n++) {
      const next = new Float64Array(pmf.length + this.k);
      for (let a = 0; a < pmf.length; a++)
        for (let j = 0; j <= this.k; j++) next[a + j]! += pmf[a]! * one[j]!;
      pmf = next;
    }
    cdf = new Float64Array(pmf.length);
    let acc = 0;
    for (let i = 0; i < pmf.length; i++) cdf[i] = acc += pmf[i]!;
    this.blocks.set(size, cdf);
    return cdf;
  }
  private readonly blocks = new Map<number, Float64Array>();
}
