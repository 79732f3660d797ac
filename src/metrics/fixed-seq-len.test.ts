import { describe, expect, it } from 'vitest';
import { aggregate, input, many, rec } from '../../test/support/fixed-seq-len-point.ts';
import type { RequestRecord, UsageFlag } from '../schema/request-record.ts';

describe('aggregatePoint', () => {
  // Four requests, two slots, hand-checked:
  //   r0 sent 0:   TTFT 50, E2EL 450, 5 tokens → TPOT (450−50)/4 = 100, done 460
  //   r1 sent 0:   TTFT 70, E2EL 370, 3 tokens → TPOT 300/2 = 150, done 375
  //   r2 sent 375: TTFT 25, E2EL 25, 1 token → no TPOT, done 400
  //   r3 sent 460: TTFT 20, E2EL 520, 6 tokens → TPOT 500/5 = 100, done 1000
  const four = (): RequestRecord[] => [
    rec({ index: 0, sent: 0, ttft: 50, e2el: 450, done: 460, outServer: 5, gaps: [100, 100, 100, 100] }),
    rec({ index: 1, sent: 0, ttft: 70, e2el: 370, done: 375, outServer: 3, gaps: [150, 150] }),
    rec({ index: 2, sent: 375, ttft: 25, e2el: 25, done: 400, outServer: 1 }),
    rec({
      index: 3,
      sent: 460,
      ttft: 20,
      e2el: 520,
      done: 1000,
      outServer: 6,
      gaps: [100, 100, 100, 100, 100],
    }),
  ];

  it('computes latency, TPOT and ITL from successful requests', () => {
    const r = aggregate(four(), { load: { concurrency: 2, requestRate: 'inf', burstiness: 1 } });
    expect(r.latency.ttftMs).toMatchObject({ count: 4, mean: 41.25, median: 37.5, min: 20, max: 70 });
    expect(r.latency.e2elMs).toMatchObject({ count: 4, mean: 341.25, median: 410 });
    // r2 has one output token, so TPOT has three values: 100, 150, 100.
    expect(r.latency.tpotMs).toMatchObject({ count: 3, median: 100, max: 150 });
    expect(r.latency.tpotMs.mean).toBeCloseTo(116.6667, 4);
    expect(r.latency.itlMs).toMatchObject({ count: 11, min: 100, max: 150 });
    expect(r.interactivity.median).toBe(10);
    expect(r.interactivity.mean).toBeCloseTo(8.5714, 4);
  });

  it('measures the window from the first send to the last finish, and rates over it', () => {
    const r = aggregate(four(), { gpus: { total: 8, prefill: null, decode: null } });
    expect(r.timing).toEqual({
      clockOriginUnixMs: 1_700_000_000_000,
      startMs: 0,
      endMs: 1000,
      durationS: 1,
      wallStartMs: 0,
      wallEndMs: 1000,
      wallDurationS: 1,
      startUnixMs: 1_700_000_000_000,
      endUnixMs: 1_700_000_001_000,
    });
    expect(r.tokens).toMatchObject({ totalInput: 400, totalOutput: 15 });
    expect(r.throughput).toEqual({
      requestsPerS: 4,
      inputTokensPerS: 400,
      outputTokensPerS: 15,
      totalTokensPerS: 415,
      perGpu: { total: 415 / 8, output: 15 / 8, input: 400 / 8 },
    });
  });

  it('splits per-GPU throughput by role when disaggregated, and leaves it null without GPU counts', () => {
    const disagg = aggregate(four(), { gpus: { total: 12, prefill: 4, decode: 8 } });
    expect(disagg.throughput.perGpu).toEqual({ total: 415 / 12, output: 15 / 8, input: 400 / 4 });
    const unknown = aggregate(four());
    expect(unknown.throughput.perGpu).toEqual({ total: null, output: null, input: null });
    expect(unknown.throughput.totalTokensPerS).toBe(415);
  });

  it('never lets warmup into latency, tokens or the window', () => {
    const records = [
      rec({
        phase: 'warmup',
        index: 0,
        sent: -5000,
        ttft: 9000,
        e2el: 9500,
        inServer: 10_000,
        outServer: 999,
      }),
      rec({ phase: 'warmup', index: 1, sent: -5000, fail: 'timeout' }),
      rec({ index: 0, sent: 0, ttft: 30, e2el: 100, done: 200 }),
    ];
    const r = aggregate(records);
    expect(r.latency.ttftMs.mean).toBe(30);
    expect(r.tokens).toMatchObject({ totalInput: 100, totalOutput: 10 });
    expect(r.timing.startMs).toBe(0);
    expect(r.timing.durationS).toBe(0.2);
    expect(r.counts).toMatchObject({ scheduled: 1, completed: 1, warmupCompleted: 1, warmupFailed: 1 });
    expect(r.errors.byCategory).toEqual({});
    expect(r.errors.warmupByCategory).toEqual({ timeout: 1 });
  });

  it('counts cancelled requests apart from failures', () => {
    const records = [...many(8), rec({ fail: 'http_5xx' }), rec({ cancelled: true, e2el: 50 })];
    const r = aggregate(records);
    expect(r.counts).toMatchObject({
      scheduled: 10,
      completed: 8,
      failed: 1,
      cancelled: 1,
      failureRate: 0.1,
    });
    expect(r.errors.byCategory).toEqual({ http_5xx: 1 });
    expect(r.latency.ttftMs.count).toBe(8);
  });

  it('reports null (not 0) for everything unmeasured when nothing succeeded, and fails the gate', () => {
    const r = aggregate(many(3, { fail: 'connection_refused' }));
    for (const s of Object.values(r.latency)) expect(s).toMatchObject({ count: 0, mean: null, p99: null });
    expect(Object.values(r.interactivity).every((v) => v === null)).toBe(true);
    expect(r.tokens).toEqual({
      totalInput: 0,
      totalOutput: 0,
      source: 'none',
      mismatch: { input: 0, output: 0 },
      flagged: { input: 0, output: 0 },
    });
    expect(r.gate.passed).toBe(false);
    expect(r.gate.reason).toMatch(/no request completed/);
    expect(r.valid).toBe(false);
    const empty = aggregate([]);
    expect(empty.throughput.requestsPerS).toBeNull();
    expect(empty.gate).toEqual({
      maxFailureRate: 0.05,
      passed: false,
      reason: 'no benchmark request was sent',
    });
  });

  it('prefers server usage over the client count and counts disagreements', () => {
    const r = aggregate([
      rec({ index: 0, outServer: 10, outClient: 12, inServer: 101, inClient: 100 }),
      rec({ index: 1, outServer: null, outClient: 7 }),
      rec({ index: 2, outServer: 9, outClient: 9 }),
    ]);
    expect(r.tokens).toEqual({
      totalInput: 301,
      totalOutput: 26,
      source: 'mixed',
      mismatch: { input: 1, output: 1 },
      flagged: { input: 0, output: 0 },
    });
    expect(aggregate(many(2)).tokens.source).toBe('server');
    const client = aggregate(many(2, { inServer: null, outServer: null, outClient: 4 }));
    expect(client.tokens).toMatchObject({ source: 'client', totalOutput: 8, totalInput: 200 });
  });

  it('uses the client counts of requests whose usage was flagged, counts them, and gates on them', () => {
    const flag = (input: boolean, output: boolean): UsageFlag => ({
      input,
      output,
      problems: ['over_max_tokens'],
      message: 'the server lied',
    });
    // Even if a flagged record still carried the server's count, it is not used.
    const records = [
      ...many(18),
      rec({ outServer: 2500, outClient: 10, flag: flag(false, true) }),
      rec({ inServer: 999_999, inClient: 100, outServer: null, outClient: 10, flag: flag(true, true) }),
    ];
    const r = aggregate(records);
    expect(r.counts.usageFlagged).toBe(2);
    expect(r.tokens).toMatchObject({
      totalOutput: 200,
      totalInput: 2000,
      source: 'mixed',
      flagged: { input: 1, output: 2 },
      mismatch: { input: 0, output: 0 },
    });
    // 2 of 20 flagged = 10% > 5%: the gate fails although every request completed.
    expect(r.counts.failureRate).toBe(0);
    expect(r.gate.passed).toBe(false);
    expect(r.gate.reason).toMatch(/usage check on 10\.0% of requests > 5\.0% \(2 of 20/);
    expect(r.valid).toBe(false);
    // 1 of 20 = 5% is not above the limit.
    const one = aggregate([...many(19), rec({ outServer: -1, flag: flag(false, true) })]);
    expect(one.counts.usageFlagged).toBe(1);
    expect(one.gate.passed).toBe(true);
  });

  it('flags short outputs only when ignore_eos was on', () => {
    const records = [rec({ outServer: 4, requested: 10 }), rec({ outServer: 10, requested: 10 })];
    expect(aggregate(records).counts.shortOutput).toBe(1);
    const noEos = input(records).workload;
    expect(aggregate(records, { workload: { ...noEos, ignoreEos: false } }).counts.shortOutput).toBe(0);
  });

  it('measures queue time from the schedule and latency from the send', () => {
    const r = aggregate([rec({ scheduled: 0, sent: 30, ttft: 20, e2el: 70 })]);
    expect(r.queueInclusive.queueMs.mean).toBe(30);
    expect(r.queueInclusive.ttftMs.mean).toBe(50);
    expect(r.queueInclusive.e2elMs.mean).toBe(100);
    expect(r.latency.ttftMs.mean).toBe(20);
  });

  it('passes the gate at the threshold and fails above it', () => {
    const at = aggregate([...many(19), rec({ fail: 'http_5xx' })]);
    expect(at.counts.failureRate).toBe(0.05);
    expect(at.gate).toEqual({ maxFailureRate: 0.05, passed: true, reason: null });
    expect(at.valid).toBe(true);
    const above = aggregate([...many(18), ...many(2, { fail: 'http_5xx' })]);
    expect(above.gate.passed).toBe(false);
    expect(above.gate.reason).toBe('request failure rate 10.0% > 5.0% (2 of 20 failed)');
    expect(above.valid).toBe(false);
  });

  it('is invalid when the client limited the load, even with the gate passed', () => {
    const base = input([]).client;
    const r = aggregate(many(4), {
      client: { ...base, clientLimited: true, reasons: ['event loop saturated'] },
    });
    expect(r.gate.passed).toBe(true);
    expect(r.valid).toBe(false);
  });

  it('reports interactivity per statistic as 1000/TPOT, so p99 is the slow tail', () => {
    // TPOT = E2EL − TTFT over (2 − 1) tokens: 10, 20, 100 ms.
    const r = aggregate([10, 20, 100].map((t) => rec({ ttft: 5, e2el: 5 + t, outServer: 2 })));
    const tpot = r.latency.tpotMs;
    expect(tpot.median).toBe(20);
    expect(r.interactivity.median).toBe(50);
    expect(r.interactivity.p99).toBe(1000 / tpot.p99!);
    expect(r.interactivity.p99).toBeLessThan(r.interactivity.median!);
    expect(r.interactivity.mean).toBe(1000 / tpot.mean!);
  });

  it('keeps up to three distinct messages per error category', () => {
    const records = ['a', 'a', 'b', 'c', 'd'].map((m) => rec({ fail: 'http_5xx', message: m }));
    records.push(rec({ phase: 'warmup', fail: 'timeout', message: 'w' }));
    const r = aggregate(records);
    expect(r.errors.samples).toEqual([
      { category: 'http_5xx', message: 'a' },
      { category: 'http_5xx', message: 'b' },
      { category: 'http_5xx', message: 'c' },
      { category: 'timeout', message: 'w' },
    ]);
    expect(r.errors.byCategory).toEqual({ http_5xx: 5 });
  });
});

describe('steady state', () => {
  // Two slots. Slot A: r0 [0,100], r2 [100,200], r4 [200,300]; slot B: r1 [10,160], r3 [160,310], r5 [310,400].
  // The 2nd send (all slots busy) is at 10, the last send at 310: window [10, 310].
  const spans: [number, number][] = [
    [0, 100],
    [10, 160],
    [100, 200],
    [160, 310],
    [200, 300],
    [310, 400],
  ];
  const records = spans.map(([s, d], index) =>
    rec({ index, sent: s, ttft: 5 + index, e2el: d - s - 5, done: d }),
  );
  const conc2 = { load: { concurrency: 2, requestRate: 'inf' as const, burstiness: 1 } };

  it('runs from the CONC-th send to the last send', () => {
    const ss = aggregate(records, conc2).steadyState!;
    expect(ss.startMs).toBe(10);
    expect(ss.endMs).toBe(310);
    expect(ss.durationS).toBeCloseTo(0.3, 12);
  });

  it('takes latency only from requests wholly inside the window', () => {
    const ss = aggregate(records, conc2).steadyState!;
    // r1..r4 (TTFT 6..9) lie inside; r0 started before it, r5 ends after it.
    expect(ss.completed).toBe(4);
    expect(ss.latency.ttftMs).toMatchObject({ count: 4, min: 6, max: 9 });
  });

  it('counts straddling requests pro rata in throughput', () => {
    const ss = aggregate(records, conc2).steadyState!;
    // r0 overlaps 90 of its 100 ms, r1..r4 fully, r5 not at all: 4.9 requests, 49 output tokens.
    expect(ss.throughput.requestsPerS).toBeCloseTo(4.9 / 0.3, 9);
    expect(ss.throughput.outputTokensPerS).toBeCloseTo(49 / 0.3, 9);
    expect(ss.throughput.inputTokensPerS).toBeCloseTo(490 / 0.3, 9);
  });

  it('is null with fewer than 2×CONC requests, or when every request went out at once', () => {
    expect(aggregate(records.slice(0, 3), conc2).steadyState).toBeNull();
    expect(aggregate(records).steadyState).toBeNull();
    expect(aggregate(many(4, { sent: 0 }), conc2).steadyState).toBeNull();
  });
});
