import { describe, expect, it } from 'vitest';
import { arec } from '../../../test/support/agentic-records.ts';
import { coverageOf, errorGateOf, healthOf, submissionValidity } from './health.ts';

describe('agentic health counters', () => {
  it('counts overflows, OSL mismatches, cancellations and children apart', () => {
    const records = [
      arec({ osl: 10, expected: 10 }),
      arec({ osl: 7, expected: 10 }), // mismatch
      arec({ fail: 'context_overflow' }),
      arec({ cancelled: true }),
      arec({ phase: 'warmup', fail: 'context_overflow' }), // warmup: not counted
      arec({ conv: 'trace-a::s1', branch: 'subagent' }),
      arec({ conv: 'trace-a::s1', branch: 'subagent', fail: 'http_5xx' }),
      arec({ conv: 'trace-a::s2', branch: 'subagent', cancelled: true }),
      arec({ conv: 'trace-a::s3', branch: 'flat' }),
    ];
    // 8 profiling records, 1 overflow: rate 1/8.
    expect(healthOf(records, 3)).toEqual({
      contextOverflowCount: 1,
      contextOverflowRate: 0.125,
      oslMismatchCount: 1,
      creditDropCount: 3,
      cancelledCount: 2,
      branchStats: { childrenSpawned: 3, childrenErrored: 1, childrenTruncated: 1 },
    });
    expect(healthOf([], 0).contextOverflowRate).toBeNull();
  });
});

describe('the 98% coverage gate', () => {
  const phase = { startMs: 1000, endMs: 11_000 };
  it('passes when observations reach 98% of the profiling phase', () => {
    // 1000 + 0.98 · 10000 = 10800.
    expect(coverageOf([2000, 10_800, null], phase)).toMatchObject({
      lastObservationMs: 10_800,
      fraction: 0.98,
      passed: true,
    });
  });
  it('fails below, and with no observation at all', () => {
    const c = coverageOf([10_790], phase);
    expect(c.fraction).toBeCloseTo(0.979, 12);
    expect(c.passed).toBe(false);
    expect(coverageOf([], phase)).toMatchObject({ lastObservationMs: null, fraction: null, passed: false });
  });
  it('a phase of no length has nothing to cover', () => {
    expect(coverageOf([], { startMs: 5, endMs: 5 }).passed).toBe(true);
  });
});

describe('the error gate', () => {
  const many = (n: number, spec: Parameters<typeof arec>[0] = {}) =>
    Array.from({ length: n }, () => arec(spec));
  it('passes at the threshold, inclusive (spec §10 case 30)', () => {
    // 90 ok + 10 failed: 10/100 = 0.10 ≤ 0.10.
    expect(errorGateOf([...many(90), ...many(10, { fail: 'http_5xx' })])).toEqual({
      errors: 10,
      completed: 100,
      threshold: 0.1,
      passed: true,
      message: null,
    });
  });
  it("fails above with the reference's message; cancellations and warmup are neither", () => {
    const records = [
      ...many(2),
      ...many(65, { fail: 'http_5xx' }),
      ...many(4, { cancelled: true }),
      ...many(3, { phase: 'warmup', fail: 'timeout' }),
    ];
    expect(errorGateOf(records)).toEqual({
      errors: 65,
      completed: 67,
      threshold: 0.1,
      passed: false,
      message: 'aiperf request error rate exceeded the benchmark limit: 65/67 = 97.015% > 10.000%',
    });
    expect(errorGateOf(many(2, { cancelled: true })).passed).toBe(false);
  });
});

describe('submission_valid', () => {
  const coverage = coverageOf([10_900], { startMs: 1000, endMs: 11_000 });
  const health = healthOf([arec()], 0);
  const errorGate = errorGateOf([arec()]);
  const ok = { coverage, health, errorGate, runCancelled: false, durationS: 3600, kept: 1 };

  it('is valid with every gate passed', () => {
    expect(submissionValidity(ok)).toEqual({ valid: true, reasons: [] });
  });

  it('names each reason it is not', () => {
    const low = coverageOf([10_000], { startMs: 1000, endMs: 11_000 }); // 0.9
    expect(submissionValidity({ ...ok, coverage: low })).toEqual({
      valid: false,
      reasons: ['insufficient_profile_metric_coverage'],
    });
    // 2 overflows in 100 profiling requests: 2% > 1%.
    const overflowing = healthOf(
      [
        ...Array.from({ length: 98 }, () => arec()),
        arec({ fail: 'context_overflow' }),
        arec({ fail: 'context_overflow' }),
      ],
      0,
    );
    expect(submissionValidity({ ...ok, health: overflowing }).reasons).toEqual([
      'context_overflow_rate_exceeded',
    ]);
    // Exactly 1% is still valid.
    const onePercent = healthOf(
      [...Array.from({ length: 99 }, () => arec()), arec({ fail: 'context_overflow' })],
      0,
    );
    expect(submissionValidity({ ...ok, health: onePercent }).valid).toBe(true);
    expect(submissionValidity({ ...ok, runCancelled: true, durationS: 600 }).reasons).toEqual([
      'run_cancelled',
      'duration_below_submission_minimum',
    ]);
    expect(
      submissionValidity({ ...ok, kept: 0, errorGate: errorGateOf([arec({ fail: 'http_5xx' })]) }).reasons,
    ).toEqual(['no_successful_requests', 'error_rate_exceeded']);
  });
});
