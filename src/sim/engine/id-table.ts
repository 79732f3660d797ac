/**
 * Values by request id, for the per-request maps on a prediction's hot path: ids a closed loop makes
 * (`r<n>`, closed-loop.ts) go into an array by n, any other id (`sim serve`'s clients) into a map. A
 * string-keyed map was a tenth of a disaggregated point's time at thousands of users.
 */
export class IdTable<T> {
  private readonly byNumber: (T | undefined)[] = [];
  private readonly byId = new Map<string, T>();

  get(id: string): T | undefined {
    const n = requestNumber(id);
    return n >= 0 ? this.byNumber[n] : this.byId.get(id);
  }

  set(id: string, value: T): void {
    const n = requestNumber(id);
    if (n >= 0) this.byNumber[n] = value;
    else this.byId.set(id, value);
  }

  delete(id: string): void {
    const n = requestNumber(id);
    if (n >= 0) this.byNumber[n] = undefined;
    else this.byId.delete(id);
  }
}

/**
 * n of a request id `r<n>` (up to 9 digits, no leading zero but `r0`: every id a prediction loop makes), else −1.
 * The loops read their own ids with it too, so there is one reading of the form.
 */
export function requestNumber(id: string): number {
  const len = id.length;
  if (len < 2 || len > 10 || id.charCodeAt(0) !== 114) return -1;
  if (len > 2 && id.charCodeAt(1) === 48) return -1;
  let n = 0;
  for (let i = 1; i < len; i++) {
    const d = id.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}
