import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { agenticRow, fixedRow, multiAgenticRow, multiRow, rowWorker } from '../../test/rows.ts';
import type { MatrixRow } from '../schema/matrix-row.ts';
import { defaultRecipesDir } from './frameworks.ts';
import { RecipeError, type RecipeOptions, renderRecipe, renderRecipeWithWarnings } from './recipe.ts';

const RECIPES = resolve(dirname(fileURLToPath(import.meta.url)), '../../recipes');
const tmp = mkdtempSync(join(tmpdir(), 'infx-recipe-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const options = (over: Partial<RecipeOptions> = {}): RecipeOptions => {
  let port = 9000;
  return { conc: 16, allocatePort: () => port++, workDir: '/work', ...over };
};
const argOf = (argv: string[], flag: string) => argv[argv.indexOf(flag) + 1];

describe('recipes/*.sh', () => {
  it('are valid bash', () => {
    for (const f of readdirSync(RECIPES).filter((n) => n.endsWith('.sh'))) {
      const r = spawnSync('bash', ['-n', join(RECIPES, f)], { encoding: 'utf8' });
      expect(r.status, `${f}: ${r.stderr}`).toBe(0);
    }
  });

  it('are found from the sources (and the bundle walks up the same way)', () => {
    expect(defaultRecipesDir()).toBe(RECIPES);
  });
});

describe('renderRecipe', () => {
  it('a single-node row is one server, the front, on the first port', async () => {
    const launch = await renderRecipe(
      fixedRow({ framework: 'vllm', image: 'vllm/vllm-openai:v1' }),
      options(),
    );
    expect(launch).toMatchObject({
      kind: 'recipe',
      framework: 'vllm',
      recipe: 'recipes/vllm.sh',
      container: 'none',
      image: 'vllm/vllm-openai:v1',
      baseUrl: 'http://127.0.0.1:9000',
      readyPath: '/health',
      servedModel: 'm',
    });
    expect(launch.processes).toHaveLength(1);
    expect(launch.processes[0]).toMatchObject({ role: 'server', port: 9000, gpus: 8, nodes: 1 });
    expect(launch.processes[0]?.argv.slice(0, 3)).toEqual(['vllm', 'serve', 'm']);
    expect(argOf(launch.processes[0]?.argv ?? [], '--max-model-len')).toBe('9472');
  });

  it('a disaggregated row: one process per worker, then the router that knows their URLs', async () => {
    const row = multiRow([8, 16], {
      framework: 'sglang-disagg',
      prefill: rowWorker(2, 4),
      decode: rowWorker(1, 8, { ep: 8, 'dp-attn': true }),
      'kv-p2p-transfer': 'mori',
    });
    const launch = await renderRecipe(row, options({ host: '10.0.0.5' }));
    expect(launch.processes.map((p) => [p.role, p.port, p.gpus])).toEqual([
      ['prefill', 9001, 4],
      ['prefill', 9002, 4],
      ['decode', 9003, 8],
      ['router', 9000, 0],
    ]);
    expect(launch.baseUrl).toBe('http://10.0.0.5:9000');
    const router = launch.processes[3]?.argv ?? [];
    expect(router.join(' ')).toContain(
      '--pd-disaggregation --prefill http://10.0.0.5:9001 8998 --prefill http://10.0.0.5:9002 8999 --decode http://10.0.0.5:9003',
    );
    const decode = launch.processes[2]?.argv ?? [];
    expect(decode.join(' ')).toContain('--enable-dp-attention --dp-size 8 --ep-size 8');
    expect(argOf(decode, '--disaggregation-transfer-backend')).toBe('mori');
  });

  it('aggregated servers get a router; a disagg row with an empty pool runs aggregated', async () => {
    const row = multiAgenticRow(4, {
      framework: 'vllm',
      disagg: true,
      prefill: rowWorker(2, 8),
      decode: rowWorker(0, 8),
    });
    const { launch, warnings } = await renderRecipeWithWarnings(row, options());
    expect(launch.processes.map((p) => p.role)).toEqual(['server', 'server', 'router']);
    // Readiness covers each server on its own port as well as the router in front.
    expect(launch.processes.map((p) => p.readyPath)).toEqual(['/health', '/health', undefined]);
    expect(launch.processes[2]?.argv.join(' ')).toContain(
      'vllm-router --worker-urls http://127.0.0.1:9001 http://127.0.0.1:9002 --policy consistent_hash',
    );
    expect(warnings).toContain(
      'the row is marked disagg but one of its pools has no workers: it runs aggregated',
    );
  });

  it('a single-node row that names a router gets it in front, sized to its data-parallel ranks', async () => {
    const row = agenticRow(8, 32, {
      framework: 'vllm',
      ep: 8,
      'dp-attn': true,
      router: { name: 'vllm-router', version: '0.1.14' },
    });
    const launch = await renderRecipe(row, options());
    expect(launch.processes.map((p) => [p.role, p.port])).toEqual([
      ['server', 9001],
      ['router', 9000],
    ]);
    expect(launch.processes[1]?.argv).toEqual([
      'vllm-router',
      '--worker-urls',
      'http://127.0.0.1:9001',
      '--intra-node-data-parallel-size',
      '8',
      '--policy',
      'consistent_hash',
      '--host',
      '0.0.0.0',
      '--port',
      '9000',
    ]);
    // max-num-seqs is per data-parallel rank: 2 × 16 agentic sessions (conc 16) over 8 ranks.
    expect(argOf(launch.processes[0]?.argv ?? [], '--max-num-seqs')).toBe('4');
  });

  it('TensorRT-LLM pins AL − 1 accepted tokens; eval-only rows verify for real', async () => {
    const row = (over = {}) =>
      agenticRow(4, 8, { framework: 'trt', 'model-prefix': 'minimaxm3', 'spec-decoding': 'mtp', ...over });
    const launch = await renderRecipe(row(), options());
    expect(launch.processes[0]?.env).toEqual({ TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS: '1.78' });
    expect(launch.processes[0]?.files[0]?.content).toContain(
      'decoding_type: Eagle3\n  max_draft_len: 3\n  speculative_model: "Inferact/MiniMax-M3-EAGLE3-GQA"\n',
    );
    expect((await renderRecipe(row({ 'eval-only': true }), options())).processes[0]?.env).toEqual({});
  });

  it('vLLM pins the golden AL in its speculative config', async () => {
    const launch = await renderRecipe(
      agenticRow(8, 8, { framework: 'vllm', 'model-prefix': 'dsv4', 'spec-decoding': 'mtp' }),
      options(),
    );
    expect(JSON.parse(argOf(launch.processes[0]?.argv ?? [], '--speculative-config') ?? '')).toEqual({
      method: 'mtp',
      num_speculative_tokens: 3,
      rejection_sample_method: 'synthetic',
      synthetic_acceptance_length: 2.49,
    });
  });

  it('names the framework and the file to add when no recipe renders it', async () => {
    const err = await renderRecipe(fixedRow({ framework: 'atom' }), options()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RecipeError);
    expect((err as Error).message).toMatch(/framework 'atom' has no engine recipe: add recipes\/atom\.sh/);
  });

  it('reports a recipe that refuses a row, with its message', async () => {
    const row = fixedRow({ framework: 'sglang', 'dcp-size': 2 });
    await expect(renderRecipe(row, options())).rejects.toThrow(
      /recipes\/sglang\.sh failed for server 0: sglang\.sh: no context parallelism in this recipe \(dcp-size 2/,
    );
  });

  describe('a recipes folder of ones own', () => {
    const dir = join(tmp, 'recipes');
    const custom = (name: string, body: string) =>
      writeFileSync(join(dir, name), `source "$(dirname "\${BASH_SOURCE[0]}")/lib.sh"\n${body}\n`);

    it('recipes/<framework>.sh wins over the engine mapping, and adds frameworks', async () => {
      rmSync(dir, { recursive: true, force: true });
      spawnSync('mkdir', ['-p', dir]);
      copyFileSync(join(RECIPES, 'lib.sh'), join(dir, 'lib.sh'));
      custom(
        'dynamo-sglang.sh',
        'infx_ready /v1/models\ninfx_exec my-server --port "$INFX_PORT" --tp "$INFX_TP"',
      );
      custom('atom.sh', 'infx_env ATOM_X "a b"\ninfx_exec atom-serve "$INFX_MODEL" --port "$INFX_PORT"');

      const atom = await renderRecipe(fixedRow({ framework: 'atom' }), options({ recipesDir: dir }));
      expect(atom.recipe).toBe('recipes/atom.sh');
      expect(atom.processes[0]).toMatchObject({
        argv: ['atom-serve', 'm', '--port', '9000'],
        env: { ATOM_X: 'a b' },
      });

      const dyn = await renderRecipe(
        fixedRow({ framework: 'dynamo-sglang', tp: 4 }),
        options({ recipesDir: dir }),
      );
      expect(dyn.recipe).toBe('recipes/dynamo-sglang.sh');
      expect(dyn.readyPath).toBe('/v1/models');
      // Dynamo workers serve no HTTP: the override's server has no port, the router is the front.
      expect(dyn.processes.map((p) => [p.role, p.argv.join(' ')])).toEqual([
        ['server', 'my-server --port  --tp 4'],
        ['router', 'my-server --port 9000 --tp 4'],
      ]);
    });

    it('a mapped engine recipe missing from the folder is an error naming it', async () => {
      await expect(
        renderRecipe(fixedRow({ framework: 'vllm' }), options({ recipesDir: dir })),
      ).rejects.toThrow(/needs .*vllm\.sh, which does not exist/);
    });

    it('a folder without lib.sh is not a recipes folder', async () => {
      await expect(renderRecipe(fixedRow(), options({ recipesDir: tmp }))).rejects.toThrow(
        /lib\.sh is missing/,
      );
    });
  });

  it('checks its options', async () => {
    const row: MatrixRow = fixedRow();
    await expect(renderRecipe(row, options({ workDir: 'rel' }))).rejects.toThrow(/absolute/);
    await expect(renderRecipe(row, options({ allocatePort: () => 0 }))).rejects.toThrow(/not a TCP port/);
    await expect(renderRecipe(row, options({ conc: 0 }))).rejects.toThrow(/conc must be/);
  });
});
