import { type Paced, Pacer, type PacerOptions } from './pacer.ts';
import type { StepEngine } from './types.ts';

/**
 * Several engines paced on one clock (pacer.ts) behind one endpoint: what an aggregated pool and a
 * prefill/decode cluster share. Subclasses name their engines and wake the pacer when work arrives.
 */
export abstract class PacedEngines implements Paced {
  protected pacer: Pacer | null = null;
  private wakers: (() => void)[] = [];

  /** Every engine of the pool, in a fixed order. */
  protected abstract workers(): readonly StepEngine[];

  /** Tells a pacer waiting for work that some arrived. */
  protected wake(): void {
    if (this.wakers.length > 0) {
      const w = this.wakers;
      this.wakers = [];
      for (const f of w) f();
    }
  }

  /** Paces every engine on one clock; timed events (a KV transfer) go through `this.pacer`. */
  async runRealtime(options: PacerOptions, pacer = new Pacer(options)): Promise<void> {
    this.pacer = pacer;
    try {
      await pacer.run(this);
    } finally {
      this.pacer = null;
    }
  }

  start(): void {
    for (const e of this.workers()) e.start();
  }

  nextDueMs(): number | null {
    let due: number | null = null;
    for (const e of this.workers()) {
      const d = e.nextDueMs();
      if (d !== null && (due === null || d < due)) due = d;
    }
    return due;
  }

  fire(ms: number): void {
    for (const e of this.workers()) e.fire(ms);
  }

  waitForWork(): Promise<void> {
    return new Promise((resolve) => this.wakers.push(resolve));
  }

  attachClock(clock: (() => number) | null): void {
    for (const e of this.workers()) e.attachClock(clock);
  }
}
