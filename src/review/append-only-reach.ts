import type { SingleNodeRow } from '../schema/matrix-row.ts';
import { rowConcs } from '../schema/matrix-row.ts';
import type { ReviewFinding } from '../schema/review.ts';
import { pointEnv } from './recipe-batching.ts';
import { recipeSurface } from './shell-values.ts';

/**
 * Append-only safety for recipes (addendum §3.2, changelog-pr-spec §7 check 12): an append-only PR measures
 * only its new points and keeps the base's results for the rest, so a recipe change must not reach a point
 * the base already has. Each such point's recipe is read at the base and at the head with the point's
 * environment; a flag or exported variable that differs means the kept results no longer describe what the
 * recipe now runs.
 */

export interface OldPoints {
  /** The recipe the base's points ran, and the one they run at the head (null: none exists there). */
  basePath: string;
  headPath: string | null;
  baseText: string;
  headText: string | null;
  /** The base's rows that ran it, each with its config key. */
  rows: readonly { configKey: string; row: SingleNodeRow }[];
}

/** What differs between two surfaces: flags that go or come, exports whose value changes. */
function surfaceChanges(
  base: ReturnType<typeof recipeSurface>,
  head: ReturnType<typeof recipeSurface>,
): { changes: string[]; unsure: boolean } {
  const changes: string[] = [];
  let unsure = false;
  const left = [...base.flags];
  const added: string[] = [];
  for (const f of head.flags) {
    const i = left.indexOf(f);
    if (i >= 0) left.splice(i, 1);
    else added.push(f);
  }
  for (const f of left) changes.push(`${f} dropped`);
  for (const f of added) changes.push(`${f} added`);
  unsure ||= [...left, ...added].some((f) => f.endsWith('=?'));
  const names = new Set([...base.exports.keys(), ...head.exports.keys()]);
  for (const name of [...names].sort()) {
    const a = base.exports.get(name);
    const b = head.exports.get(name);
    // The same unknown on both sides is the same expression unchanged.
    if (a === b) continue;
    if (a === null || b === null) unsure = true;
    const show = (v: string | null | undefined) =>
      v === undefined ? 'unset' : v === null ? '?' : JSON.stringify(v);
    changes.push(`export ${name}: ${show(a)} → ${show(b)}`);
  }
  return { changes, unsure };
}

/** The first line where two texts differ (1-based), for the finding's place. */
function firstDifference(a: string, b: string): number {
  const x = a.split('\n');
  const y = b.split('\n');
  for (let i = 0; i < Math.max(x.length, y.length); i++) if (x[i] !== y[i]) return i + 1;
  return 1;
}

const fix =
  'gate the change to the new points (e.g. `if [[ $CONC -gt 64 ]]; then …; fi` around it), or drop append-only so the whole curve is measured again';

export function oldPointFindings(recipes: readonly OldPoints[]): ReviewFinding[] {
  const out: ReviewFinding[] = [];
  for (const r of recipes) {
    if (r.headPath !== r.basePath || r.headText === null) {
      const keys = [...new Set(r.rows.map((x) => x.configKey))];
      for (const configKey of keys)
        out.push({
          severity: 'blocking',
          rule: 'append-only.old-points',
          file: r.basePath,
          line: null,
          configKey,
          message:
            r.headPath === null
              ? `append-only: ${r.basePath} is gone, so the points the base already has would now run no recipe`
              : `append-only: the points the base already has now run ${r.headPath} instead of ${r.basePath}`,
          fix,
        });
      continue;
    }
    const grouped = new Map<
      string,
      { configKey: string; changes: string[]; unsure: boolean; at: string[] }
    >();
    for (const { configKey, row } of r.rows) {
      for (const conc of rowConcs(row)) {
        const env = pointEnv(row, conc);
        const diff = surfaceChanges(recipeSurface(r.baseText, env), recipeSurface(r.headText, env));
        if (diff.changes.length === 0) continue;
        const id = [configKey, diff.unsure, ...diff.changes].join('\u0000');
        const g = grouped.get(id) ?? { configKey, ...diff, at: [] };
        const point = `tp=${row.tp} conc=${conc}`;
        if (!g.at.includes(point)) g.at.push(point);
        grouped.set(id, g);
      }
    }
    for (const g of grouped.values())
      out.push({
        severity: g.unsure ? 'warning' : 'blocking',
        rule: 'append-only.old-points',
        file: r.basePath,
        line: firstDifference(r.baseText, r.headText),
        configKey: g.configKey,
        message: g.unsure
          ? `append-only: the recipe change may reach points the base already has (${g.at.join(', ')}): ${g.changes.join('; ')} (? = a value the reader cannot decide)`
          : `append-only: the recipe change reaches points the base already has (${g.at.join(', ')}): ${g.changes.join('; ')}; their kept results no longer describe what the recipe runs`,
        fix,
      });
  }
  return out;
}
