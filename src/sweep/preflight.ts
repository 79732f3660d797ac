import { describePreflight, planPreflight, runPreflight } from '../engines/preflight.ts';
import type { RunManifest } from '../schema/run-dir.ts';

/**
 * The host checks of a sweep of real engines (src/engines/preflight.ts), before its first point. Only a
 * local sweep's points run on this host: Slurm jobs run elsewhere, so theirs are not checked here.
 */

/** What is missing on this host, one line each with its fix; empty when every check passed. */
export async function preflightProblems(manifest: RunManifest): Promise<string[]> {
  if (manifest.options.executor !== 'local') return [];
  return runPreflight(await planPreflight(manifest.points));
}

/** What a real sweep would check (a dry run checks nothing). */
export async function preflightChecks(manifest: RunManifest): Promise<string[]> {
  if (manifest.options.executor !== 'local') return [];
  return describePreflight(await planPreflight(manifest.points));
}
