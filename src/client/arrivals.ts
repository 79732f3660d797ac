/**
 * Arrival offsets (ms from the start of a phase) for a finite request rate: inter-arrival times are
 * Gamma(shape = burstiness, scale = 1 / (rate × burstiness)), which is a Poisson process at
 * burstiness 1 (client-metrics-spec §1.3). Rate inf means closed loop: no arrival times at all.
 */
export function arrivalOffsetsMs(
  count: number,
  rate: number,
  burstiness: number,
  uniform: () => number,
): Float64Array {
  const out = new Float64Array(count);
  const scale = 1 / (rate * burstiness);
  let t = 0;
  for (let i = 0; i < count; i++) {
    // The first request goes at once, as the reference's generator yields before its first sleep.
    out[i] = t * 1000;
    t += gamma(burstiness, uniform) * scale;
  }
  return out;
}

function normal(uniform: () => number): number {
  // Box-Muller; 1 - u keeps the log argument in (0, 1].
  const u = 1 - uniform();
  const v = uniform();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** Marsaglia–Tsang sampler for Gamma(shape, 1). */
function gamma(shape: number, uniform: () => number): number {
  if (shape < 1) return gamma(shape + 1, uniform) * (1 - uniform()) ** (1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    const x = normal(uniform);
    const v = (1 + c * x) ** 3;
    if (v <= 0) continue;
    const u = 1 - uniform();
    if (Math.log(u) < 0.5 * x * x + d - d * v + d * Math.log(v)) return d * v;
  }
}
