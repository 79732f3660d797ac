import { decideLabels, MODIFIER_LABELS, PRIMARY_LABELS } from '../matrix/labels.ts';
import type { CiLabelOutput, CiMatrixOutput, CiPointEntry } from '../schema/ci-workflow.ts';
import { EXIT_USAGE, InfxError } from '../schema/errors.ts';
import type { PointSpec, RunManifest } from '../schema/run-dir.ts';

/**
 * What the jobs of an `infx ci workflow` sweep hand each other through `$GITHUB_OUTPUT`: the gate's label
 * decision (`infx ci labels`) and the setup job's matrix of points (`infx ci matrix`), each one line per key.
 */

export class CiOutputError extends InfxError {}

/** GitHub Actions runs at most this many jobs from one matrix. */
export const GITHUB_MATRIX_LIMIT = 256;

/**
 * The labels whose events restart a PR sweep (changelog-pr-spec §3.1): the five primary labels, the
 * modifiers with skip_queue, and the policy labels. Any other label event neither runs nor cancels a sweep.
 */
export const RELEVANT_LABELS: readonly string[] = [
  ...Object.keys(PRIMARY_LABELS),
  ...MODIFIER_LABELS,
  'skip_queue',
  'ci-patchwork',
  'engine-patch',
  'ci-patchwork-waived',
  'ci-checklist-complete',
];

/** Labels as the workflow passes them: `toJSON(github.event.pull_request.labels.*.name)`. */
export function parseLabelsJson(text: string): string[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new CiOutputError(`--labels-json: not JSON (${(err as Error).message})`, {
      exitCode: EXIT_USAGE,
      hint: "give the PR's label names as a JSON array, e.g. '[\"full-sweep-enabled\"]'",
    });
  }
  if (!Array.isArray(json) || !json.every((l) => typeof l === 'string'))
    throw new CiOutputError('--labels-json: expected a JSON array of label names, e.g. ["sweep-enabled"]', {
      exitCode: EXIT_USAGE,
    });
  return json;
}

/**
 * The gate's decision: whether setup runs, and the flags the labels turn on (changelog-pr-spec §3.2, §3.3).
 * `skipSweep` is a `[skip-sweep]` head commit, which stops a PR sweep but never a push.
 */
export function ciLabelDecision(
  labels: readonly string[],
  event: 'pr' | 'push',
  skipSweep: boolean,
): CiLabelOutput {
  const d = decideLabels(labels, event);
  const skipped = event === 'pr' && skipSweep && d.errors.length === 0;
  return {
    sweep: d.runs && d.errors.length === 0 && !skipped,
    reason: skipped ? 'the head commit says [skip-sweep]: nothing runs' : d.reason,
    primary: d.primary,
    trimConc: d.policy.trimConc,
    allEvals: d.allEvals,
    evalsOnly: d.evalsOnly,
    agentxFast: d.agentxFast,
    canary: d.policy.canary,
    failFast: d.policy.failFast,
    errors: d.errors,
    warnings: d.warnings,
  };
}

const oneLine = (s: string) => s.replace(/[\r\n]+/g, ' ');

/** `key=value` lines for `$GITHUB_OUTPUT` (booleans as true/false, the reason on one line). */
export function labelOutputLines(o: CiLabelOutput): string {
  const lines: [string, string][] = [
    ['sweep', String(o.sweep)],
    ['reason', oneLine(o.reason)],
    ['primary', o.primary ?? ''],
    ['trim-conc', String(o.trimConc)],
    ['all-evals', String(o.allEvals)],
    ['evals-only', String(o.evalsOnly)],
    ['agentx-fast', String(o.agentxFast)],
    ['canary', String(o.canary)],
    ['fail-fast', String(o.failFast)],
  ];
  return lines.map(([k, v]) => `${k}=${v}\n`).join('');
}

function entryOf(p: PointSpec): CiPointEntry {
  return {
    point: p.pointId,
    index: p.index + 1,
    runner: p.row.runner,
    title: `${p.canary ? 'canary ' : ''}${p.bucket} conc ${p.conc} #${p.index + 1}`,
  };
}

/** The point jobs of a planned run: the canary on its own, every other point one matrix job. */
export function ciMatrix(manifest: RunManifest, limit = GITHUB_MATRIX_LIMIT): CiMatrixOutput {
  const canary = manifest.points.find((p) => p.canary) ?? null;
  const include = manifest.points.filter((p) => !p.canary).map(entryOf);
  if (include.length > limit)
    throw new CiOutputError(
      `run ${manifest.runId} has ${include.length} points besides the canary, more than the ${limit} jobs GitHub ` +
        'Actions runs from one matrix',
      {
        hint:
          'narrow the changelog entry (fewer config keys or scenarios), label the PR sweep-enabled (lowest ' +
          'concurrency per recipe), or run it with infx sweep --executor slurm',
      },
    );
  return { include, canary: canary ? entryOf(canary) : null, count: manifest.points.length };
}

/**
 * `matrix=` (the include list), `jobs=` (its length: an empty matrix must not start), `canary=` and `count=`
 * lines for `$GITHUB_OUTPUT`, compact JSON on one line each.
 */
export function matrixOutputLines(m: CiMatrixOutput): string {
  return (
    `matrix=${JSON.stringify(m.include)}\n` +
    `jobs=${m.include.length}\n` +
    `canary=${m.canary ? JSON.stringify(m.canary) : ''}\n` +
    `count=${m.count}\n`
  );
}
