import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from './helpers.ts';
import { dsr1H200Row, multiRow, rowWorker } from './rows.ts';

/** `infx sim predict` through the CLI: stdin or a file in, a line or JSON per point out. */

const row = dsr1H200Row();

const cli = (args: string[], stdin = '') => runCli(['sim', 'predict', ...args], stdin);

describe('infx sim predict', () => {
  it('prints one line per point from stdin, or JSON with --format json', async () => {
    const text = await cli([], JSON.stringify([{ ...row, conc: [1, 4] }]));
    expect(text.code).toBe(0);
    expect(text.stdout.trim().split('\n')).toHaveLength(2);
    const json = await cli(['--format', 'json'], JSON.stringify([row]));
    const parsed = JSON.parse(json.stdout);
    expect(parsed[0]).toMatchObject({ status: 'ok', conc: 4, prediction: { gpus: 8 } });
  });

  it('exits 1 with the catalog message for an unknown model, and on bad input', async () => {
    const bad = await cli([], JSON.stringify([{ ...row, model: 'acme/Nope-1T', 'model-prefix': 'nope' }]));
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^error: .*unknown model 'acme\/Nope-1T'/);
    expect((await cli([], '')).code).toBe(1);
    expect((await cli([], '{not json')).stderr).toMatch(/not valid JSON/);
    expect((await cli(['/nonexistent/rows.json'])).stderr).toMatch(/does not exist/);
  });

  it('says when its window is unsteady: the halves of the window disagree (JSON: halves)', async () => {
    // DeepSeek-R1 8k/1k with MTP on 8×B300 at 512 users with a BF16 KV cache (the script's FP8 one holds the
    // users more evenly): the prefills come round in a wave, so median TTFT differs by more than 50 % between
    // the window's two cycles.
    const b300 = {
      ...row,
      runner: 'b300',
      isl: 8192,
      osl: 1024,
      tp: 8,
      'max-model-len': 9472,
      'spec-decoding': 'mtp',
      conc: 512,
    };
    const bf16 = ['--kv-cache-dtype', 'bf16'];
    const text = await cli(bf16, JSON.stringify([b300]));
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/unsteady: the window's halves differ by median TTFT \d+ %/);
    type Out = { prediction: { halves: { throughput: number; ttftMedian: number } | null } };
    const [unsteady] = JSON.parse(
      (await cli([...bf16, '--format', 'json'], JSON.stringify([b300]))).stdout,
    ) as Out[];
    expect(unsteady!.prediction.halves!.ttftMedian).toBeGreaterThan(0.5);
    const [steady] = JSON.parse(
      (await cli(['--format', 'json'], JSON.stringify([{ ...row, conc: 4 }]))).stdout,
    ) as Out[];
    expect(steady!.prediction.halves!.ttftMedian).toBeLessThan(0.5);
    expect((await cli([], JSON.stringify([{ ...row, conc: 4 }]))).stdout).not.toMatch(/unsteady/);
  });

  it('refuses a point that would simulate more than 4,194,304 requests, naming the row and what to lower', async () => {
    const huge = await cli([], JSON.stringify([{ ...row, conc: 3_000_000 }]));
    expect(huge.code).toBe(1);
    expect(huge.stdout + huge.stderr).toMatch(
      /row 0: conc 3000000 needs 6000000 requests.*at most 4194304 \(lower the concurrency\)/,
    );
    const prompts = await cli(['--as-measured', '--num-prompts', '5000000'], JSON.stringify([row]));
    expect(prompts.code).toBe(1);
    expect(prompts.stdout + prompts.stderr).toMatch(/--num-prompts = 5000000 requests.*or --num-prompts/);
  });

  it('--exact runs the full co-simulation: the same figures without spec decoding; --fast conflicts with it', async () => {
    const rows = JSON.stringify([{ ...row, conc: [1, 64] }]);
    const fast = await cli(['--format', 'json'], rows);
    const exact = await cli(['--format', 'json', '--exact'], rows);
    expect(exact.code).toBe(0);
    const figures = (text: string) =>
      (JSON.parse(text) as { prediction: { throughputPerGpu: number; ttftMs: unknown } }[]).map((o) => [
        o.prediction.throughputPerGpu,
        o.prediction.ttftMs,
      ]);
    expect(figures(fast.stdout)).toEqual(figures(exact.stdout));
    const both = await cli(['--exact', '--fast'], rows);
    expect(both.code).not.toBe(0);
    expect(both.stderr).toMatch(/--exact.*cannot be used with.*--fast|--fast.*cannot be used with.*--exact/);
  });

  it('folds a prefill-bound queue past saturation and says so; --no-fold simulates every user, within 2 %', async () => {
    const rows = JSON.stringify([
      multiRow([2048], {
        model: 'deepseek-ai/DeepSeek-R1-0528',
        'model-prefix': 'dsr1',
        framework: 'dynamo-sglang',
        precision: 'fp8',
        osl: 256,
        'max-model-len': 8704,
        prefill: rowWorker(1, 4),
        decode: rowWorker(2, 8),
      }),
    ]);
    const text = await cli([], rows);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/queue folded: \d+ users simulated, \d+ ms queued before the first token/);
    type Out = {
      prediction: { fold: { users: number } | null; throughputPerGpu: number; ttftMs: { median: number } };
    };
    const [folded] = JSON.parse((await cli(['--format', 'json'], rows)).stdout) as Out[];
    const [full] = JSON.parse((await cli(['--format', 'json', '--no-fold'], rows)).stdout) as Out[];
    expect(folded!.prediction.fold!.users).toBeLessThan(1024);
    expect(full!.prediction.fold).toBeNull();
    const off = (a: number, b: number) => Math.abs(a / b - 1);
    expect(off(folded!.prediction.throughputPerGpu, full!.prediction.throughputPerGpu)).toBeLessThan(0.02);
    expect(off(folded!.prediction.ttftMs.median, full!.prediction.ttftMs.median)).toBeLessThan(0.02);
    const [exact] = JSON.parse((await cli(['--exact', '--format', 'json'], rows)).stdout) as Out[];
    expect(exact!.prediction.fold).toBeNull();
  });

  it('--explain prints the memory split, KV dtype and binding per phase; --kv-cache-dtype fp8 doubles KV tokens', async () => {
    const one = JSON.stringify([{ ...row, framework: 'vllm', isl: 8192, osl: 1024, conc: 8 }]);
    const text = await cli(['--explain'], one);
    expect(text.code).toBe(0);
    const lines = text.stdout.trim().split('\n');
    expect(lines).toHaveLength(7);
    expect(lines[1]).toMatch(
      /memory \(engine, h200, per rank\): .* = weights [\d.]+ \+ reserve [\d.]+ \+ KV [\d.]+/,
    );
    expect(lines[2]).toMatch(/KV cache: bf16 \(vllm: kv-cache-dtype auto/);
    expect(lines[3]).toMatch(/^ {2}token budget: 8192 per step \(vllm: --max-num-batched-tokens 8192 holds/);
    expect(lines[4]).toMatch(
      /^ {2}CUDA graphs: decode batches up to 512 tokens per rank \(vllm: vLLM's default/,
    );
    expect(lines[5]).toMatch(/^ {2}prefill: .* bound by compute/);
    expect(lines[6]).toMatch(/^ {2}decode: 8 seq .* bound by /);
    const kv = async (args: string[]) =>
      JSON.parse((await cli(['--format', 'json', ...args], one)).stdout)[0].prediction
        .kvCapacityTokens as number;
    const bf16 = await kv([]);
    const fp8 = await kv(['--kv-cache-dtype', 'fp8']);
    expect(fp8 / bf16).toBeCloseTo(2, 2);
    const json = JSON.parse((await cli(['--format', 'json', '--explain'], one)).stdout);
    expect(json[0].explain.memory[0]).toMatchObject({
      kvPrecision: 'bf16',
      fractionOf: 'total',
      cudaGraphs: { ceiling: 512, unit: 'tokens' },
    });
  });
});

describe('infx sim predict --jobs (the built CLI)', () => {
  const BIN = join(REPO_ROOT, 'bin/infx.js');
  const predict = (args: string[], input: string) =>
    spawnSync(process.execPath, [BIN, 'sim', 'predict', '--format', 'json', ...args], {
      input,
      encoding: 'utf8',
      timeout: 120_000,
    });

  it('predicts on several threads with the same outcomes, in the same order, as on one', () => {
    const spec = { ...row, 'spec-decoding': 'mtp' };
    const rows = JSON.stringify([
      { ...row, conc: [1, 4, 16, 64] },
      { ...spec, conc: [2, 8, 32] },
      { ...row, model: 'acme/Nope-1T', 'model-prefix': 'nope', conc: [4] },
      { ...row, conc: [128, 8] },
    ]);
    const one = predict(['--jobs', '1'], rows);
    const two = predict(['--jobs', '2'], rows);
    // The unknown model is an error outcome in both, so both exit 1 and name it.
    expect(one.status, one.stderr).toBe(1);
    expect(two.status, two.stderr).toBe(1);
    expect(two.stderr).toBe(one.stderr);
    expect(two.stdout).toBe(one.stdout);
    const outcomes = JSON.parse(two.stdout) as { row: number; conc: number; status: string }[];
    expect(outcomes.map((o) => [o.row, o.conc])).toEqual([
      [0, 1],
      [0, 4],
      [0, 16],
      [0, 64],
      [1, 2],
      [1, 8],
      [1, 32],
      [2, 4],
      [3, 128],
      [3, 8],
    ]);
    expect(outcomes.filter((o) => o.status === 'ok')).toHaveLength(9);
    expect(predict(['--jobs', '0'], rows).stderr).toMatch(/must be a positive integer/);
  });
});
