import { describe, expect, it } from 'vitest';
import { KvEventFeed } from './kv-events.ts';

describe('KvEventFeed', () => {
  it('says stored with the first engine to cache a hash and removed with the last to evict it', () => {
    const f = new KvEventFeed(16);
    f.listener.stored('a');
    f.listener.stored('a');
    f.listener.removed('a');
    expect(f.since(0, 10).events.map((e) => [e.seq, e.kind, e.hash])).toEqual([[1, 'stored', 'a']]);
    f.listener.removed('a');
    f.listener.removed('a');
    expect(f.since(0, 10).events.map((e) => [e.kind, e.hash])).toEqual([
      ['stored', 'a'],
      ['removed', 'a'],
    ]);
    expect(f.next).toBe(3);
  });

  it('keeps the newest events in its ring and says reset to a consumer further behind or ahead', () => {
    const f = new KvEventFeed(4);
    for (let i = 0; i < 10; i++) f.listener.stored(`h${i}`);
    // Events 7 to 10 are kept.
    expect(f.since(6, 100)).toEqual({
      reset: false,
      events: [7, 8, 9, 10].map((seq) => ({ seq, kind: 'stored', hash: `h${seq - 1}` })),
    });
    const behind = f.since(2, 100);
    expect(behind.reset).toBe(true);
    expect(behind.events.map((e) => e.seq)).toEqual([7, 8, 9, 10]);
    expect(f.since(10, 100)).toEqual({ reset: false, events: [] });
    expect(f.since(11, 100).reset).toBe(true);
    expect(f.since(6, 2).events.map((e) => e.seq)).toEqual([7, 8]);
  });
});
