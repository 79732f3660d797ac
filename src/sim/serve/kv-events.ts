import { KV_EVENTS_KEPT, type KvEvent } from '../../schema/kv-blocks.ts';
import type { BlockEvents } from '../engine/kv-cache.ts';

/**
 * A server's KV event feed (`GET /infx/kv-events`): the hashes its engines cache and evict, as one
 * backend's. A hash counts as held while any engine holds it, so `stored` comes with the first engine to
 * cache it and `removed` with the last to evict it. The newest `kept` events stay in a ring; a consumer
 * further behind is told to resynchronize.
 */
export class KvEventFeed {
  private readonly holders = new Map<string, number>();
  private readonly ring: (KvEvent | undefined)[];
  /** The sequence number of the next event. */
  private nextSeq = 1;

  constructor(private readonly kept = KV_EVENTS_KEPT) {
    this.ring = new Array(kept);
  }

  /** The listener for one engine's pool. */
  readonly listener: BlockEvents = {
    stored: (hash) => {
      const n = this.holders.get(hash) ?? 0;
      this.holders.set(hash, n + 1);
      if (n === 0) this.push('stored', hash);
    },
    removed: (hash) => {
      const n = this.holders.get(hash) ?? 0;
      if (n > 1) this.holders.set(hash, n - 1);
      else if (n === 1) {
        this.holders.delete(hash);
        this.push('removed', hash);
      }
    },
  };

  private push(kind: KvEvent['kind'], hash: string): void {
    const seq = this.nextSeq++;
    this.ring[seq % this.kept] = { seq, kind, hash };
  }

  get next(): number {
    return this.nextSeq;
  }

  /**
   * Up to `limit` events after `after`, oldest first. Reset: some of them are no longer kept, or `after` is
   * ahead of this feed (the server restarted since the consumer's last answer).
   */
  since(after: number, limit: number): { events: KvEvent[]; reset: boolean } {
    const oldest = Math.max(1, this.nextSeq - this.kept);
    const reset = after + 1 < oldest || after >= this.nextSeq;
    const from = Math.max(after + 1, oldest);
    const to = Math.min(this.nextSeq, from + limit);
    const events: KvEvent[] = [];
    for (let s = from; s < to; s++) events.push(this.ring[s % this.kept] as KvEvent);
    return { events, reset };
  }
}
