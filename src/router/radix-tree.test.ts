import { describe, expect, it } from 'vitest';
import { ApproxTree, charCount } from './radix-tree.ts';

describe('approximate radix tree', () => {
  it('matches the longest routed prefix and names the tenant that routed it most recently', () => {
    const t = new ApproxTree();
    expect(t.match('hello')).toEqual({ matchedChars: 0, inputChars: 5, tenant: null });
    t.insert('hello world', 'A');
    t.insert('hello there', 'B');
    // "hello " is shared (both own it, B later); "world" is A's, "there" B's
    expect(t.match('hello world!')).toEqual({ matchedChars: 11, inputChars: 12, tenant: 'A' });
    expect(t.match('hello wo')).toEqual({ matchedChars: 8, inputChars: 8, tenant: 'A' });
    expect(t.match('hello t')).toEqual({ matchedChars: 7, inputChars: 7, tenant: 'B' });
    expect(t.match('hello ')).toEqual({ matchedChars: 6, inputChars: 6, tenant: 'B' });
    expect(t.match('help')).toEqual({ matchedChars: 3, inputChars: 4, tenant: 'B' });
    t.insert('hello', 'A');
    expect(t.match('hello ').tenant).toBe('B');
    expect(t.match('hell').tenant).toBe('A');
    expect(t.matchTenant('hello there', 'A')).toBe(6);
    expect(t.matchTenant('hello there', 'B')).toBe(11);
  });

  it("counts each tenant's characters once per node it owns", () => {
    const t = new ApproxTree();
    t.insert('abcdef', 'A');
    t.insert('abcxyz', 'A'); // split: abc + def + xyz
    t.insert('abcdef', 'A'); // nothing new
    t.insert('abq', 'B');
    expect(t.size('A')).toBe(9);
    expect(t.size('B')).toBe(3);
  });

  it('counts code points, and never splits a surrogate pair', () => {
    const t = new ApproxTree();
    expect(charCount('a😀b')).toBe(3);
    t.insert('a😀x', 'A');
    t.insert('a😁y', 'B'); // same high surrogate, different low: the split is after "a"
    expect(t.size('A')).toBe(3);
    expect(t.size('B')).toBe(3);
    expect(t.match('a😀')).toEqual({ matchedChars: 2, inputChars: 2, tenant: 'A' });
    expect(t.match('a😂')).toEqual({ matchedChars: 1, inputChars: 2, tenant: 'B' });
  });
});

describe('LRU eviction', () => {
  it("removes a tenant's least recently used leaves until it is within the size", () => {
    const t = new ApproxTree();
    t.insert('aaaa', 'A');
    t.insert('bbbb', 'A');
    t.insert('cccc', 'A');
    t.insert('aaaa', 'A'); // touched again: bbbb is now the oldest
    expect(t.size('A')).toBe(12);
    t.evict(8);
    expect(t.size('A')).toBe(8);
    expect(t.matchTenant('bbbb', 'A')).toBe(0);
    expect(t.matchTenant('aaaa', 'A')).toBe(4);
    t.evict(5);
    expect(t.size('A')).toBe(4);
    expect(t.matchTenant('cccc', 'A')).toBe(0);
    expect(t.matchTenant('aaaa', 'A')).toBe(4);
    t.evict(4);
    expect(t.size('A')).toBe(4);
  });

  it('a parent becomes a leaf once its children are gone', () => {
    const t = new ApproxTree();
    t.insert('abcdef', 'A'); // tick 1
    t.insert('abcxyz', 'A'); // tick 2: abc(2) → def(1), xyz(2)
    t.evict(6); // def goes first
    expect(t.size('A')).toBe(6);
    expect(t.matchTenant('abcdef', 'A')).toBe(3);
    expect(t.matchTenant('abcxyz', 'A')).toBe(6);
    t.evict(3); // xyz; abc stays (3 ≤ 3)
    expect(t.size('A')).toBe(3);
    t.evict(0); // abc is A's leaf now
    expect(t.size('A')).toBe(0);
    expect(t.match('abc')).toEqual({ matchedChars: 0, inputChars: 3, tenant: 'A' });
  });

  it('every tenant is bound by the same size; a node another tenant owns stays', () => {
    const t = new ApproxTree();
    t.insert('abcdef', 'A');
    t.insert('ab', 'B'); // split: ab (A, B) → cdef (A)
    expect([t.size('A'), t.size('B')]).toEqual([6, 2]);
    t.evict(2);
    expect([t.size('A'), t.size('B')]).toEqual([2, 2]);
    expect(t.match('abcdef')).toEqual({ matchedChars: 2, inputChars: 6, tenant: 'B' });
    expect(t.matchTenant('abcdef', 'A')).toBe(2);
    t.evict(1); // both lose "ab", and the node with them
    expect([t.size('A'), t.size('B')]).toEqual([0, 0]);
    expect(t.match('ab').matchedChars).toBe(0);
  });

  it('bounds every tenant after each pass', () => {
    const t = new ApproxTree();
    for (let i = 0; i < 200; i++)
      t.insert(`prefix-${i % 7}-${'x'.repeat(i % 13)}-${i}`, i % 3 === 0 ? 'A' : 'B');
    t.evict(50);
    for (const tenant of ['A', 'B']) {
      expect(t.size(tenant)).toBeLessThanOrEqual(50);
      expect(t.size(tenant)).toBeGreaterThan(0);
    }
    // the most recent insert of each tenant survives
    expect(t.matchTenant(`prefix-${199 % 7}-${'x'.repeat(199 % 13)}-199`, 'B')).toBeGreaterThan(0);
  });
});
