import { isFixed, type MatrixRow, MatrixSchema, rowConcs, rowFields } from '../schema/matrix-row.ts';
import type { JobFamily, SweepBuckets, SweepPlan } from '../schema/sweep-plan.ts';
import { bucketSweep, emptyBuckets } from './buckets.ts';
import { MatrixError } from './errors.ts';
import { applyEvalMode, type EvalGrouping } from './evals.ts';
import { canonicalJson } from './json.ts';
import { decideLabels } from './labels.ts';

/**
 * The plan the reference workflow would execute for a generated matrix and a set of labels: benchmark
 * rows (trimmed, fingerprinted), eval rows chosen by the generator's policy, the reference's buckets, the
 * canary and fail-fast per job family (matrix-spec §8.2, §9; changelog-pr-spec §3).
 */

const EVAL_FIELDS = ['run-eval', 'eval-only', 'eval-conc', 'eval-all-concs'];
const DISPATCHED = new Set(['1k1k', '8k1k', 'agentic']);

/** Back to the generator's `--no-evals` row: fixed rows keep `"run-eval": false` in place, agentic rows none. */
function benchmarkRow(row: MatrixRow): MatrixRow {
  const r: MatrixRow = { ...row };
  if (r['eval-only'] === true) {
    throw new MatrixError(
      'infx matrix plan takes the throughput matrix; generate it without --evals-only/--all-evals (eval rows are derived from it)',
    );
  }
  const fixed = isFixed(r);
  const fields = rowFields(r);
  for (const k of EVAL_FIELDS) if (!(fixed && k === 'run-eval')) delete fields[k];
  if (fixed) r['run-eval'] = false;
  return r;
}

const concOf = (r: MatrixRow) => Math.min(...rowConcs(r));

/** Minimum concurrency over single-node 1k1k then 8k1k rows, first on ties (jq's min_by), evals excluded. */
function pickCanary(b: SweepBuckets): { bucket: string; row: MatrixRow } | null {
  let best: { bucket: string; row: MatrixRow } | null = null;
  for (const bucket of ['1k1k', '8k1k']) {
    for (const row of b.single_node[bucket] ?? []) {
      if (row['run-eval'] === true) continue;
      if (!best || concOf(row) < concOf(best.row)) best = { bucket, row };
    }
  }
  return best;
}

function families(b: SweepBuckets, failFast: boolean): JobFamily[] {
  const out: JobFamily[] = [];
  const add = (name: string, bucket: string, jobs: number, dispatched = true) =>
    out.push({ name, bucket, jobs, failFast, dispatched });
  for (const [side, label] of [
    ['single_node', 'single-node'],
    ['multi_node', 'multi-node'],
  ] as const) {
    for (const [key, rows] of Object.entries(b[side])) {
      add(`${label} ${key}`, `${side}.${key}`, rows.length, DISPATCHED.has(key));
    }
  }
  add('evals', 'evals', b.evals.length);
  add('agentic evals', 'agentic_evals', b.agentic_evals.length);
  add('multi-node evals', 'multinode_evals', b.multinode_evals.length);
  add('multi-node agentic evals', 'multinode_agentic_evals', b.multinode_agentic_evals.length);
  return out;
}

export interface PlanOptions {
  labels: readonly string[];
  event: 'pr' | 'push';
  evalGrouping?: EvalGrouping | undefined;
}

/** A generated matrix read from JSON (a file or stdin), checked against the row schemas. */
export function parseMatrix(raw: unknown): MatrixRow[] {
  const parsed = MatrixSchema.safeParse(raw);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new MatrixError(
      `the input is not a generated matrix (row ${String(first?.path[0] ?? '?')}: ${first?.message ?? 'invalid'})`,
    );
  }
  return raw as MatrixRow[];
}

export function planSweep(matrix: MatrixRow[], opts: PlanOptions): SweepPlan {
  const d = decideLabels(opts.labels, opts.event);
  const bench = matrix.map(benchmarkRow);
  const warnings = [...d.warnings];
  const throughput = !d.evalsOnly;
  let buckets = emptyBuckets();
  if (d.runs) {
    const evalInput = bench.map((r) => structuredClone(r));
    const evalRows = applyEvalMode(evalInput, d.allEvals ? 'all-evals' : 'evals-only', opts.evalGrouping);
    buckets = bucketSweep(throughput ? bench : [], evalRows, d.policy.trimConc);
  }
  const canary = d.runs && d.policy.canary ? pickCanary(buckets) : null;
  const remaining: Record<string, MatrixRow[]> = {};
  for (const key of ['1k1k', '8k1k']) {
    const rows = [...(buckets.single_node[key] ?? [])];
    if (canary && canary.bucket === key) {
      const target = canonicalJson(canary.row);
      const i = rows.findIndex((r) => canonicalJson(r) === target);
      if (i >= 0) rows.splice(i, 1);
    }
    remaining[key] = rows;
  }
  const fams = families(buckets, d.policy.failFast);
  for (const f of fams) {
    if (!f.dispatched && f.jobs > 0) {
      warnings.push(
        `${f.jobs} row(s) in ${f.bucket} are never dispatched by the reference workflow (only 1k1k, 8k1k and agentic are)`,
      );
    }
  }
  if (d.runs && d.policy.canary && !canary)
    warnings.push('no single-node 1k1k/8k1k row to use as canary: canary skipped');
  return {
    schemaVersion: 1,
    event: opts.event,
    labels: [...opts.labels],
    primaryLabel: d.primary,
    modifiers: d.modifiers,
    runs: d.runs,
    reason: d.reason,
    errors: d.errors,
    warnings,
    trimConc: d.policy.trimConc,
    failFast: d.policy.failFast,
    agentxFast: d.agentxFast,
    reuseEligible: d.reuseEligible,
    throughput,
    canary,
    buckets,
    remaining,
    families: fams,
  };
}

/** A short human summary of a plan. */
export function formatPlan(plan: SweepPlan): string {
  const lines: string[] = [];
  lines.push(`event: ${plan.event}   labels: ${plan.labels.join(', ') || '(none)'}`);
  lines.push(`runs: ${plan.runs ? 'yes' : 'no'} (${plan.reason})`);
  for (const e of plan.errors) lines.push(`error: ${e}`);
  for (const w of plan.warnings) lines.push(`warning: ${w}`);
  if (plan.runs) {
    const flags = [
      plan.trimConc ? 'trimmed to the lowest concurrency per recipe' : 'full concurrency ladders',
      `fail-fast ${plan.failFast ? 'on' : 'off'}`,
      plan.throughput ? 'throughput on' : 'throughput off (evals-only)',
      plan.agentxFast ? 'agentx-fast on agentic throughput jobs' : '',
      plan.reuseEligible ? 'reuse-eligible' : 'not reuse-eligible',
    ].filter(Boolean);
    lines.push(flags.join('; '));
    if (plan.canary) {
      const r = rowFields(plan.canary.row);
      lines.push(
        `canary: ${String(r['exp-name'])} ${String(r.runner)} tp${String(r.tp)} conc ${String(r.conc)} (${plan.canary.bucket})`,
      );
    } else lines.push('canary: none');
    lines.push('job families:');
    for (const f of plan.families) {
      if (f.jobs === 0) continue;
      lines.push(
        `  ${f.name.padEnd(26)} ${String(f.jobs).padStart(5)} jobs${f.failFast ? '  fail-fast' : ''}${f.dispatched ? '' : '  NOT DISPATCHED'}`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}
