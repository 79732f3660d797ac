import { percentile } from './latency.ts';

/**
 * How steady a steady-method window was: its figures from the first and from the second half of its
 * completions, as |second / first − 1|. In a steady state both halves measure the same thing and the gaps
 * stay within a few percent. Users that start together can stay in step for many cycles, so a wave of
 * prefills and finishes goes round; then the halves disagree, and the prediction depends on where its window
 * falls. That is reported, not hidden (UNSTEADY, formatOutcome in rows.ts).
 */

export interface WindowHalves {
  /**
   * Output tokens per user-second of each half: its completions' output tokens over the sum of their E2E
   * latencies. By Little's law a closed loop's throughput is its users over the mean E2E, so this follows
   * the throughput without timing the half, whose edges fall wherever a completion happens to.
   */
  throughput: number;
  /** 1000 / median TPOT of each half's completions. */
  interactivity: number;
  ttftMedian: number;
}

/** One measured completion, in finish order (its TPOT is (E2E − TTFT) / (output − 1), as the window's). */
export interface Completion {
  outputTokens: number;
  ttftMs: number;
  e2eMs: number;
}

/**
 * Gaps above which a prediction is called unsteady: throughput and interactivity, median TTFT. A gap of 10 %
 * leaves the window's mean some 5 % from either half's; median TTFT moves more with the wave (queues come and
 * go), so it gets a wider one. On the fixture matrix 42 of the 1,221 predicted points pass one or more
 * (npm run bench:predict, simulator m3).
 */
export const UNSTEADY = { rate: 0.1, ttft: 0.5 } as const;

/** Fewer completions than this make halves too small to compare: null. */
const MIN_COMPLETIONS = 16;

export function windowHalves(done: readonly Completion[]): WindowHalves | null {
  if (done.length < MIN_COMPLETIONS) return null;
  const mid = done.length >> 1;
  const a = half(done, 0, mid);
  const b = half(done, mid, done.length);
  const gap = (x: number, y: number) => (x > 0 && Number.isFinite(x) ? Math.abs(y / x - 1) : 0);
  return {
    throughput: gap(a.rate, b.rate),
    interactivity: gap(a.intv, b.intv),
    ttftMedian: gap(a.ttft, b.ttft),
  };
}

/** The metrics over threshold, worded for one line; empty when steady. */
export function unsteadyParts(h: WindowHalves | null): string[] {
  if (!h) return [];
  const pct = (v: number) => `${(100 * v).toFixed(0)} %`;
  const parts: string[] = [];
  if (h.throughput > UNSTEADY.rate) parts.push(`throughput ${pct(h.throughput)}`);
  if (h.interactivity > UNSTEADY.rate) parts.push(`interactivity ${pct(h.interactivity)}`);
  if (h.ttftMedian > UNSTEADY.ttft) parts.push(`median TTFT ${pct(h.ttftMedian)}`);
  return parts;
}

function half(done: readonly Completion[], from: number, to: number) {
  let tokens = 0;
  let e2e = 0;
  const ttft = new Float64Array(to - from);
  const tpot: number[] = [];
  for (let i = from; i < to; i++) {
    const c = done[i]!;
    tokens += c.outputTokens;
    e2e += c.e2eMs;
    ttft[i - from] = c.ttftMs;
    if (c.outputTokens > 1) tpot.push((c.e2eMs - c.ttftMs) / (c.outputTokens - 1));
  }
  const tpotMedian = percentile(Float64Array.from(tpot).sort(), 50);
  return {
    rate: e2e > 0 ? tokens / e2e : 0,
    intv: tpotMedian > 0 ? 1000 / tpotMedian : 0,
    ttft: percentile(ttft.sort(), 50),
  };
}
