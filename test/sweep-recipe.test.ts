import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PointResultSchema } from '../src/schema/point-result.ts';
import { PointAttemptSchema, PointStatusSchema } from '../src/schema/run-dir.ts';
import { REPO_ROOT, tmpDir } from './helpers.ts';
import { BIN, infx, processesMentioning, readJson, smallRow, writeMatrix } from './sweep-helpers.ts';

/**
 * `--engine recipe` end to end: the sweep renders the row's recipe, starts what it prints as a process
 * group, waits on its readiness path and tears it down. No GPU here, so the vLLM recipe is overridden (as a
 * user would, with INFX_RECIPES_DIR) by one whose server is the simulated engine.
 */

function recipesDir(): string {
  const dir = join(tmpDir(), 'recipes');
  mkdirSync(dir);
  copyFileSync(join(REPO_ROOT, 'recipes/lib.sh'), join(dir, 'lib.sh'));
  writeFileSync(
    join(dir, 'vllm.sh'),
    [
      'source "$(dirname "$0")/lib.sh"',
      'infx_require INFX_MODEL INFX_PORT INFX_TP INFX_CONC',
      'infx_env INFX_RECIPE_MARK "conc $INFX_CONC"',
      `infx_exec node ${BIN} sim serve --model "$INFX_MODEL" --hardware h100 --tp "$INFX_TP" \\`,
      '  --host 127.0.0.1 --port "$INFX_PORT" --time-scale 20',
      '',
    ].join('\n'),
  );
  return dir;
}

describe('infx sweep --engine recipe', () => {
  it('launches the rendered recipe, benchmarks it and stops it', async () => {
    const out = tmpDir();
    const matrix = writeMatrix(out, [smallRow({ conc: 2 })]);
    // INFX_GPUS=none: on a GPU host the point would be pinned, adding CUDA_VISIBLE_DEVICES to its env.
    const env = { INFX_RECIPES_DIR: recipesDir(), INFX_GPUS: 'none' };
    const args = [
      '--matrix',
      matrix,
      '--out',
      out,
      '--engine',
      'recipe',
      '--num-prompts',
      '8',
      '--warmup',
      '2',
    ];
    const plan = await infx(['sweep', ...args, '--dry-run'], env);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(
      /server: INFX_RECIPE_MARK='conc 2' node \S+ sim serve --model meta-llama\/Llama-3\.1-8B-Instruct --hardware h100 --tp 1/,
    );

    const r = await infx(['sweep', ...args, '--run-id', 'recipe'], env);
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    const runDir = join(out, 'recipe');
    const id = smallRow({ conc: 2 })['exp-name'];
    const [pointId] = (
      readJson(join(runDir, 'manifest.json')) as { points: { pointId: string }[] }
    ).points.map((p) => p.pointId);
    expect(pointId).toContain(id);
    const dir = join(runDir, 'points', pointId as string, 'attempt-1');
    const point = PointAttemptSchema.parse(readJson(join(dir, 'point.json')));
    expect(point.launch).toMatchObject({ kind: 'recipe', framework: 'vllm', recipe: 'recipes/vllm.sh' });
    expect(point.launch?.processes[0]?.env).toEqual({ INFX_RECIPE_MARK: 'conc 2' });
    expect(PointStatusSchema.parse(readJson(join(dir, 'status.json'))).status).toBe('ok');
    const result = PointResultSchema.parse(readJson(join(dir, 'result.json')));
    expect(result.engine).toMatchObject({ kind: 'simulated', timeScale: 20, clock: 'engine' });
    expect(readFileSync(join(dir, 'server.log'), 'utf8')).toContain('=== infx: starting server: node');
    expect(processesMentioning(runDir)).toEqual([]);
  }, 60_000);
});
