import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PointResultSchema } from '../src/schema/point-result.ts';
import type { RequestRecord } from '../src/schema/request-record.ts';
import { startScriptedServer } from '../src/sim/scripted/server.ts';
import { type AgenticBenchOptions, runAgenticBench } from '../src/sweep/bench-agentic.ts';
import { tmpDir } from './helpers.ts';
import { TRACE_A, TRACE_B } from './support/replay-fixtures.ts';

/**
 * The AgentX replay end to end, over real HTTP: the hand-built corpus (test/support/replay-fixtures.ts:
 * a title preamble, two subagents with tiered joins, a background subagent, a compaction, a warped idle
 * gap) replayed by `runAgenticBench` against the scripted server, its clock 100× the wall clock so a trace
 * second is 10 wall ms. The scheduler's exact order on a simulated clock is replay-scheduler.test.ts's;
 * here the same rules must hold for the requests as they went over the wire.
 */

const SCALE = 100;
const wallMs = (traceS: number) => (traceS * 1000) / SCALE;

function options(dir: string, baseUrl: string, over: Partial<AgenticBenchOptions> = {}): AgenticBenchOptions {
  const traces = join(dir, 'traces.jsonl');
  writeFileSync(traces, `${JSON.stringify(TRACE_A)}\n${JSON.stringify(TRACE_B)}\n`);
  return {
    baseUrl,
    models: ['served-model'],
    traces: [traces],
    maxContextTokens: null,
    users: 2,
    durationS: 400,
    fast: false,
    warmupRequestsPerLane: 2,
    warmupGraceS: 600,
    benchmarkGraceS: 1,
    seed: 7,
    timeoutS: 30,
    gpus: 4,
    prefillGpus: null,
    decodeGpus: null,
    tokenizer: null,
    affinityHeaders: ['x-session-id'],
    out: join(dir, 'out'),
    formats: ['infx', 'inferencex'],
    apiKey: null,
    version: 'test',
    corpusName: 'hand',
    labels: { accelerator: 'h200', framework: 'scripted', precision: 'fp8', modelPrefix: 'm' },
    failedRequestThreshold: 0.1,
    replayClockScale: SCALE,
    ...over,
  };
}

type Rec = RequestRecord & { agentic: NonNullable<RequestRecord['agentic']> };

/** The records of one play of one conversation, by turn index. */
function turns(records: readonly Rec[], play: string, conversation: string): Map<number, Rec> {
  return new Map(
    records
      .filter((r) => r.agentic.rootCorrelationId === play && r.agentic.conversationId === conversation)
      .map((r) => [r.agentic.turnIndex, r]),
  );
}

