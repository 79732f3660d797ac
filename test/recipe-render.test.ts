import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseMatrixRow, pickConc } from '../src/engines/point-file.ts';
import { RecipeError, renderRecipeWithWarnings } from '../src/engines/recipe.ts';
import { EngineLaunchSchema } from '../src/schema/engine-launch.ts';
import type { MatrixRow } from '../src/schema/matrix-row.ts';
import { FIXTURES_SKIP_REASON, fixture, fixturesAvailable, runCli, tmpDir } from './helpers.ts';
import { agenticRow, type Fields, fixedRow, multiRow, rowWorker } from './rows.ts';

const dir = tmpDir('infx-recipe-render-');
const WORK = '/work/infx';
// Containers mount the host's Hugging Face cache: a fixed one keeps the snapshots the same on every host.
process.env.HF_HOME = '/data/hf-cache';

function pointFile(name: string, row: unknown): string {
  const path = join(dir, `${name}.json`);
  writeFileSync(path, JSON.stringify(row));
  return path;
}

async function render(name: string, row: unknown, ...flags: string[]) {
  return runCli(['recipe', 'render', '--point', pointFile(name, row), '--work-dir', WORK, ...flags]);
}

/** stdout, then stderr (notes and warnings), as one snapshot file per case. */
async function snapshot(name: string, row: unknown, ...flags: string[]) {
  const r = await render(name, row, ...flags);
  expect(r.code, r.stderr).toBe(0);
  await expect(`${r.stdout}--- stderr\n${r.stderr}`).toMatchFileSnapshot(
    `__snapshots__/recipe-render/${name}.txt`,
  );
}

const vllmRow = (over: Fields = {}) =>
  fixedRow({
    image: 'vllm/vllm-openai:v0.20.1',
    model: 'deepseek-ai/DeepSeek-R1-0528',
    'model-prefix': 'dsr1',
    framework: 'vllm',
    runner: 'h200',
    isl: 1024,
    osl: 1024,
    'max-model-len': 2304,
    conc: 64,
    'exp-name': 'dsr1_1k1k',
    ...over,
  });

/** DeepSeek-V4 agentic on SGLang: DP attention + EP + MTP at the golden AL, HiCache offload. */
const sglangRow = () =>
  agenticRow(8, 32, {
    image: 'lmsysorg/sglang:v0.5.17-cu130',
    model: 'deepseek-ai/DeepSeek-V4-Pro',
    'model-prefix': 'dsv4',
    precision: 'fp4',
    ep: 8,
    'dp-attn': true,
    'spec-decoding': 'mtp',
    'kv-offloading': 'dram',
    'kv-offload-backend': { name: 'hicache' },
    'total-cpu-dram-gb': 1600,
    'exp-name': 'dsv4_tp8_conc32_kvdram-hicache_spec-mtp',
  });

const trtRow = () =>
  fixedRow({
    image: 'nvcr.io#nvidia/tensorrt-llm/release:1.3.0rc24',
    model: 'nvidia/DeepSeek-R1-0528-NVFP4-v2',
    'model-prefix': 'dsr1',
    precision: 'fp4',
    framework: 'trt',
    runner: 'b200',
    ep: 8,
    'spec-decoding': 'mtp',
    conc: 32,
    'exp-name': 'dsr1_8k1k',
  });

/** 1 prefill worker at TP4, 2 decode workers at TP8 EP8 with DP attention, KV over NIXL. */
const dynamoRow = () =>
  multiRow([16, 64], {
    image: 'vllm/vllm-openai:v0.20.1',
    model: 'deepseek-ai/DeepSeek-V4-Pro',
    'model-prefix': 'dsv4',
    framework: 'dynamo-vllm',
    prefill: rowWorker(1, 4),
    decode: rowWorker(2, 8, { ep: 8, 'dp-attn': true }),
    router: { name: 'dynamo-router', version: '1.2.0' },
  });

/** SGLang prefill/decode over MoRI behind sglang-router; the decode worker spans two nodes. */
const sglangDisaggRow = () =>
  multiRow([8], {
    image: 'lmsysorg/sglang:v0.5.16-rocm720-mi35x',
    model: 'Qwen/Qwen3.5-397B-A17B-FP8',
    'model-prefix': 'qwen3.5',
    precision: 'fp8',
    framework: 'sglang-disagg',
    runner: 'mi355x-disagg',
    prefill: rowWorker(2, 8),
    decode: rowWorker(1, 16),
    router: { name: 'sglang-router', version: '0.3.2' },
    'kv-p2p-transfer': 'mori',
  });

describe('infx recipe render: text snapshots', () => {
  it('vLLM, single node', () => snapshot('vllm-single', vllmRow()));
  it('SGLang, single node: DP attention, EP, MTP at the golden AL, HiCache', () =>
    snapshot('sglang-single-dpa-ep-mtp', sglangRow()));
  it('TensorRT-LLM, single node, MTP: the options YAML', () => snapshot('trt-single-mtp', trtRow()));
  it('Dynamo vLLM, disaggregated: 1P TP4 + 2D TP8 EP8 DPA over NIXL', () =>
    snapshot('dynamo-vllm-disagg', dynamoRow(), '--conc', '64'));
  it('docker', () => snapshot('container-docker', vllmRow(), '--container', 'docker'));
  it('podman', () => snapshot('container-podman', sglangRow(), '--container', 'podman', '--port', '30000'));
  it('srun', () => snapshot('container-srun', sglangDisaggRow(), '--container', 'srun'));
});

