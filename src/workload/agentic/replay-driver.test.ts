import { describe, expect, it } from 'vitest';
import { callName, recordedApiTimeS, SimClock, TRACE_A } from '../../../test/support/replay-fixtures.ts';
import type { RequestError, RequestRecord } from '../../schema/request-record.ts';
import { DONE, type DriverContext, type DriverRequest, WAIT } from '../driver.ts';
import { createReplayPhaseDriver, outcomeOf } from './replay-driver.ts';
import { ReplayScheduler } from './replay-scheduler.ts';

/** Only the fields the replay reads of a record. */
const record = (over: { ok?: boolean; error?: RequestError | null; cancelled?: boolean }): RequestRecord =>
  ({ ok: true, error: null, cancelled: false, ...over }) as unknown as RequestRecord;
const error = (category: RequestError['category'], bodyExcerpt: string | null = null): RequestError => ({
  category,
  message: category,
  status: 400,
  bodyExcerpt,
});

describe('outcomeOf', () => {
  it('tells overflow (by category or by the body’s phrase), cancellation, errors and success apart', () => {
    expect(outcomeOf(record({}))).toBe('ok');
    expect(outcomeOf(record({ cancelled: true }))).toBe('cancelled');
    expect(outcomeOf(record({ ok: false, error: error('context_overflow') }))).toBe('overflow');
    expect(
      outcomeOf(record({ ok: false, error: error('http_4xx', '{"error":"prompt is too long: 300000"}') })),
    ).toBe('overflow');
    expect(outcomeOf(record({ ok: false, error: error('http_5xx', 'internal') }))).toBe('error');
    expect(outcomeOf(record({ ok: false, error: error('timeout') }))).toBe('error');
  });
});

describe('createReplayPhaseDriver', () => {
  it('runs warmup then profiling over one scheduler, with WAIT on timers, DONE at the end, shared dispatch indices', () => {
    const clock = new SimClock();
    const s = new ReplayScheduler(
      [TRACE_A],
      { lanes: 1, seed: 1, durationS: 5, startRatio: [0.5, 0.5], warmupRequestsPerLane: 1 },
      clock,
    );
    const ctx = (phase: 'warmup' | 'benchmark'): DriverContext => ({
      phase,
      thread: 0,
      threads: 1,
      dispatch: new Int32Array(1),
    });
    const bodies: string[] = [];
    const compile = (c: Parameters<Parameters<typeof createReplayPhaseDriver>[3]>[0]) => {
      bodies.push(`${callName(c)} ${c.maxTokens}`);
      return { body: Buffer.from(callName(c)), inputTokens: 64 };
    };
    const names: string[] = [];
    for (const phase of ['warmup', 'benchmark'] as const) {
      const d = createReplayPhaseDriver(s, phase, ctx(phase), compile);
      let inFlight: { req: DriverRequest; doneAt: number }[] = [];
      for (;;) {
        const step = d.next();
        if (step === DONE) break;
        if (step !== WAIT) {
          expect(d.callOf(step)?.phase).toBe(phase);
          names.push(
            `${phase} ${clock.ms / 1000} ${step.index} ${step.body.toString()} ${step.headers?.['x-request-id'] === d.callOf(step)?.requestId}`,
          );
          inFlight.push({ req: step, doneAt: clock.ms + recordedApiTimeS(d.callOf(step) as never) * 1000 });
          continue;
        }
        const wake = d.wakeAtMs();
        clock.ms = Math.min(...inFlight.map((x) => x.doneAt), wake ?? Number.POSITIVE_INFINITY);
        for (const x of inFlight.filter((y) => y.doneAt <= clock.ms)) d.complete(x.req, record({}), '');
        inFlight = inFlight.filter((y) => y.doneAt > clock.ms);
      }
    }
    // Warmup: root#2 primes at 0 (done 1), root#3 advances with one token (done 2, spawns bg).
    // Profiling from 2, each turn its recorded delay after the boundary: bg#0 at 2.5 (0.5 s after its
    // spawn), root#4 at 3 (1 s); root#4 done 4, root#5 due 4 + 299 s, past the 5 s end.
    expect(names).toEqual([
      'warmup 0 0 A/root#2 true',
      'warmup 1 1 A/root#3 true',
      'benchmark 2.5 0 A/bg#0 true',
      'benchmark 3 1 A/root#4 true',
    ]);
    expect(bodies).toEqual(['A/root#2 60', 'A/root#3 1', 'A/bg#0 10', 'A/root#4 80']);
  });

  it('hands back the requests to abort past the grace', () => {
    const clock = new SimClock();
    const s = new ReplayScheduler([TRACE_A], { lanes: 1, seed: 1, durationS: 1, benchmarkGraceS: 1 }, clock);
    const d = createReplayPhaseDriver(
      s,
      'benchmark',
      { phase: 'benchmark', thread: 0, threads: 1, dispatch: new Int32Array(1) },
      () => ({ body: Buffer.alloc(0), inputTokens: 0 }),
    );
    const first = d.next() as DriverRequest;
    expect(d.next()).toBe(WAIT);
    expect(d.wakeAtMs()).toBe(1000);
    clock.ms = 2000;
    expect(d.cancelDue()).toEqual([first]);
    expect(d.next()).toBe(DONE);
    expect(s.counts.benchmark.cancelled).toBe(1);
  });
});
