import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arrivalOffsetsMs } from '../src/client/arrivals.ts';
import { type PointResult, PointResultSchema } from '../src/schema/point-result.ts';
import { type RequestRecord, RequestRecordSchema } from '../src/schema/request-record.ts';
import { assertFixedSeqLen } from '../src/schema/workload.ts';
import { predictPoint } from '../src/sim/engine/predict.ts';
import { seededRandom } from '../src/workload/random.ts';
import { type ServerProcess, spawnServer } from './client-helpers.ts';
import { startCpuLoad } from './cpu-load.ts';
import { runCli, tmpDir } from './helpers.ts';

/**
 * infx bench against infx sim serve, each in its own process: the figures come from the engine's clock,
 * in lockstep, so a loaded machine gives the figures of an idle one (or an engine-limited point, never a
 * silently wrong one); --request-rate is simulated time; Unix timestamps are real.
 */

const MODEL = 'meta-llama/Llama-3.1-8B-Instruct';
const SETUP = { model: MODEL, hardware: 'h100' } as const;
let sim: ServerProcess;

beforeAll(async () => {
  sim = await spawnServer(['sim', 'serve', '--model', MODEL, '--hardware', 'h100', '--time-scale', '40']);
});
afterAll(async () => {
  await sim?.stop();
});

