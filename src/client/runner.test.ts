import { describe, expect, it } from 'vitest';
import { benchmarkRun } from '../../test/support/phase-run.ts';
import { DONE, type DriverRequest, type PhaseDriver, WAIT } from '../workload/driver.ts';
import { monotonicMs } from './clock.ts';
import { runPhase } from './runner.ts';
import { newStreamState } from './stream-reader.ts';
import type { Outcome, Transport } from './transport-types.ts';

/**
 * The load loop's due times against a burst of socket reads. The event loop runs timers only after the
 * I/O callbacks it is handling, so a request due in the middle of a burst must go out from the read hook,
 * between two reads. The burst here is a chain of reads with microtask checkpoints between them (as Node
 * runs them) and no turn of the event loop: a timer alone cannot fire before the burst ends.
 */

const READS = 20;

/** A transport whose reads are driven by the test; each send notes how many reads had been handled. */
function burstTransport() {
  let hook: ((t: number) => void) | null = null;
  let reads = 0;
  const sentAfterReads: number[] = [];
  const transport: Transport = {
    send(): Promise<Outcome> {
      sentAfterReads.push(reads);
      const t = monotonicMs();
      return Promise.resolve({
        sentMs: t,
        firstByteMs: t,
        doneMs: t,
        stream: newStreamState(),
        error: null,
        cancelled: false,
      });
    },
    onRead: (h) => {
      hook = h;
    },
    close() {},
  };
  /** READS reads of about 1 ms of work each, in one macrotask. */
  const burst = async () => {
    for (let i = 0; i < READS; i++) {
      const until = monotonicMs() + 1;
      while (monotonicMs() < until);
      reads++;
      hook?.(monotonicMs());
      await null;
    }
  };
  return { transport, burst, sentAfterReads, hooked: () => hook !== null };
}

/**
 * One request due `dueInMs` after the driver is first asked (so a stall before the phase starts cannot make
 * it due at once); WAIT, naming that time, until then.
 */
function onceDue(dueInMs: number): PhaseDriver {
  let state: 'waiting' | 'sent' | 'done' = 'waiting';
  let dueAt: number | null = null;
  const driver: PhaseDriver = {
    next() {
      if (state !== 'waiting') return state === 'sent' ? WAIT : DONE;
      dueAt ??= monotonicMs() + dueInMs;
      if (monotonicMs() < dueAt) return WAIT;
      state = 'sent';
      const req: DriverRequest = {
        index: 0,
        promptIndex: 0,
        body: Buffer.from('{}'),
        maxTokens: 1,
        inputTokens: { target: 1, client: 1 },
        headers: null,
        arrivalOffsetMs: null,
        dueAtMs: dueAt,
      };
      return req;
    },
    wakeAtMs: () => (state === 'waiting' ? dueAt : null),
    complete() {
      state = 'done';
    },
  };
  return driver;
}

describe('runPhase: a request due during a burst of reads', () => {
  it('goes out between two reads of the burst, not after it', async () => {
    const { transport, burst, sentAfterReads, hooked } = burstTransport();
    // Due 3 ms after the lane first asks (inside runPhase); the burst's 0 ms timer, set before, fires first
    // (Node runs expired timers in order), and its ~20 ms of reads pass the due time.
    const driver = onceDue(3);
    setTimeout(burst, 0);
    await runPhase(benchmarkRun(driver), transport);
    expect(sentAfterReads).toHaveLength(1);
    const after = sentAfterReads[0] as number;
    expect(after).toBeGreaterThan(0);
    expect(after).toBeLessThan(READS);
    // The phase over, the hook is taken back: a later phase's reads never reach this one's lanes.
    expect(hooked()).toBe(false);
  });
});