describe('infx bench --workload agentic against the scripted server', () => {
  it('replays the hand-built corpus with its joins, delays, warmup and cancellations, and aggregates §4.4', async () => {
    // Answers take 5 ms + 1 ms a token: the 90-token last turn (≈ 95 ms = 9.5 trace s) outlives the 1 s grace.
    const server = await startScriptedServer({ defaults: { ttftMs: 5, itlMs: 1 } }, { spinMs: 0 });
    const dir = tmpDir('agentic-replay');
    try {
      const report = await runAgenticBench(options(dir, server.url), { log: () => {} });
      const result = PointResultSchema.parse(report.result);
      const a = result.agentic;
      if (a === undefined) throw new Error('no agentic block');
      const records = (await import('node:fs'))
        .readFileSync(join(dir, 'out', 'requests.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Rec);
      expect(records.length).toBe(a.accounting.recordsTotal);
      for (const r of records) expect(r.agentic, `record ${r.phase} ${r.index}`).toBeDefined();

      // Warmup: each of the 2 lanes primes with the turn before t*, then 2 one-token advances.
      const warm = records.filter((r) => r.phase === 'warmup');
      expect(warm.length).toBe(a.accounting.recordsWarmupDropped);
      expect(warm.length).toBeLessThanOrEqual(2 * (1 + 2));
      expect(warm.filter((r) => r.outputTokens.requested === 1).length).toBeGreaterThan(0);

      const bench = records.filter((r) => r.phase === 'benchmark');
      const plays = [
        ...new Set(bench.filter((r) => r.agentic.traceId === 'A').map((r) => r.agentic.rootCorrelationId)),
      ];
      expect(plays.length).toBeGreaterThan(0);
      let joinsChecked = 0;
      for (const play of plays) {
        const root = turns(bench, play, 'A');
        const fast = [...bench].filter(
          (r) => r.agentic.rootCorrelationId === play && r.agentic.branch.agentId === 'fast',
        );
        const slow = [...bench].filter(
          (r) => r.agentic.rootCorrelationId === play && r.agentic.branch.agentId === 'slow',
        );
        // Tiered joins: root#2 waits for every request of `fast`, root#3 for every request of `slow`.
        for (const [joinTurn, children] of [
          [2, fast],
          [3, slow],
        ] as const) {
          const join = root.get(joinTurn);
          if (join === undefined || children.length < 2) continue;
          for (const c of children) expect(join.sentMs).toBeGreaterThanOrEqual(c.doneMs as number);
          joinsChecked++;
        }
        // End-to-start delays: root#1 goes 1 trace-second after root#0 ended (the preamble call).
        const r0 = root.get(0);
        const r1 = root.get(1);
        if (r0 && r1) expect(r1.sentMs - (r0.doneMs as number)).toBeGreaterThanOrEqual(wallMs(1) - 1);
        // The 401 s gap before root#5 is warped and capped: never more than the 300 s per-tree cap.
        const r4 = root.get(4);
        const r5 = root.get(5);
        if (r4 && r5) expect(r5.sentMs - (r4.doneMs as number)).toBeLessThanOrEqual(wallMs(300) + 50);
        // The background subagent has a parent and no join.
        for (const bg of bench.filter(
          (r) => r.agentic.rootCorrelationId === play && r.agentic.branch.agentId === 'bg',
        )) {
          expect(bg.agentic.branch.background).toBe(true);
          expect(bg.agentic.branch.parentCorrelationId).toBe(play);
        }
      }
      expect(joinsChecked).toBeGreaterThan(0);

      // The theoretical prefix per call of trace A, worked by hand: one seen-set in (t, outer, inner) order.
      const prefixOf = (conv: string, turn: number) =>
        records.find(
          (r) =>
            r.agentic.conversationId === conv && r.agentic.turnIndex === turn && r.agentic.traceId === 'A',
        )?.agentic.theoreticalPrefix;
      const expected: [string, number, { hitBlocks: number; totalBlocks: number }][] = [
        ['A', 0, { hitBlocks: 0, totalBlocks: 1 }], // [900]
        ['A', 2, { hitBlocks: 2, totalBlocks: 3 }], // [1,2,3] after [1,2]
        ['A', 4, { hitBlocks: 0, totalBlocks: 2 }], // [500,501]: the compaction
        ['A', 5, { hitBlocks: 2, totalBlocks: 3 }], // [500,501,502]
      ];
      let prefixesChecked = 0;
      for (const [conv, turn, want] of expected) {
        const got = prefixOf(conv, turn);
        if (got === undefined) continue;
        expect(got, `${conv}#${turn}`).toEqual(want);
        prefixesChecked++;
      }
      expect(prefixesChecked).toBeGreaterThanOrEqual(3);
      const compaction = records.find(
        (r) => r.agentic.traceId === 'A' && r.agentic.conversationId === 'A' && r.agentic.turnIndex === 4,
      );
      if (compaction) expect(compaction.agentic.resetContext).toBe(true);

      // Cancellations at the end of the run are counted apart, with their time, and are not failures.
      const cancelled = bench.filter((r) => r.cancelled);
      expect(a.accounting.recordsCancelled).toBe(cancelled.length);
      expect(a.health.cancelledCount).toBe(cancelled.length);
      for (const r of cancelled) expect(r.agentic.cancelledAtMs).not.toBeNull();
      expect(a.errorGate.errors).toBe(0);

      // §4.4 over the kept records (profiling, no error): throughput over their span, every GPU; the cache rate.
      const kept = bench.filter((r) => r.ok && !r.cancelled);
      expect(a.accounting.recordsProfiled).toBe(kept.length);
      const inTokens = kept.reduce((s, r) => s + (r.inputTokens.server ?? r.inputTokens.client), 0);
      const outTokens = kept.reduce((s, r) => s + (r.outputTokens.server ?? r.outputTokens.client ?? 0), 0);
      expect(a.tokens.totalInput).toBe(inTokens);
      expect(a.tokens.totalOutput).toBe(outTokens);
      const t = a.throughput;
      if (t === null) throw new Error('no throughput');
      expect(t.totalTokensPerS).toBeCloseTo((inTokens + outTokens) / t.durationS, 6);
      expect(t.perGpu.total).toBeCloseTo(t.totalTokensPerS / 4, 6);
      const hit = kept.reduce((s, r) => s + r.agentic.theoreticalPrefix.hitBlocks, 0);
      const blocks = kept.reduce((s, r) => s + r.agentic.theoreticalPrefix.totalBlocks, 0);
      expect(a.cache.theoreticalCacheHitRate).toBeCloseTo(hit / blocks, 12);
      // Under the 900 s submission minimum: measured, and said not to be a valid submission.
      expect(a.submissionInvalidReasons).toContain('duration_below_submission_minimum');
      expect(result.valid).toBe(false);
      expect(report.files.map((f) => f.split('/').pop())).toEqual([
        'requests.jsonl',
        'inferencex.json',
        'result.json',
      ]);
    } finally {
      await server.close();
    }
  }, 60_000);

  describe('a corpus it cannot replay is a clear error', () => {
    const run = async (lines: string, over: Partial<AgenticBenchOptions> = {}) => {
      const server = await startScriptedServer({ defaults: { ttftMs: 1, itlMs: 0 } }, { spinMs: 0 });
      const dir = tmpDir('agentic-replay-bad');
      try {
        const o = options(dir, server.url, { replayClockScale: 1000, durationS: 100, ...over });
        writeFileSync(o.traces[0] as string, lines);
        const sent = () => server.stats().requests;
        const err = await runAgenticBench(o, { log: () => {} }).then(
          () => null,
          (e: unknown) => e as Error,
        );
        return { err, sent: sent(), file: o.traces[0] as string };
      } finally {
        await server.close();
      }
    };

    it('an empty corpus, before any request', async () => {
      const { err, sent } = await run('\n\n');
      expect(err?.message).toMatch(/the corpus is empty/);
      expect(sent).toBe(0);
    });

    it('every trace over --max-context, before any request', async () => {
      const { err, sent } = await run(`${JSON.stringify(TRACE_A)}\n`, { maxContextTokens: 10 });
      expect(err?.message).toMatch(/needs more context than --max-context 10: 1 dropped, none left/);
      expect(sent).toBe(0);
    });

    it('a malformed line after good ones stops the run with its file:line, never skipped', async () => {
      const bad = JSON.stringify({ ...TRACE_B, id: 'bad', block_size: 'big' });
      const { err, file } = await run(`${JSON.stringify(TRACE_A)}\n${JSON.stringify(TRACE_B)}\n${bad}\n`);
      expect(err?.name).toBe('TraceCorpusError');
      expect(err?.message).toContain(`${file}:3`);
      expect(err?.message).toMatch(/block_size/);
    });
  });
});
