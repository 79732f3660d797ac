import { chmodSync, copyFileSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PointStatusSchema } from '../src/schema/run-dir.ts';
import { REPO_ROOT, tmpDir } from './helpers.ts';
import { infx, readJson, smallRow, writeMatrix } from './sweep-helpers.ts';

/**
 * The cause of a failed point is where people look: the sweep's progress lines and summary, status.json and
 * `infx sweep status` all say why the engine went away — the spawn error when its program is missing, else
 * the last meaningful line of its log. The vLLM recipe is overridden (INFX_RECIPES_DIR) by a broken one.
 */

/**
 * A `vllm` on PATH whose interpreter is gone, as when the virtual environment it was installed into was
 * moved or deleted: the sweep's pre-flight finds an executable, and starting it fails with ENOENT.
 */
function staleVllm(): string {
  const dir = join(tmpDir(), 'bin');
  mkdirSync(dir);
  writeFileSync(join(dir, 'vllm'), '#!/nonexistent/venv/bin/python3\nprint("never")\n');
  chmodSync(join(dir, 'vllm'), 0o755);
  return dir;
}

function recipes(exec: string): string {
  const dir = join(tmpDir(), 'recipes');
  mkdirSync(dir);
  copyFileSync(join(REPO_ROOT, 'recipes/lib.sh'), join(dir, 'lib.sh'));
  writeFileSync(
    join(dir, 'vllm.sh'),
    ['source "$(dirname "$0")/lib.sh"', 'infx_require INFX_MODEL INFX_PORT', `infx_exec ${exec}`, ''].join(
      '\n',
    ),
  );
  return dir;
}

async function failedSweep(exec: string, path = process.env.PATH) {
  const out = tmpDir();
  const matrix = writeMatrix(out, [smallRow({ conc: 2 })]);
  const env = { INFX_RECIPES_DIR: recipes(exec), PATH: path };
  const args = ['--matrix', matrix, '--out', out, '--engine', 'recipe', '--run-id', 'broken'];
  const sweep = await infx(['sweep', ...args, '--retries', '0', '--num-prompts', '4', '--warmup', '1'], env);
  const runDir = join(out, 'broken');
  const [pointId] = readdirSync(join(runDir, 'points'));
  if (pointId === undefined) throw new Error(`no point ran:\n${sweep.stdout}\n${sweep.stderr}`);
  const status = PointStatusSchema.parse(
    readJson(join(runDir, 'points', pointId as string, 'attempt-1', 'status.json')),
  );
  const shown = await infx(['sweep', 'status', runDir]);
  return { sweep, status, shown, pointId: pointId as string };
}

describe('causes of failed points', () => {
  it('an engine program that cannot start: the spawn error, not "exit code 127", everywhere', async () => {
    const { sweep, status, shown, pointId } = await failedSweep(
      'vllm serve "$INFX_MODEL" --port "$INFX_PORT"',
      `${staleVllm()}:${process.env.PATH}`,
    );
    expect(sweep.code, sweep.stderr).toBe(1);
    const cause = "the engine's server process could not start: spawn vllm ENOENT";
    expect(status).toMatchObject({ status: 'failed', phase: 'setup', reason: cause });
    // The progress line on stderr and the summary on stdout.
    expect(sweep.stderr).toContain(`${pointId}: attempt 1 failed in setup: ${cause}`);
    expect(sweep.stdout).toContain(`  failed    ${pointId}: setup: ${cause}`);
    expect(sweep.stdout).not.toContain('exit code 127');
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(new RegExp(`^failed  ${pointId}  \\[1 attempt\\]  setup: ${cause}$`, 'm'));
  }, 60_000);

  it('an engine that logs its error and exits 1: that line, past the INFO noise after it', async () => {
    const script = [
      'echo "INFO 05-01 12:00:00 [api_server.py:1] loading the model"',
      'echo "Loading safetensors: 40%|████      | 2/5"',
      'echo "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB"',
      'echo "INFO 05-01 12:00:01 [core.py:2] shutting down"',
      'echo',
      'exit 1',
    ].join('; ');
    const { sweep, status, shown, pointId } = await failedSweep(`bash -c '${script}'`);
    expect(sweep.code, sweep.stderr).toBe(1);
    const cause =
      "the engine's server process exited before it was ready (exit code 1): " +
      'RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB';
    expect(status.reason).toBe(cause);
    expect(status.logTail.at(-1)).toContain('shutting down');
    expect(sweep.stderr).toContain(`${pointId}: attempt 1 failed in setup: ${cause}`);
    expect(sweep.stdout).toContain(`${pointId}: setup: ${cause}`);
    expect(shown.stdout).toContain(`setup: ${cause}`);
  }, 60_000);
});