describe('infx recipe render: formats, notes and errors', () => {
  it('--format json prints the EngineLaunch', async () => {
    const r = await render('json', trtRow(), '--format', 'json');
    expect(r.code, r.stderr).toBe(0);
    const launch = EngineLaunchSchema.parse(JSON.parse(r.stdout));
    expect(launch.processes[0]?.files[0]?.path).toBe(`${WORK}/trtllm-server-0.yaml`);
  });

  it('renders the first concurrency of a multi-concurrency row and says so', async () => {
    const r = await render('multi-conc', dynamoRow());
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      'note: the row lists concurrencies 16, 64: rendering conc 16 (pick one with --conc)',
    );
  });

  it('--acceptance real and a number', async () => {
    const real = await render('acc-real', sglangRow(), '--acceptance', 'real');
    expect(real.stdout).not.toContain('SGLANG_SIMULATE_ACC_LEN');
    const pinned = await render('acc-num', sglangRow(), '--acceptance', '2.2');
    expect(pinned.stdout).toContain('export SGLANG_SIMULATE_ACC_LEN=2.2\n');
  });

  it.each([
    ['a missing file', ['--point', '/nonexistent/row.json'], /error: cannot read \/nonexistent\/row\.json/],
    ['not JSON', ['--point', 'NOTJSON'], /is not JSON/],
    ['several rows', ['--point', 'TWO'], /holds 2 rows: pass one row/],
    [
      'a bad row',
      ['--point', 'BAD'],
      /is not a valid single-node fixed-seq-len matrix row: tp: .*pass one row/,
    ],
    [
      'an unknown framework',
      ['--point', 'ATOM'],
      /framework 'atom' has no engine recipe: add recipes\/atom\.sh/,
    ],
  ])('bad input: %s exits 1 with what and how', async (_, args, message) => {
    const files: Record<string, string> = {
      NOTJSON: join(dir, 'not.json'),
      TWO: pointFile('two', [vllmRow(), vllmRow()]),
      BAD: pointFile('bad', { ...(vllmRow() as object), tp: 'eight' }),
      ATOM: pointFile('atom', vllmRow({ framework: 'atom' })),
    };
    writeFileSync(files.NOTJSON as string, '{ nope');
    const r = await runCli(['recipe', 'render', ...args.map((a) => files[a] ?? a)]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it.each([[['--acceptance', 'best']], [['--container', 'lxc']], [['--port', '70000']], [['--conc', '0']]])(
    'bad flags exit 2: %j',
    async (flags) => {
      const r = await render('flags', vllmRow(), ...flags);
      expect(r.code).toBe(2);
    },
  );

  it('infx schema engine-launch exports the contract', async () => {
    const r = await runCli(['schema', 'engine-launch']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).title).toBe('infx engine-launch');
  });
});

describe.skipIf(!fixturesAvailable)(
  `every framework of the reference configs${fixturesAvailable ? '' : ` (${FIXTURES_SKIP_REASON})`}`,
  () => {
    it('renders, or errors naming the framework or recipe and the fix', async () => {
      const rows = JSON.parse(readFileSync(fixture('golden/full-sweep.json'), 'utf8')) as unknown[];
      // One row per shape a recipe branches on keeps this fast.
      const shapes = new Map<string, MatrixRow>();
      for (const [i, raw] of rows.entries()) {
        const row = parseMatrixRow(raw, `full-sweep.json[${i}]`);
        const r = row as Record<string, unknown>;
        const key = JSON.stringify([
          row.framework,
          'prefill' in row,
          r['scenario-type'],
          r.disagg,
          row['spec-decoding'],
          r['kv-p2p-transfer'],
          (r['kv-offload-backend'] as { name?: string } | undefined)?.name,
          row.router?.name,
          row['model-prefix'],
        ]);
        if (!shapes.has(key)) shapes.set(key, row);
      }
      const outcome = new Map<string, string[]>();
      for (const row of shapes.values()) {
        let port = 8000;
        let result: string;
        try {
          const { launch } = await renderRecipeWithWarnings(row, {
            conc: pickConc(row).conc,
            allocatePort: () => port++,
            workDir: WORK,
          });
          EngineLaunchSchema.parse(launch);
          result = 'ok';
        } catch (err) {
          expect(err).toBeInstanceOf(RecipeError);
          const message = (err as Error).message;
          expect(message).toMatch(new RegExp(`${row.framework}|recipes/\\w+\\.sh`));
          result = message.includes('has no engine recipe') ? 'no recipe' : 'refused';
        }
        outcome.set(row.framework, [...new Set([...(outcome.get(row.framework) ?? []), result])]);
      }
      expect(Object.fromEntries([...outcome].sort())).toEqual({
        atom: ['no recipe'],
        'atom-disagg': ['no recipe'],
        'dynamo-sglang': ['ok', 'refused'],
        'dynamo-trt': ['ok'],
        'dynamo-vllm': ['ok'],
        'llmd-vllm': ['ok'],
        sglang: ['ok'],
        'sglang-disagg': ['ok'],
        tilert: ['no recipe'],
        trt: ['ok'],
        vllm: ['ok'],
      });
    });
  },
);
