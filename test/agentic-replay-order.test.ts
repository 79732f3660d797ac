import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RequestRecord } from '../src/schema/request-record.ts';
import { startScriptedServer } from '../src/sim/scripted/server.ts';
import { runAgenticBench } from '../src/sweep/bench-agentic.ts';
import { type ReplayCall, ReplayScheduler } from '../src/workload/agentic/replay-scheduler.ts';
import { tmpDir } from './helpers.ts';
import { playPhase, SimClock, TRACE_A } from './support/replay-fixtures.ts';

/**
 * The exact dispatch order over the wire. One user replays trace A (the title preamble, `fast` and `slow`
 * with tiered joins, the background `bg`, the compaction, the warped 401 s gap) against the scripted server,
 * whose every answer takes 5 ms + 1 ms a token; the replay's clock runs 20× the wall clock. The same
 * scheduler on a simulated clock, told each call takes what the server takes (in trace seconds), gives the
 * order the wire must show: warmup and profiling, every request, in dispatch order.
 */

const SCALE = 20;
const TTFT_MS = 5;
const ITL_MS = 1;
// The profiling phase (from 1.62 s) ends at 118.62 s on the simulated clock: the last call it sends is
// due at 114.12 and the next at 121.42, so the wire's lag (it only makes calls later) never changes which.
const DURATION_S = 117;

const name = (traceConv: string, agent: string | null, turn: number) =>
  `${traceConv}/${agent ?? 'root'}#${turn}`;

function benchOptions(
  baseUrl: string,
  dir: string,
  o: { seed: number; warmupRequestsPerLane: number; warmupGraceS: number; benchmarkGraceS: number },
) {
  const traces = join(dir, 'traces.jsonl');
  writeFileSync(traces, `${JSON.stringify(TRACE_A)}\n`);
  return {
    baseUrl,
    models: ['m'],
    traces: [traces],
    maxContextTokens: null,
    users: 1,
    durationS: DURATION_S,
    fast: false,
    warmupRequestsPerLane: o.warmupRequestsPerLane,
    warmupGraceS: o.warmupGraceS,
    benchmarkGraceS: o.benchmarkGraceS,
    seed: o.seed,
    timeoutS: 30,
    gpus: 1,
    prefillGpus: null,
    decodeGpus: null,
    tokenizer: null,
    affinityHeaders: [],
    out: join(dir, 'out'),
    formats: ['infx' as const],
    apiKey: null,
    version: 'test',
    corpusName: 'hand',
    labels: { accelerator: 'h200', framework: 'scripted', precision: 'fp8', modelPrefix: 'm' },
    failedRequestThreshold: 0.1,
    replayClockScale: SCALE,
  };
}

describe('the agentic replay over HTTP', () => {
  it('dispatches in the order the scheduler gives on a simulated clock with the same answer times', async () => {
    const options = {
      lanes: 1,
      seed: 3,
      durationS: DURATION_S,
      benchmarkGraceS: 1000,
      warmupRequestsPerLane: 2,
      warmupGraceS: 1000,
    };
    const clock = new SimClock();
    const s = new ReplayScheduler([TRACE_A], options, clock);
    const answerS = (c: ReplayCall) => ((TTFT_MS + c.maxTokens * ITL_MS) * SCALE) / 1000;
    s.startWarmup();
    const expected = playPhase(s, clock, answerS).map((x) => `warmup ${x.name}`);
    s.startBenchmark();
    expected.push(...playPhase(s, clock, answerS).map((x) => `benchmark ${x.name}`));

    const server = await startScriptedServer({ defaults: { ttftMs: TTFT_MS, itlMs: ITL_MS } }, { spinMs: 0 });
    const dir = tmpDir('agentic-order');
    try {
      await runAgenticBench(benchOptions(server.url, dir, options), { log: () => {} });
    } finally {
      await server.close();
    }
    const records = readFileSync(join(dir, 'out', 'requests.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as RequestRecord)
      .sort((a, b) => (a.phase === b.phase ? a.index - b.index : a.phase === 'warmup' ? -1 : 1));
    const wire = records.map((r) => {
      const a = r.agentic;
      if (a === undefined) throw new Error('a record without agentic fields');
      return `${r.phase} ${name(a.traceId, a.branch.agentId, a.turnIndex)}`;
    });
    expect(expected.length).toBeGreaterThan(8);
    expect(wire).toEqual(expected);
  }, 60_000);

  it('a failed root warmup request cancels the run: nothing is profiled, and the result says run_cancelled', async () => {
    // The first request of the run is the lane's root warmup turn: the server refuses it.
    const server = await startScriptedServer(
      {
        defaults: { ttftMs: TTFT_MS, itlMs: ITL_MS },
        requests: { '0': { fault: { kind: 'http', status: 500 } } },
      },
      { spinMs: 0 },
    );
    const dir = tmpDir('agentic-warmup-fail');
    const logs: string[] = [];
    try {
      const report = await runAgenticBench(
        benchOptions(server.url, dir, {
          seed: 3,
          warmupRequestsPerLane: 2,
          warmupGraceS: 1000,
          benchmarkGraceS: 1000,
        }),
        { log: (line) => logs.push(line) },
      );
      const a = report.result.agentic;
      expect(a?.accounting.recordsProfiled).toBe(0);
      expect(a?.submissionInvalidReasons).toContain('run_cancelled');
      expect(report.result.valid).toBe(false);
      expect(logs.join('\n')).toMatch(/warmup request .* of lane 0's root failed/);
    } finally {
      await server.close();
    }
  }, 60_000);
});
