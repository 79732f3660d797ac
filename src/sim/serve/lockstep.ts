import type { LockstepTag } from '../../schema/sim-protocol.ts';

/**
 * The engine's side of lockstep (schema/sim-protocol.ts): per client phase, how many requests the client
 * still owes — fewer than `conc` in flight while fewer than `total` have arrived — and a hold on the
 * simulation's clock while any are owed, so the client's turnaround between one request and the next
 * costs no simulated time.
 */

export interface HoldableClock {
  hold(): void;
  release(): void;
  virtualNow(): number;
}

export interface LockstepStats {
  /** Times the clock was held for owed requests, and the wall ms it stayed held. */
  waits: number;
  waitMs: number;
  /** Phases given up on because their requests did not come in time. */
  abandoned: number;
}

interface PhaseState {
  conc: number;
  total: number;
  received: number;
  active: number;
  /** Engine ms when the phase's first request arrived: open-loop due times count from here. */
  originMs: number;
}

/** Phases that ended or were abandoned are remembered this long, so late stragglers don't reopen them. */
const FORGET_AFTER = 256;

export class LockstepTracker {
  private readonly phases = new Map<string, PhaseState>();
  private readonly ended: string[] = [];
  private holding = false;
  private heldSince = 0;
  readonly stats: LockstepStats = { waits: 0, waitMs: 0, abandoned: 0 };

  constructor(
    private readonly clock: HoldableClock,
    private readonly wallNow: () => number = () => performance.now(),
  ) {}

  /** Requests owed to the engine over every phase. */
  owed(): number {
    let owed = 0;
    for (const p of this.phases.values())
      owed += Math.max(0, Math.min(p.conc - p.active, p.total - p.received));
    return owed;
  }

  /**
   * A request of the phase arrives: returns the phase's origin (engine ms), or null for a phase that has
   * ended or been abandoned (the request is then served outside lockstep).
   */
  arrive(tag: LockstepTag): number | null {
    if (this.ended.includes(tag.phase)) return null;
    let p = this.phases.get(tag.phase);
    if (!p) {
      p = { conc: tag.conc, total: tag.total, received: 0, active: 0, originMs: this.clock.virtualNow() };
      this.phases.set(tag.phase, p);
    }
    p.received = Math.min(p.total, p.received + 1);
    p.active++;
    this.update();
    return p.originMs;
  }

  /** The request left the engine: finished, failed, refused or abandoned by its client. */
  leave(tag: LockstepTag): void {
    const p = this.phases.get(tag.phase);
    if (!p) return;
    p.active = Math.max(0, p.active - 1);
    if (p.received >= p.total && p.active === 0) this.end(tag.phase);
    this.update();
  }

  /** The clock waited too long: stop waiting for every phase that owes requests. */
  abandonOwing(): string[] {
    const gone: string[] = [];
    for (const [id, p] of this.phases)
      if (Math.min(p.conc - p.active, p.total - p.received) > 0) {
        gone.push(id);
        this.end(id);
        this.stats.abandoned++;
      }
    this.update();
    return gone;
  }

  private end(id: string): void {
    this.phases.delete(id);
    this.ended.push(id);
    if (this.ended.length > FORGET_AFTER) this.ended.shift();
  }

  private update(): void {
    const owing = this.owed() > 0;
    if (owing && !this.holding) {
      this.holding = true;
      this.heldSince = this.wallNow();
      this.stats.waits++;
      this.clock.hold();
    } else if (!owing && this.holding) {
      this.holding = false;
      this.stats.waitMs += this.wallNow() - this.heldSince;
      this.clock.release();
    }
  }
}
