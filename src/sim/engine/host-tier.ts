/**
 * A host-memory (CPU DRAM) tier under the GPU prefix cache, as vLLM's KV offloading (`kv-offloading: dram`):
 * a full prompt block the GPU pool evicts is written to host memory instead of being lost, and a later
 * prefix hit there is copied back over the host link instead of recomputed. The tier is LRU by block hash.
 *
 * Simplifications, said here so no figure looks more exact than it is: the GPU→host copy is taken as free
 * (vLLM overlaps it with compute) but its bytes are counted; the host→GPU copy is serial with the step that
 * admits the request, so it lengthens that step (and the request's prefill) by bytes / bandwidth.
 */
import { BLOCK_SIZE } from './kv-cache.ts';

/** Host-link bandwidth per GPU when the catalog says nothing: PCIe Gen5 x16 moves ~64 GB/s, ~50 in practice. */
export const DEFAULT_HOST_KV_GBPS = 50;

export interface HostKvOptions {
  /** Capacity in blocks (of the engine's block size). */
  blocks: number;
  /** Copy time per token back to the GPU, ms (every rank copies its shard in parallel). */
  loadMsPerToken: number;
  /** KV bytes per token over all ranks (for the byte counters). */
  bytesPerToken: number;
}

export class HostTier {
  /** The tier's gauges, with the prompt tokens its engine looked up (`queries`) and found (`hits`). */
  gauges(queries: number, hits: number) {
    const perBlock = this.opts.bytesPerToken * BLOCK_SIZE;
    return {
      capacityTokens: this.opts.blocks * BLOCK_SIZE,
      usedTokens: this.usedBlocks * BLOCK_SIZE,
      queries,
      hits,
      bytesGpuToCpu: this.stats.storedBlocks * perBlock,
      bytesCpuToGpu: this.stats.loadedBlocks * perBlock,
      secondsCpuToGpu: this.stats.loadMs / 1000,
    };
  }

  /** Hashes held, in use order (Map iteration order = LRU first). */
  private readonly lru = new Map<string, true>();
  readonly stats = { storedBlocks: 0, loadedBlocks: 0, loadMs: 0 };

  constructor(readonly opts: HostKvOptions) {
    if (!Number.isInteger(opts.blocks) || opts.blocks < 1) {
      throw new RangeError(`the host KV tier needs at least one block, got ${opts.blocks}`);
    }
  }

  get usedBlocks(): number {
    return this.lru.size;
  }

  /** Takes a block the GPU pool evicted; the least recently used one goes when the tier is full. */
  store(hash: string): void {
    if (this.lru.delete(hash)) {
      this.lru.set(hash, true);
      return;
    }
    if (this.lru.size >= this.opts.blocks) this.lru.delete(this.lru.keys().next().value as string);
    this.lru.set(hash, true);
    this.stats.storedBlocks++;
  }

  /** How many of hashes[from..from+max) are held, leading run; no side effect. */
  lookup(hashes: readonly string[], from: number, max: number): number {
    let i = 0;
    while (i < max && from + i < hashes.length && this.lru.has(hashes[from + i]!)) i++;
    return i;
  }

  /** Copies n blocks of blockSize tokens back (they stay in the tier too); returns the copy time, ms. */
  load(hashes: readonly string[], from: number, n: number, blockSize: number): number {
    for (let i = from; i < from + n; i++) {
      const h = hashes[i]!;
      this.lru.delete(h);
      this.lru.set(h, true);
    }
    const ms = n * blockSize * this.opts.loadMsPerToken;
    this.stats.loadedBlocks += n;
    this.stats.loadMs += ms;
    return ms;
  }
}
