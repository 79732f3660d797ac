import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MatrixRow } from '../src/schema/matrix-row.ts';
import { PointResultSchema } from '../src/schema/point-result.ts';
import { PointStatusSchema } from '../src/schema/run-dir.ts';
import { tmpDir } from './helpers.ts';
import { rowWorker } from './rows.ts';
import { FAST, infx, processesMentioning, readJson, writeMatrix } from './sweep-helpers.ts';

/**
 * Packed TP4 (user thread 000): two TP4 engines on one 8-GPU node behind one endpoint, as an aggregated
 * multi-node row (decode num-worker 0). It sweeps on the simulated engine with all 8 GPUs in the
 * denominator, as predict and the dry run count them; a row the simulator cannot run is refused before
 * any engine starts.
 */

const worker = (n: number) => rowWorker(n, 4);
const packed = (over: Record<string, unknown> = {}) =>
  ({
    image: 'vllm/vllm-openai:v0.11.0',
    model: 'meta-llama/Llama-3.1-8B-Instruct',
    'model-prefix': 'llama8b',
    precision: 'bf16',
    framework: 'vllm',
    runner: 'h100',
    isl: 256,
    osl: 64,
    'spec-decoding': 'none',
    prefill: worker(2),
    decode: worker(0),
    conc: [4],
    'max-model-len': 576,
    'exp-name': 'llama8b_256_64',
    disagg: false,
    'run-eval': false,
    ...over,
  }) as unknown as MatrixRow;

describe('infx sweep: rows of several workers on the simulated engine', () => {
  it('packed TP4 runs as one pool of two TP4 engines, with 8 GPUs in the denominator', async () => {
    const out = tmpDir();
    const matrix = writeMatrix(out, [packed()]);
    const plan = await infx(['sweep', '--matrix', matrix, '--out', out, '--dry-run']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('1 point, 8 GPU-slots in all');
    expect(plan.stdout).toMatch(/conc 4, ISL 256 OSL 64, \d+ prompts \+ \d+ warmup, 8 GPUs$/m);
    const predicted = await infx(['sim', 'predict', matrix]);
    expect(predicted.code, predicted.stderr).toBe(0);
    expect(predicted.stdout).toContain('(median; 8 GPUs; simulated)');
    const r = await infx(['sweep', '--matrix', matrix, '--out', out, '--run-id', 'packed', ...FAST]);
    expect(r.code, r.stderr).toBe(0);
    const runDir = join(out, 'packed');
    const [id] = readdirSync(join(runDir, 'points'));
    const dir = join(runDir, 'points', id as string, 'attempt-1');
    expect(PointStatusSchema.parse(readJson(join(dir, 'status.json')))).toMatchObject({
      status: 'ok',
      valid: true,
    });
    const result = PointResultSchema.parse(readJson(join(dir, 'result.json')));
    expect(result.gpus).toEqual({ total: 8, prefill: null, decode: null });
    expect(processesMentioning(runDir)).toEqual([]);
  }, 120_000);

  it('a row the simulator cannot run is refused before any engine starts, with the reason', async () => {
    const out = tmpDir();
    const matrix = writeMatrix(out, [packed({ model: 'acme/NoSuchModel-7B' })]);
    const r = await infx(['sweep', '--matrix', matrix, '--out', out, '--run-id', 'bad', ...FAST]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('pre-flight check failed, no point was started');
    expect(r.stderr).toContain(
      "the simulated engine cannot run this row: unknown model 'acme/NoSuchModel-7B'",
    );
    const points = join(out, 'bad', 'points');
    expect(existsSync(points) ? readdirSync(points) : []).toEqual([]);
  }, 60_000);

  it('2P4/2D4 (thread 000): two TP4 prefill and two TP4 decode workers sweep with all 16 GPUs, split by pool', async () => {
    const out = tmpDir();
    const row = packed({ prefill: worker(2), decode: worker(2), disagg: true, 'kv-p2p-transfer': 'nixl' });
    const matrix = writeMatrix(out, [row]);
    const r = await infx(['sweep', '--matrix', matrix, '--out', out, '--run-id', 'pd', ...FAST]);
    expect(r.code, r.stderr).toBe(0);
    const runDir = join(out, 'pd');
    const [id] = readdirSync(join(runDir, 'points'));
    const dir = join(runDir, 'points', id as string, 'attempt-1');
    expect(PointStatusSchema.parse(readJson(join(dir, 'status.json')))).toMatchObject({
      status: 'ok',
      valid: true,
    });
    expect(PointResultSchema.parse(readJson(join(dir, 'result.json'))).gpus).toEqual({
      total: 16,
      prefill: 8,
      decode: 8,
    });
    expect(processesMentioning(runDir)).toEqual([]);
  }, 120_000);
});
