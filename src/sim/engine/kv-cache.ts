/**
 * Paged KV cache with prefix caching, as vLLM's block manager: fixed-size blocks, reference counts, a
 * hash → block map for computed full prompt blocks, and LRU eviction of cached blocks nobody holds.
 *
 * A block is in exactly one of three states: held (refcount > 0), free-cached (refcount 0, still holding a
 * hash: reusable by a prefix hit until evicted) or free (no hash). Free-cached blocks count as free
 * capacity: allocation takes plain free blocks first, then evicts the least recently released cached one.
 */

export const BLOCK_SIZE = 16;

/** What a KV event feed hears from a pool: a hash cached (a computed prompt block) and one evicted. */
export interface BlockEvents {
  stored(hash: string): void;
  removed(hash: string): void;
}

export class BlockPool {
  private readonly refs: Int32Array;
  private readonly hashOf = new Map<number, string>();
  private readonly cache = new Map<string, number>();
  /** Free-cached blocks in release order (Map iteration order = LRU first). */
  private readonly evictable = new Map<number, true>();
  /** Released blocks without a hash; blocks ≥ `untouched` have never been handed out (lazy free list). */
  private readonly free: number[] = [];
  private untouched = 0;
  private events: BlockEvents | null = null;

  /** onEvict: a cached block's hash as its block is reused (the host KV tier takes it). */
  constructor(
    readonly numBlocks: number,
    private readonly onEvict?: (hash: string) => void,
  ) {
    if (!Number.isInteger(numBlocks) || numBlocks < 1) {
      throw new RangeError(`KV cache needs at least one block, got ${numBlocks}`);
    }
    this.refs = new Int32Array(numBlocks);
  }

  /** Reports every hash cached from now on, and every one evicted (one listener; null stops it). */
  watch(events: BlockEvents | null): void {
    this.events = events;
  }

  /** Blocks an allocation could use now (free + free-cached). */
  numFree(): number {
    return this.free.length + (this.numBlocks - this.untouched) + this.evictable.size;
  }

  /** Fraction of blocks held by requests (vLLM's kv-cache usage: cached-but-free blocks count as free). */
  usage(): number {
    return 1 - this.numFree() / this.numBlocks;
  }

  /** Whether a computed block of this hash is in the cache (held or free-cached): what KV events report. */
  holds(hash: string): boolean {
    return this.cache.has(hash);
  }

  /** Leading hashes present in the cache, at most maxBlocks; no side effect. */
  lookup(hashes: readonly string[] | undefined, maxBlocks: number): number {
    if (!hashes) return 0;
    const n = Math.min(hashes.length, maxBlocks);
    let i = 0;
    while (i < n && this.cache.has(hashes[i]!)) i++;
    return i;
  }

  /** Of the first n cached blocks of `hashes`, how many are free-cached (acquiring them uses free capacity). */
  freeCachedAmong(hashes: readonly string[], n: number): number {
    let c = 0;
    for (let i = 0; i < n; i++) if (this.evictable.has(this.cache.get(hashes[i]!)!)) c++;
    return c;
  }

  /** Takes a reference on the cached blocks of the first n hashes (which lookup said are present). */
  acquireCached(hashes: readonly string[], n: number): number[] {
    const out: number[] = [];
    for (let i = 0; i < n; i++) {
      const b = this.cache.get(hashes[i]!)!;
      if (this.refs[b] === 0) this.evictable.delete(b);
      this.refs[b]! += 1;
      out.push(b);
    }
    return out;
  }

  /** n fresh blocks (evicting LRU free-cached blocks when needed), or null when there are not enough. */
  allocate(n: number): number[] | null {
    if (n > this.numFree()) return null;
    const out: number[] = [];
    for (let i = 0; i < n; i++) {
      let b = this.free.pop();
      if (b === undefined && this.untouched < this.numBlocks) b = this.untouched++;
      if (b === undefined) {
        b = this.evictable.keys().next().value as number;
        this.evictable.delete(b);
        const hash = this.hashOf.get(b)!;
        this.cache.delete(hash);
        this.hashOf.delete(b);
        this.onEvict?.(hash);
        this.events?.removed(hash);
      }
      this.refs[b] = 1;
      out.push(b);
    }
    return out;
  }

  /** Records that held block b holds the full, computed prompt block with this hash (first writer wins). */
  register(b: number, hash: string): void {
    if (this.hashOf.has(b) || this.cache.has(hash)) return;
    this.hashOf.set(b, hash);
    this.cache.set(hash, b);
    this.events?.stored(hash);
  }

  /** Drops one reference on each block; released tail blocks become LRU-first so prefixes outlive tails. */
  release(blocks: readonly number[]): void {
    for (let i = blocks.length - 1; i >= 0; i--) {
      const b = blocks[i]!;
      const r = this.refs[b]! - 1;
      this.refs[b] = r;
      if (r > 0) continue;
      if (this.hashOf.has(b)) this.evictable.set(b, true);
      else this.free.push(b);
    }
  }
}
