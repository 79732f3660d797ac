import type { AgenticQps, AgenticThroughput } from '../../schema/agentic-metrics.ts';
import type { AgenticMeasure } from './records.ts';
import { agenticStats } from './stats.ts';

/**
 * Token throughput over the kept records' own span (first start to last end, not the configured
 * duration), and per GPU over every allocated GPU: the reference divides input, output and total alike
 * by the total GPU count, disaggregated runs included (client-metrics-spec §4.4, §11).
 */
export function throughputOf(m: readonly AgenticMeasure[], gpus: number | null): AgenticThroughput | null {
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  let input = 0;
  let output = 0;
  for (const x of m) {
    if (x.startMs < first) first = x.startMs;
    if (x.endMs !== null && x.endMs > last) last = x.endMs;
    input += x.isl;
    output += x.osl;
  }
  const durationS = (last - first) / 1000;
  if (!(Number.isFinite(durationS) && durationS > 0)) return null;
  const inputTokensPerS = input / durationS;
  const outputTokensPerS = output / durationS;
  const totalTokensPerS = (input + output) / durationS;
  const per = (v: number) => (gpus !== null && gpus > 0 ? v / gpus : null);
  return {
    durationS,
    inputTokensPerS,
    outputTokensPerS,
    totalTokensPerS,
    gpus,
    perGpu: { total: per(totalTokensPerS), output: per(outputTokensPerS), input: per(inputTokensPerS) },
  };
}

/**
 * Completions per second: from the first completion, whole 1-second windows `[start, start+1)` while
 * `start + 1 ≤ last completion` (a final partial window is not counted). Less than one whole second:
 * no windows, and the mean is completions / span. Fewer than two completions or no span: null.
 */
export function qpsOf(endsMs: readonly number[]): AgenticQps | null {
  if (endsMs.length < 2) return null;
  const ends = endsMs.map((v) => v / 1000).sort((a, b) => a - b);
  const firstEnd = ends[0]!;
  const lastEnd = ends[ends.length - 1]!;
  const span = lastEnd - firstEnd;
  if (!(span > 0)) return null;
  const counts: number[] = [];
  let i = 0;
  // Stepping by adding 1 (not firstEnd + k) follows the reference's loop to the last bit.
  for (let start = firstEnd; start + 1 <= lastEnd; start += 1) {
    while (i < ends.length && ends[i]! < start) i++;
    let n = 0;
    while (i + n < ends.length && ends[i + n]! < start + 1) n++;
    counts.push(n);
    i += n;
  }
  if (counts.length === 0)
    return {
      windowSeconds: 1,
      samples: 0,
      mean: ends.length / span,
      p50: null,
      p75: null,
      p90: null,
      p95: null,
      std: null,
    };
  const s = agenticStats(counts);
  return {
    windowSeconds: 1,
    samples: counts.length,
    mean: s.mean!,
    p50: s.p50,
    p75: s.p75,
    p90: s.p90,
    p95: s.p95,
    std: s.std,
  };
}
