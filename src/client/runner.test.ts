import { describe, expect, it } from 'vitest';
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

/** One request due `dueInMs` after the phase starts; WAIT (naming that time) until then. */
function onceDue(dueInMs: number): PhaseDriver & { dueAt: number } {
  let state: 'waiting' | 'sent' | 'done' = 'waiting';
  const driver = {
    dueAt: monotonicMs() + dueInMs,
    next() {
      if (state !== 'waiting') return state === 'sent' ? WAIT : DONE;
      if (monotonicMs() < driver.dueAt) return WAIT;
      state = 'sent';
      const req: DriverRequest = {
        index: 0,
        promptIndex: 0,
        body: Buffer.from('{}'),
        maxTokens: 1,
        inputTokens: { target: 1, client: 1 },
        headers: null,
        arrivalOffsetMs: null,
        dueAtMs: driver.dueAt,
      };
      return req;
    },
    wakeAtMs: () => (state === 'waiting' ? driver.dueAt : null),
    complete() {
      state = 'done';
    },
  };
  return driver;
}

describe('runPhase: a request due during a burst of reads', () => {
  it('goes out between two reads of the burst, not after it', async () => {
    const { transport, burst, sentAfterReads, hooked } = burstTransport();
    // Due 3 ms from now; the burst starts first (a 0 ms timer fires before a 3 ms one) and lasts ~20 ms.
    const driver = onceDue(3);
    const controller = new AbortController();
    setTimeout(burst, 0);
    await runPhase(
      {
        phase: 'benchmark',
        worker: 0,
        slots: 1,
        driver,
        startMs: monotonicMs(),
        lockstep: null,
        clockOriginMs: monotonicMs(),
        signal: controller.signal,
        onRecord: () => {},
      },
      transport,
    );
    expect(sentAfterReads).toHaveLength(1);
    const after = sentAfterReads[0] as number;
    expect(after).toBeGreaterThan(0);
    expect(after).toBeLessThan(READS);
    // The phase over, the hook is taken back: a later phase's reads never reach this one's lanes.
    expect(hooked()).toBe(false);
  });
});
