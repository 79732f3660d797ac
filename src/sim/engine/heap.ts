/**
 * A binary min-heap of items ordered by (key, tie): the fast engine's finish and threshold events, and the
 * cluster's KV transfers (ties broken by insertion order, as a linear scan for the first minimum would).
 */
export class MinHeap<T> {
  private readonly keys: number[] = [];
  private readonly ties: number[] = [];
  private readonly items: T[] = [];
  /** A number carried with each item (the fast engine's generation check). */
  private readonly tags: number[] = [];

  get size(): number {
    return this.items.length;
  }

  /** The smallest key, or +Infinity when empty. */
  topKey(): number {
    return this.items.length > 0 ? this.keys[0]! : Number.POSITIVE_INFINITY;
  }

  top(): T | undefined {
    return this.items[0];
  }

  /** The tag pushed with the top item (0 when empty). */
  topTag(): number {
    return this.tags[0] ?? 0;
  }

  push(key: number, tie: number, item: T, tag = 0): void {
    const { keys, ties, items, tags } = this;
    let i = items.length;
    keys.push(key);
    ties.push(tie);
    items.push(item);
    tags.push(tag);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (keys[p]! < key || (keys[p] === key && ties[p]! <= tie)) break;
      keys[i] = keys[p]!;
      ties[i] = ties[p]!;
      items[i] = items[p]!;
      tags[i] = tags[p]!;
      i = p;
    }
    keys[i] = key;
    ties[i] = tie;
    items[i] = item;
    tags[i] = tag;
  }

  pop(): T | undefined {
    const { keys, ties, items, tags } = this;
    const n = items.length;
    if (n === 0) return undefined;
    const out = items[0];
    const key = keys.pop()!;
    const tie = ties.pop()!;
    const item = items.pop()!;
    const tag = tags.pop()!;
    if (n > 1) {
      const m = n - 1;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= m) break;
        const r = l + 1;
        const c = r < m && (keys[r]! < keys[l]! || (keys[r] === keys[l] && ties[r]! < ties[l]!)) ? r : l;
        if (key < keys[c]! || (key === keys[c] && tie <= ties[c]!)) break;
        keys[i] = keys[c]!;
        ties[i] = ties[c]!;
        items[i] = items[c]!;
        tags[i] = tags[c]!;
        i = c;
      }
      keys[i] = key;
      ties[i] = tie;
      items[i] = item;
      tags[i] = tag;
    }
    return out;
  }
}
