import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FixedRow } from '../src/schema/matrix-row.ts';
import { tmpDir } from './helpers.ts';
import { syntheticRow, syntheticSpec, writeSyntheticRun } from './support/synthetic.ts';
import { FAST, infx, renameRun, smallRow, writeMatrix } from './sweep-helpers.ts';

/** Real run directories for the compare and plot suites: a small sweep of the simulated engine. */

/** Sweeps Llama-3.1-8B on H100 at concurrencies 1, 2, 4 into `<out>/<runId>`; returns the run directory. */
export async function smallSweep(runId: string, extra: readonly string[] = []): Promise<string> {
  const out = tmpDir('infx-analysis-');
  const matrix = writeMatrix(out, [smallRow({ conc: [1, 2, 4] })]);
  const r = await infx(['sweep', '--matrix', matrix, '--out', out, '--run-id', runId, ...FAST, ...extra]);
  if (r.code !== 0) throw new Error(`sweep ${runId} failed (${r.code}): ${r.stderr}`);
  return join(out, runId);
}

/** result.json of every ok attempt of a run directory, by concurrency. */
export function resultFiles(runDir: string): Map<number, string> {
  const out = new Map<number, string>();
  for (const id of readdirSync(join(runDir, 'points'))) {
    const conc = Number(/_conc(\d+)(?:_|$)/.exec(id)?.[1]);
    const attempts = readdirSync(join(runDir, 'points', id)).filter((n) => n.startsWith('attempt-'));
    for (const a of attempts) out.set(conc, join(runDir, 'points', id, a, 'result.json'));
  }
  return out;
}

/**
 * A copy of a real run directory under a new run id, with hand-set metrics per concurrency
 * (interactivity median, total throughput per GPU; the measured ones where none is given), all points
 * valid: for hand-computed comparisons that do not depend on what the host measured.
 */
export function syntheticRun(
  from: string,
  runId: string,
  metrics: Record<number, [number, number]> = {},
): string {
  const dir = join(tmpDir('infx-synthetic-'), runId);
  cpSync(from, dir, { recursive: true });
  renameRun(dir, runId);
  for (const [conc, path] of resultFiles(dir)) {
    const set = metrics[conc];
    const r = JSON.parse(readFileSync(path, 'utf8'));
    if (set !== undefined) [r.interactivity.median, r.throughput.perGpu.total] = set;
    r.valid = true;
    writeFileSync(path, JSON.stringify(r));
  }
  return dir;
}

/** The config of handSetRun: DeepSeek-R1 FP8 on 8 H200 with SGLang, 1k/1k. */
export const HAND_SET_LABEL = 'dsr1 1k/1k h200 sglang fp8 tp8';

/**
 * A run directory written from scratch (no sweep, no engine: nothing the host does can change it) with
 * hand-set metrics per concurrency (interactivity median, total throughput per GPU), all points valid.
 * `createdAt` orders runs in the database (the newest official result is `official`). Its results say a
 * real engine served them, unless `engine: 'simulated'`.
 */
export function handSetRun(
  runId: string,
  metrics: Record<number, [number, number]>,
  createdAt = '2026-01-01T00:00:00.000Z',
  opts: { engine?: 'simulated' | 'real' } = {},
): string {
  const row = syntheticRow();
  const concs = Object.keys(metrics).map(Number);
  const dir = writeSyntheticRun(
    tmpDir('infx-hand-set-'),
    runId,
    concs.map((conc) => ({ row, conc, attempts: [{ kind: 'ok' }] })),
    createdAt,
    opts,
  );
  for (const [conc, path] of resultFiles(dir)) {
    const r = JSON.parse(readFileSync(path, 'utf8'));
    [r.interactivity.median, r.throughput.perGpu.total] = metrics[conc]!;
    r.valid = true;
    writeFileSync(path, JSON.stringify(r));
  }
  return dir;
}

/** One config of handSetConfigs: its row and hand-set (interactivity median, throughput/GPU) per concurrency. */
export interface HandSetConfig {
  row: FixedRow;
  metrics: Record<number, [number, number]>;
}

/**
 * handSetRun with several configs in one run (single-node or disaggregated rows): every point valid, with
 * its hand-set interactivity median and total throughput per GPU.
 */
export function handSetConfigs(
  runId: string,
  configs: readonly HandSetConfig[],
  createdAt = '2026-01-01T00:00:00.000Z',
  opts: { engine?: 'simulated' | 'real' } = {},
): string {
  const points = configs.flatMap((c) =>
    Object.keys(c.metrics).map((k) => ({ row: c.row, conc: Number(k), attempts: [{ kind: 'ok' as const }] })),
  );
  const dir = writeSyntheticRun(tmpDir('infx-hand-set-'), runId, points, createdAt, opts);
  points.forEach((p, i) => {
    const spec = syntheticSpec(runId, i, p.row, p.conc, opts.engine);
    const path = join(dir, 'points', spec.pointId, 'attempt-1', 'result.json');
    const r = JSON.parse(readFileSync(path, 'utf8'));
    const c = configs.find((x) => x.row === p.row)!;
    [r.interactivity.median, r.throughput.perGpu.total] = c.metrics[p.conc]!;
    r.valid = true;
    writeFileSync(path, JSON.stringify(r));
  });
  return dir;
}

/** A disaggregated row on the handSetRun model and GPU: `prefillWorkers`×TP4 prefill, `decodeWorkers`×TP4 decode over NIXL. */
export function disaggRow(
  prefillWorkers: number,
  decodeWorkers: number,
  over: Partial<FixedRow> = {},
): FixedRow {
  const worker = (n: number) => ({
    'num-worker': n,
    tp: 4,
    ep: 1,
    'dp-attn': false,
    pp: 1,
    'dcp-size': 1,
    'pcp-size': 1,
  });
  const {
    tp: _tp,
    ep: _ep,
    'dp-attn': _dpa,
    pp: _pp,
    'dcp-size': _d,
    'pcp-size': _p,
    ...common
  } = syntheticRow();
  return {
    ...common,
    'exp-name': 'dsr1_1k1k_disagg',
    prefill: worker(prefillWorkers),
    decode: worker(decodeWorkers),
    conc: [1],
    disagg: true,
    'kv-p2p-transfer': 'nixl',
    ...over,
  } as FixedRow;
}
