/**
 * A memo of numbers keyed by a small non-negative integer count and a slot (stride slots per count), in one
 * growing typed array: the perf model's terms that depend on a step's token or sequence count alone (pows,
 * roots and logs), asked for the same counts over and over by a prediction. Other keys are not kept; NaN
 * marks a value not kept.
 */
export class CountMemo {
  private values = new Float64Array(0);

  constructor(
    private readonly stride: number,
    /** The largest count kept (stride × 8 bytes each at most). */
    private readonly maxCount = 1 << 17,
  ) {}

  /** The value kept for (count, slot), or NaN. */
  at(count: number, slot: number): number {
    return this.values[count * this.stride + slot] ?? Number.NaN;
  }

  /** Keeps a value for (count, slot) where the count is one it keeps, and returns it. */
  put(count: number, slot: number, value: number): number {
    if (!Number.isInteger(count) || count < 0 || count > this.maxCount) return value;
    const i = count * this.stride + slot;
    if (i >= this.values.length) {
      const grown = new Float64Array(Math.max(2 * this.values.length, (count + 1) * this.stride));
      grown.fill(Number.NaN).set(this.values);
      this.values = grown;
    }
    this.values[i] = value;
    return value;
  }
}
