/**
 * A binary min-heap: the replay scheduler's pending timers, so that picking the next call costs
 * O(log n) instead of a scan of every conversation of every lane (at 256 lanes the scan was most of the
 * client's CPU). Entries are never updated in place: a changed timer is pushed again and the stale entry
 * is dropped when it reaches the top.
 */
export class DueQueue<T> {
  private readonly items: T[] = [];

  constructor(private readonly before: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.items.length;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  push(item: T): void {
    const a = this.items;
    a.push(item);
    let i = a.length - 1;
    while (i > 0) {
      const up = (i - 1) >> 1;
      if (!this.before(item, a[up] as T)) break;
      a[i] = a[up] as T;
      i = up;
    }
    a[i] = item;
  }

  pop(): T | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length === 0 || last === undefined) return top;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= a.length) break;
      const r = l + 1;
      const c = r < a.length && this.before(a[r] as T, a[l] as T) ? r : l;
      if (!this.before(a[c] as T, last)) break;
      a[i] = a[c] as T;
      i = c;
    }
    a[i] = last;
    return top;
  }

  clear(): void {
    this.items.length = 0;
  }
}
