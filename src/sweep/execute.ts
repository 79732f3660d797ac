import { resolve } from 'node:path';
import { renderSim } from '../engines/sim.ts';
import type { EngineLaunch } from '../schema/engine-launch.ts';
import type { RunManifest } from '../schema/run-dir.ts';
import { localExecutor } from './executors/local.ts';
import type { PointExecutor } from './executors/types.ts';
import { attemptDir, pointSpecPath, readManifest } from './run-dir.ts';
import { resolveSimScale } from './sim-scale.ts';
import { runSweep, type Selection, type SweepHooks, type SweepOutcome } from './sweep.ts';

/** The executor a manifest asks for, and a sweep over it; the engine command lines of a dry run. */

export async function executorFor(manifest: RunManifest, runDir: string): Promise<PointExecutor> {
  if (manifest.options.executor === 'local') return localExecutor();
  const { slurmExecutor } = await import('./executors/slurm.ts');
  const slurm = manifest.options.slurm;
  if (!slurm) throw new Error('the manifest asks for the Slurm executor but has no slurm options');
  return slurmExecutor({ ...slurm, runId: manifest.runId, runDir });
}

export async function executeRun(
  runDir: string,
  select: Selection,
  hooks: SweepHooks,
  /** For this sweep only; the manifest keeps what the run was created with. */
  overrides: { retries?: number | undefined } = {},
): Promise<{ manifest: RunManifest; outcome: SweepOutcome }> {
  const stored = await readManifest(runDir);
  const manifest =
    overrides.retries === undefined
      ? stored
      : { ...stored, options: { ...stored.options, retries: overrides.retries } };
  const executor = await executorFor(manifest, runDir);
  const outcome = await runSweep(runDir, manifest, executor, select, hooks);
  return { manifest, outcome };
}

/** Each point's engine as its first attempt would start it (ports are picked when a point starts). */
export async function plannedLaunches(
  manifest: RunManifest,
  runDir: string,
): Promise<Map<string, EngineLaunch | string>> {
  const out = new Map<string, EngineLaunch | string>();
  let port = 8000;
  for (const p of manifest.points) {
    // Recipes mount their work dir into containers, so it must be absolute; --out may be relative.
    const dir = resolve(attemptDir(runDir, p.pointId, 1));
    try {
      if (p.engine.kind === 'sim') {
        out.set(
          p.pointId,
          renderSim(p.row, {
            pointFile: pointSpecPath(runDir, p.pointId),
            port: port++,
            timeScale: resolveSimScale(p).scale,
            conc: p.conc,
            seed: p.bench.seed,
            attempt: 1,
            faults: p.engine.faults,
          }),
        );
      } else {
        const { renderRecipe } = await import('../engines/recipe.ts');
        out.set(
          p.pointId,
          await renderRecipe(p.row, {
            conc: p.conc,
            allocatePort: () => port++,
            workDir: dir,
            container: p.engine.container,
            acceptance: p.engine.acceptance,
            // Slots are handed out as points start: the plan shows unpinned GPUs.
            devices: null,
          }),
        );
      }
    } catch (err) {
      out.set(p.pointId, (err as Error).message);
    }
  }
  return out;
}
