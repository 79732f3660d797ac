/** Exact decimal arithmetic on the shortest round-trip form of a float, as Python's Decimal(str(x)). */

/** `x` as an exact fraction [numerator, denominator] of its shortest decimal string. */
export function decimalFraction(x: number): [bigint, bigint] {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/.exec(String(x));
  if (!m) throw new RangeError(`${x} is not a finite decimal`);
  const digits = `${m[2]}${m[3] ?? ''}`;
  const exp = Number(m[4] ?? 0) - (m[3]?.length ?? 0);
  const num = BigInt(digits) * (m[1] ? -1n : 1n);
  return exp >= 0 ? [num * 10n ** BigInt(exp), 1n] : [num, 10n ** BigInt(-exp)];
}

/** Rounds half away from zero to `places` decimals and prints exactly that many: 0.7225 → "0.723". */
export function roundHalfUp(x: number, places: number): string {
  const [num, den] = decimalFraction(x);
  const scale = 10n ** BigInt(places);
  const neg = num < 0n;
  const abs = neg ? -num : num;
  const scaled = (abs * scale * 2n + den) / (2n * den);
  const digits = scaled.toString().padStart(places + 1, '0');
  const text = places > 0 ? `${digits.slice(0, -places)}.${digits.slice(-places)}` : digits;
  return neg && scaled !== 0n ? `-${text}` : text;
}
