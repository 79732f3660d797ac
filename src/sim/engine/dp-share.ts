import { Prng } from './prng.ts';

/**
 * The busiest DP-attention rank's share of a batch's sequences, relative to perfect balance: the engines
 * assign sequences to ranks without looking at the others' loads, so one rank holds more than seqs/ranks.
 */

/** Trials of the seeded DP-rank assignment behind `busiestShare` (up to DP_SIMULATED_SEQS sequences). */
const DP_TRIALS = 8;
/** Past this many sequences the normal approximation of the multinomial maximum replaces the trials. */
const DP_SIMULATED_SEQS = 1024;

const shares = new Map<number, number>();

/** See PerfModel.dpImbalance. */
export function busiestShare(seqs: number, ranks: number): number {
  const mean = seqs / ranks;
  if (seqs > DP_SIMULATED_SEQS) return 1 + expectedMaxOfNormals(ranks) * Math.sqrt((1 - 1 / ranks) / mean);
  const key = seqs * 4096 + ranks;
  let share = shares.get(key);
  if (share === undefined) {
    const rng = new Prng(key);
    const counts = new Int32Array(ranks);
    let sum = 0;
    for (let t = 0; t < DP_TRIALS; t++) {
      counts.fill(0);
      let max = 0;
      for (let i = 0; i < seqs; i++) {
        const r = Math.floor(rng.next() * ranks);
        const c = ++counts[r]!;
        if (c > max) max = c;
      }
      sum += max;
    }
    share = sum / DP_TRIALS / mean;
    shares.set(key, share);
  }
  return share;
}

const maxOfNormals = new Map<number, number>();

/** Φ, the standard normal CDF (Abramowitz and Stegun 7.1.26 for erf: error below 1.5e-7). */
function normalCdf(x: number): number {
  const z = Math.abs(x) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * z);
  const erf =
    1 -
    ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) *
      t *
      Math.exp(-z * z);
  return x >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

/** E[max of n independent standard normals] = ∫ (1 − Φ(x)^n) dx over x > 0 minus ∫ Φ(x)^n over x < 0. */
export function expectedMaxOfNormals(n: number): number {
  let v = maxOfNormals.get(n);
  if (v === undefined) {
    const h = 1e-3;
    v = 0;
    for (let x = h / 2; x < 10; x += h) v += (1 - normalCdf(x) ** n - normalCdf(-x) ** n) * h;
    maxOfNormals.set(n, v);
  }
  return v;
}