async function bench(
  extra: string[],
  conc = 16,
  prompts = 64,
): Promise<{ result: PointResult; records: RequestRecord[]; dir: string; stderr: string }> {
  const dir = tmpDir('infx-sim-clock-');
  const out = await runCli([
    'bench',
    '--base-url',
    sim.url,
    '--model',
    MODEL,
    '--isl',
    '512',
    '--osl',
    '64',
    '--concurrency',
    String(conc),
    '--num-prompts',
    String(prompts),
    '--warmup',
    String(conc),
    '--gpus',
    '1',
    '--out',
    dir,
    ...extra,
  ]);
  expect([0, 1], out.stderr).toContain(out.code);
  const result = PointResultSchema.parse(JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')));
  const records = readFileSync(join(dir, 'requests.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => RequestRecordSchema.parse(JSON.parse(l)));
  return { result, records, dir, stderr: out.stderr };
}

const figures = (r: PointResult) => ({
  tput: r.throughput.perGpu.total!,
  output: r.throughput.perGpu.output!,
  intvty: r.interactivity.median!,
  ttft: r.latency.ttftMs.median!,
  e2el: r.latency.e2elMs.median!,
});

/** The same requests, lengths and order through the engine in virtual time: what the point should give. */
function replay(r: PointResult, records: RequestRecord[]) {
  assertFixedSeqLen(r.workload);
  const requests = records
    .filter((q) => q.phase === 'benchmark' && q.ok)
    .sort((a, b) => a.index - b.index)
    .map((q) => ({ promptTokens: q.inputTokens.server!, outputTokens: q.outputTokens.server! }));
  const p = predictPoint({
    ...SETUP,
    isl: r.workload.isl,
    osl: r.workload.osl,
    concurrency: r.load.concurrency,
    method: 'as-measured',
    requests,
  });
  return {
    tput: p.throughputPerGpu,
    output: p.outputThroughputPerGpu,
    intvty: p.interactivity,
    ttft: p.ttftMs.median,
    e2el: p.e2eMs.median,
  };
}

function within(got: Record<string, number>, want: Record<string, number>, tol: number) {
  for (const k of Object.keys(want)) expect(Math.abs(got[k]! / want[k]! - 1), k).toBeLessThanOrEqual(tol);
}

describe('simulated results that do not depend on the host', () => {
  it('a point run while two CPU-bound processes compete gives the idle figures and the predicted ones', async () => {
    const idle = await bench([]);
    expect(idle.result.engine).toMatchObject({
      kind: 'simulated',
      clock: 'engine',
      lockstep: true,
      timeScale: 40,
      engineLimited: false,
    });
    expect(idle.result.engine.simulator).toMatch(/^infx-sim\//);
    expect(idle.result.engine.lag?.lockstepWaits).toBeGreaterThan(0);
    expect(idle.records.every((r) => r.engine !== null)).toBe(true);
    const load = startCpuLoad(2);
    let loaded: Awaited<ReturnType<typeof bench>>;
    try {
      loaded = await bench([]);
    } finally {
      await load.stop();
    }
    // Never silently wrong: the loaded point is either right or says it is not valid because of the engine.
    if (loaded.result.engine.engineLimited) expect(loaded.result.valid).toBe(false);
    else {
      within(figures(loaded.result), figures(idle.result), 0.02);
      within(figures(loaded.result), replay(loaded.result, loaded.records), 0.05);
    }
    within(figures(idle.result), replay(idle.result, idle.records), 0.05);
    // The wall-clock reading is kept beside the engine's, and the summary says the figures are simulated.
    expect(idle.result.wallClock?.throughput.perGpu.total).toBeGreaterThan(0);
    expect(idle.stderr).toContain('simulated engine');
  }, 120_000);

  it('warns when --gpus disagrees with the GPUs the simulated engine announces', async () => {
    const { result, stderr } = await bench(['--gpus', '8'], 2, 4);
    expect(stderr).toContain('warning: --gpus says 8 but the simulated engine says it runs on 1');
    expect(result.gpus.total).toBe(8); // as given: the warning never changes a figure silently
  }, 60_000);

  it('timestamps in result.json and inferencex.json are real wall-clock times', async () => {
    const before = Date.now();
    const { result, dir } = await bench(['--format', 'inferencex'], 4, 8);
    const after = Date.now();
    expect(result.timing.startUnixMs).toBeGreaterThanOrEqual(before);
    expect(result.timing.endUnixMs).toBeLessThanOrEqual(after);
    expect(result.timing.endUnixMs).toBeGreaterThan(result.timing.startUnixMs);
    // The window on the engine clock is simulated time: longer than the wall time it took at 40x.
    expect(result.timing.durationS).toBeGreaterThan(result.timing.wallDurationS);
    const raw = JSON.parse(readFileSync(join(dir, 'inferencex.json'), 'utf8'));
    expect(raw.benchmark_start_time_unix * 1000).toBeGreaterThanOrEqual(before - 1);
    expect(raw.benchmark_end_time_unix * 1000).toBeLessThanOrEqual(after + 1);
    expect(raw.duration).toBeCloseTo(result.timing.durationS, 6);
  }, 60_000);

  it('--request-rate is in simulated time: arrivals follow the schedule on the engine clock', async () => {
    const n = 24;
    const { result, records } = await bench(['--request-rate', '4', '--seed', '3'], 8, n);
    expect(result.engine.clock).toBe('engine');
    const offsets = arrivalOffsetsMs(n, 4, 1, seededRandom(3, 'arrivals').float);
    const bench_ = records.filter((r) => r.phase === 'benchmark').sort((a, b) => a.index - b.index);
    const due = bench_.map((r) => r.engine!.scheduledMs!);
    for (let i = 1; i < n; i++) expect(due[i]! - due[0]!).toBeCloseTo(offsets[i]! - offsets[0]!, 2);
    // A request never arrives before it is due; the simulated rate is the asked-for one.
    for (const r of bench_) expect(r.engine!.arrivalMs).toBeGreaterThanOrEqual(r.engine!.scheduledMs! - 1e-6);
    const spanS = (due[n - 1]! - due[0]!) / 1000;
    expect((n - 1) / spanS).toBeCloseTo((n - 1) / ((offsets[n - 1]! - offsets[0]!) / 1000), 3);
  }, 60_000);

  it('on the wall clock (--clock wall), --request-rate is scaled to the engine: 4 req/s of simulated time', async () => {
    const n = 16;
    const { result, records } = await bench(['--request-rate', '4', '--seed', '3', '--clock', 'wall'], 8, n);
    expect(result.engine).toMatchObject({ clock: 'wall', lockstep: false });
    expect(result.wallClock).toBeNull();
    const offsets = arrivalOffsetsMs(n, 4, 1, seededRandom(3, 'arrivals').float);
    const sched = records
      .filter((r) => r.phase === 'benchmark')
      .sort((a, b) => a.index - b.index)
      .map((r) => r.scheduledMs * 40);
    // Wall-clock schedules hold to a few wall ms, i.e. a few tens of simulated ms at 40x.
    const span = sched[n - 1]! - sched[0]!;
    expect(span).toBeGreaterThan((offsets[n - 1]! - offsets[0]!) * 0.9);
    expect(span).toBeLessThan((offsets[n - 1]! - offsets[0]!) * 1.1 + 200);
  }, 60_000);
});
