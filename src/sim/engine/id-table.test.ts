import { describe, expect, it } from 'vitest';
import { IdTable } from './id-table.ts';

describe('IdTable', () => {
  it('keeps closed-loop ids and any other id apart, as a map would', () => {
    const t = new IdTable<number>();
    const ids = ['r0', 'r7', 'r123456789', 'r01', 'r', 'x5', 'r1234567890', 'r-1', 'chatcmpl-abc', '7'];
    for (const [i, id] of ids.entries()) t.set(id, i);
    for (const [i, id] of ids.entries()) expect(t.get(id)).toBe(i);
    // 'r01' is not 'r1', and deleting one id leaves the others.
    expect(t.get('r1')).toBeUndefined();
    t.delete('r7');
    t.delete('x5');
    expect(t.get('r7')).toBeUndefined();
    expect(t.get('x5')).toBeUndefined();
    expect(t.get('r0')).toBe(0);
    expect(t.get('chatcmpl-abc')).toBe(8);
  });
});
