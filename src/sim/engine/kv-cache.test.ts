import { describe, expect, it } from 'vitest';
import { BlockPool } from './kv-cache.ts';

describe('BlockPool', () => {
  it('hands out blocks until empty and takes them back', () => {
    const pool = new BlockPool(4);
    const a = pool.allocate(3)!;
    expect(a).toHaveLength(3);
    expect(pool.numFree()).toBe(1);
    expect(pool.allocate(2)).toBeNull();
    expect(pool.usage()).toBeCloseTo(0.75);
    pool.release(a);
    expect(pool.numFree()).toBe(4);
    expect(pool.usage()).toBe(0);
  });

  it('finds registered prefixes, shares them by reference and keeps them while held', () => {
    const pool = new BlockPool(4);
    const [b0, b1] = pool.allocate(2)!;
    pool.register(b0!, 'h0');
    pool.register(b1!, 'h1');
    expect(pool.lookup(['h0', 'h1', 'h2'], 3)).toBe(2);
    expect(pool.lookup(['h0', 'h1'], 1)).toBe(1);
    expect(pool.lookup(['x', 'h1'], 2)).toBe(0);
    const shared = pool.acquireCached(['h0', 'h1'], 2);
    expect(shared).toEqual([b0, b1]);
    pool.release([b0!, b1!]);
    // Still held by the second reference: cannot be evicted.
    expect(pool.allocate(3)).toBeNull();
    expect(pool.lookup(['h0', 'h1'], 2)).toBe(2);
  });

  it('evicts free cached blocks least recently released first, the tail of a request before its head', () => {
    const pool = new BlockPool(4);
    const first = pool.allocate(2)!;
    pool.register(first[0]!, 'a0');
    pool.register(first[1]!, 'a1');
    const second = pool.allocate(2)!;
    pool.register(second[0]!, 'b0');
    pool.register(second[1]!, 'b1');
    pool.release(first);
    pool.release(second);
    expect(pool.numFree()).toBe(4);
    expect(pool.usage()).toBe(0);
    pool.allocate(1);
    expect(pool.lookup(['a0', 'a1'], 2)).toBe(1); // a1 (tail of the first release) went first
    pool.allocate(1);
    expect(pool.lookup(['a0'], 1)).toBe(0);
    expect(pool.lookup(['b0', 'b1'], 2)).toBe(2);
  });

  it('counts free cached blocks that a hit would take', () => {
    const pool = new BlockPool(2);
    const [b] = pool.allocate(1)!;
    pool.register(b!, 'h');
    pool.release([b!]);
    expect(pool.freeCachedAmong(['h'], 1)).toBe(1);
    pool.acquireCached(['h'], 1);
    expect(pool.numFree()).toBe(1);
  });
});
