import { expect } from 'vitest';
import { type AggregateInput, aggregatePoint } from '../../src/metrics/fixed-seq-len.ts';
import { type PointResultOf, PointResultSchema } from '../../src/schema/point-result.ts';
import type { ErrorCategory, RequestRecord, UsageFlag } from '../../src/schema/request-record.ts';
import { UNMEASURED_CLIENT } from './metrics.ts';

/** Request records and inputs for the fixed-seq-len aggregator's tests (src/metrics/fixed-seq-len*.test.ts). */

/** A request record described by what a test cares about; the rest is a plain success. */
export interface RecordSpec {
  phase?: 'warmup' | 'benchmark';
  index?: number;
  scheduled?: number;
  sent?: number;
  /** ms after sent; null = no token arrived */
  ttft?: number | null;
  e2el?: number | null;
  done?: number;
  gaps?: number[];
  inClient?: number;
  inServer?: number | null;
  outClient?: number | null;
  outServer?: number | null;
  requested?: number;
  fail?: ErrorCategory;
  message?: string;
  cancelled?: boolean;
  flag?: UsageFlag;
}

let counter = 0;
/** Records of fixed-seq-len aggregation tests: indexes count up across a test file unless given. */
export function rec(s: RecordSpec = {}): RequestRecord {
  const sent = s.sent ?? 0;
  const ttft = s.ttft === undefined ? 10 : s.ttft;
  const e2el = s.e2el === undefined ? 100 : s.e2el;
  const failed = s.fail !== undefined;
  const first = failed || ttft === null ? null : sent + ttft;
  const last = failed || e2el === null ? null : sent + e2el;
  return {
    index: s.index ?? counter++,
    phase: s.phase ?? 'benchmark',
    promptIndex: 0,
    worker: 0,
    scheduledMs: s.scheduled ?? sent,
    sentMs: sent,
    firstByteMs: first,
    firstTokenMs: first,
    lastTokenMs: last,
    doneMs: s.done ?? (last ?? sent + 5) + 1,
    chunkGapsMs: s.gaps ?? [],
    contentChunks: (s.gaps?.length ?? 0) + 1,
    reasoningChunks: 0,
    inputTokens: {
      target: 100,
      client: s.inClient ?? 100,
      server: s.inServer === undefined ? 100 : s.inServer,
    },
    outputTokens: {
      requested: s.requested ?? 10,
      client: s.outClient === undefined ? 10 : s.outClient,
      server: failed ? null : s.outServer === undefined ? 10 : s.outServer,
    },
    usageFlag: s.flag ?? null,
    ok: !failed && !s.cancelled,
    error: failed
      ? { category: s.fail!, message: s.message ?? `${s.fail} happened`, status: null, bodyExcerpt: null }
      : null,
    cancelled: s.cancelled ?? false,
    engine: null,
  };
}

export function input(records: RequestRecord[], over: Partial<AggregateInput> = {}): AggregateInput {
  return {
    records,
    tool: { name: 'infx', version: '0.1.0' },
    createdAt: '2025-01-15T12:00:00.000Z',
    seed: 0,
    target: { baseUrl: 'http://127.0.0.1:8888', model: 'm', endpoint: 'completions' },
    engine: { kind: 'real', simulator: null, timeScale: null, lockstep: false, lag: null },
    clock: 'wall',
    workload: {
      kind: 'fixed-seq-len',
      isl: 100,
      osl: 10,
      randomRangeRatio: 0.8,
      numPrompts: records.length || 1,
      warmup: 0,
      ignoreEos: true,
      tokenizer: { kind: 'builtin', name: 'o200k', path: null },
      chatTemplate: false,
    },
    load: { concurrency: 64, requestRate: 'inf', burstiness: 1 },
    gpus: { total: null, prefill: null, decode: null },
    clockOriginUnixMs: 1_700_000_000_000,
    maxFailureRate: 0.05,
    client: UNMEASURED_CLIENT,
    ...over,
  };
}

/** Aggregates, and checks that the result is what the schema reads back. */
export function aggregate(
  records: RequestRecord[],
  over: Partial<AggregateInput> = {},
): PointResultOf<'fixed-seq-len'> {
  const result = aggregatePoint(input(records, over));
  expect(PointResultSchema.parse(result)).toEqual(result);
  return result;
}

export const many = (n: number, s: RecordSpec = {}): RequestRecord[] =>
  Array.from({ length: n }, () => rec(s));
