import {
  type FixedRow,
  type MatrixRow,
  type MultiNodeAgenticRow,
  type MultiNodeFixedRow,
  type MultiNodeRow,
  rowFields,
  type SingleNodeAgenticRow,
  type SingleNodeFixedRow,
} from '../schema/matrix-row.ts';
import { concsOf, isAgentic, isMultiNode as isMulti, keyWithout } from './row-facts.ts';

/** Which rows also run an accuracy eval (matrix-spec §7). */

export const MIN_EVAL_CONC = 16;
export const EVAL_MODES = ['default', 'no-evals', 'evals-only', 'all-evals'] as const;
export type EvalMode = (typeof EVAL_MODES)[number];
/**
 * `reference` keeps the reference's grouping; `topology` groups single-node rows by every field that
 * distinguishes a curve, so no TP/EP/offload variant of a config silently loses its eval.
 */
export const EVAL_GROUPINGS = ['reference', 'topology'] as const;
export type EvalGrouping = (typeof EVAL_GROUPINGS)[number];

const is8k1k = (r: FixedRow) => r.isl === 8192 && r.osl === 1024;

const NOT_TOPOLOGY = new Set(['conc', 'run-eval', 'eval-only', 'eval-conc', 'eval-all-concs', 'exp-name']);

/** Every field except concurrency, naming and eval bookkeeping; nested objects compared key-order-insensitively. */
export const parallelismKey = (r: MatrixRow | Readonly<Record<string, unknown>>): string =>
  keyWithout(r, NOT_TOPOLOGY);

function groupBy<R>(rows: R[], key: (r: R) => string): Map<string, R[]> {
  const groups = new Map<string, R[]>();
  for (const r of rows) {
    const k = key(r);
    const g = groups.get(k);
    if (g) g.push(r);
    else groups.set(k, [r]);
  }
  return groups;
}

const fields =
  (...names: string[]) =>
  (r: MatrixRow) => {
    const f = rowFields(r);
    return JSON.stringify(names.map((n) => f[n] ?? null));
  };

/**
 * A single-node fixed row's concurrency as a number. The schema also lets an input matrix give a list
 * there (the generator never does); such a row is read by JavaScript's coercion, as it always was here:
 * [32] is 32, [4, 32] is NaN and never eligible.
 */
const numericConc = (r: SingleNodeFixedRow): number => (typeof r.conc === 'number' ? r.conc : Number(r.conc));

/** The highest eligible concurrency per group wins, earliest row on ties; it gets `eval-conc`. */
function markOnePerTopology(rows: MultiNodeRow[]): void {
  const scored = rows
    .map((r) => ({ r, score: Math.max(...concsOf(r).filter((c) => c >= MIN_EVAL_CONC)) }))
    .filter((x) => Number.isFinite(x.score));
  const best = new Map<string, { r: MultiNodeRow; score: number }>();
  for (const x of scored) {
    const k = parallelismKey(x.r);
    const cur = best.get(k);
    if (!cur || x.score > cur.score) best.set(k, x);
  }
  for (const { r, score } of best.values()) {
    r['run-eval'] = true;
    r['eval-conc'] = score;
  }
}

/** Default policy (§7.1). Sets `run-eval` on every row. */
export function markEvalEntries(
  rows: MatrixRow[],
  includeAgentic: boolean,
  grouping: EvalGrouping = 'reference',
): void {
  for (const r of rows) r['run-eval'] = false;

  const singleFixed = rows.filter(
    (r): r is SingleNodeFixedRow =>
      !isMulti(r) && !isAgentic(r) && is8k1k(r) && numericConc(r) >= MIN_EVAL_CONC,
  );
  const fixedKey =
    grouping === 'topology'
      ? parallelismKey
      : fields('model', 'runner', 'framework', 'precision', 'isl', 'osl', 'spec-decoding', 'dp-attn');
  for (const group of groupBy(singleFixed, fixedKey).values()) {
    // The concurrencies as given (a list stays the one object, compared by identity), ordered numerically.
    const v = [...new Set(group.map((r) => r.conc))].sort((a, b) => Number(a) - Number(b));
    const targets = new Set([v[v.length - 1], v[Math.floor(v.length / 2)]]);
    for (const r of group) if (targets.has(r.conc)) r['run-eval'] = true;
  }

  markOnePerTopology(rows.filter((r): r is MultiNodeFixedRow => isMulti(r) && !isAgentic(r) && is8k1k(r)));

  if (!includeAgentic) return;
  markOnePerTopology(rows.filter((r): r is MultiNodeAgenticRow => isAgentic(r) && isMulti(r)));
  const singleAgentic = rows.filter((r): r is SingleNodeAgenticRow => isAgentic(r) && !isMulti(r));
  const agenticKey =
    grouping === 'topology' ? parallelismKey : fields('model', 'runner', 'framework', 'precision');
  for (const group of groupBy(singleAgentic, agenticKey).values()) {
    let best = group[0]!;
    for (const r of group) if (r.conc > best.conc) best = r;
    best['run-eval'] = true;
  }
}

const sortedUnion = (a: number[], b: number[]) => [...new Set([...a, ...b])].sort((x, y) => x - y);

/** All-evals expansion (§7.2), applied after the default marking. Merged rows take the first row's place. */
export function markAllEvalEntries(rows: MatrixRow[]): MatrixRow[] {
  const out: MatrixRow[] = [];
  const merged = new Map<string, MultiNodeRow>();
  for (const r of rows) {
    if (!isMulti(r)) {
      // Single-node: agentic rows and 8k1k fixed rows run an eval each; other fixed rows stay as they are.
      if (isAgentic(r) || is8k1k(r)) r['run-eval'] = true;
      out.push(r);
      continue;
    }
    const agentic = isAgentic(r);
    if (!agentic && !is8k1k(r)) {
      out.push(r);
      continue;
    }
    const key = `${agentic ? 'a' : 'f'}${parallelismKey(r)}`;
    const first = merged.get(key);
    const target = first ?? r;
    target.conc = sortedUnion(first ? concsOf(first) : [], concsOf(r));
    if (!first) {
      target['run-eval'] = true;
      merged.set(key, target);
      out.push(target);
    }
    if (isAgentic(target)) {
      target['eval-conc'] = Math.max(...concsOf(target));
    } else {
      delete target['eval-conc'];
      target['eval-all-concs'] = true;
    }
  }
  return out;
}

/** The generator's eval step (§5.4 steps 5–6). */
export function applyEvalMode(
  rows: MatrixRow[],
  mode: EvalMode,
  grouping: EvalGrouping = 'reference',
): MatrixRow[] {
  if (mode === 'no-evals') return rows;
  const evalsOnly = mode === 'evals-only' || mode === 'all-evals';
  markEvalEntries(rows, evalsOnly, grouping);
  const marked = mode === 'all-evals' ? markAllEvalEntries(rows) : rows;
  if (!evalsOnly) return marked;
  const kept = marked.filter((r) => r['run-eval']);
  for (const r of kept) r['eval-only'] = true;
  return kept;
}
