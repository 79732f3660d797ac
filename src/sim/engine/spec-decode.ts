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

export function validateSpec(spec: SpecDecodingConfig): void {
  const { draftTokens: k, acceptanceLength: al } = spec;
  if (!Number.isInteger(k) || k < 1)
    throw new SpecConfigError(`draft tokens must be an integer >= 1, got ${k}`);
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

/** Draws emitted-token counts per verification step, deterministically from the given PRNG. */
export class AcceptanceSampler {
  private readonly p: number;
  private readonly k: number;

  constructor(
    spec: SpecDecodingConfig,
    private readonly prng: Prng,
  ) {
    validateSpec(spec);
    this.k = spec.draftTokens;
    this.p = acceptanceProbability(spec.draftTokens, spec.acceptanceLength);
  }

  /** Tokens emitted by one verification step with `drafted` drafts (≤ k): 1 + accepted drafts. */
  sample(drafted = this.k): number {
    let n = 1;
    while (n <= drafted && this.prng.next() < this.p) n++;
    return n;
  }
}
