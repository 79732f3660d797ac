import { describePreflight, planPreflight, rowKey, runPreflight } from '../engines/preflight.ts';
import { InfxError } from '../schema/errors.ts';
import type { RunManifest } from '../schema/run-dir.ts';
import { engineSetups } from '../sim/engine/aggregate.ts';
import { resolveSim } from '../sim/engine/config.ts';
import { setupFromRow } from '../sim/serve/setup-from.ts';

/**
 * What a sweep checks before its first point: that the simulated engine can run every simulated point
 * (a row it cannot map, a model or accelerator the catalog lacks), and the host checks of real engines
 * (src/engines/preflight.ts). Only a local sweep's real engines run on this host: Slurm jobs run
 * elsewhere, so theirs are not checked here.
 */

/** Simulated points the simulator cannot run, one line each: refused before any engine starts. */
function simProblems(manifest: RunManifest): string[] {
  const out: string[] = [];
  const seen = new Map<string, string | null>();
  for (const p of manifest.points) {
    if (p.engine.kind !== 'sim') continue;
    const key = rowKey(p.row);
    if (!seen.has(key)) {
      let why: string | null = null;
      try {
        for (const setup of engineSetups(setupFromRow(p.row))) resolveSim(setup);
      } catch (err) {
        if (!(err instanceof InfxError)) throw err;
        why = err.message;
      }
      seen.set(key, why);
    }
    const why = seen.get(key);
    if (why) out.push(`${p.pointId}: the simulated engine cannot run this row: ${why}`);
  }
  return out;
}

/** What is missing, one line each with its fix; empty when every check passed. */
export async function preflightProblems(manifest: RunManifest): Promise<string[]> {
  const sim = simProblems(manifest);
  if (manifest.options.executor !== 'local') return sim;
  return [...sim, ...(await runPreflight(await planPreflight(manifest.points)))];
}

/** What a real sweep would check (a dry run checks nothing). */
export async function preflightChecks(manifest: RunManifest): Promise<string[]> {
  if (manifest.options.executor !== 'local') return [];
  return describePreflight(await planPreflight(manifest.points));
}
