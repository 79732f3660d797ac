/**
 * "Did you mean" for names people type: filter values, config keys, runner labels, PR labels. Edit
 * distance counts typos (a letter added, dropped, changed, or two swapped); a candidate is offered only
 * when it is close enough that a typo is the likely story (a third of the name: at least 1, at most 3
 * edits), so an unrelated name is never suggested.
 */

/** Edits (insert, delete, substitute, swap two neighbours) from `a` to `b`: optimal string alignment. */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  let before: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      // A swapped pair ("alpah") is one typo, not two.
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, before[j - 2]! + 1);
      row.push(d);
    }
    before = prev;
    prev = row;
  }
  return prev[b.length]!;
}

const threshold = (value: string) => Math.min(3, Math.max(1, Math.floor(value.length / 3)));

/** The candidates nearest to `value` (all at the best distance, at most `limit`, alphabetical), ignoring case. */
export function closest(value: string, candidates: Iterable<string>, limit = 3): string[] {
  const v = value.toLowerCase();
  const max = threshold(value);
  const scored: Array<[string, number]> = [];
  for (const c of new Set(candidates)) {
    if (c === value) continue;
    const d = editDistance(v, c.toLowerCase());
    if (d <= max) scored.push([c, d]);
  }
  const best = Math.min(...scored.map(([, d]) => d));
  return scored
    .filter(([, d]) => d === best)
    .map(([c]) => c)
    .sort()
    .slice(0, limit);
}

/** `'; did you mean fp8?'`, `'; did you mean h100 or h200?'`, or `''` when nothing is close. */
export function didYouMean(value: string, candidates: Iterable<string>): string {
  const near = closest(value, candidates);
  if (near.length === 0) return '';
  const last = near.pop()!;
  return `; did you mean ${near.length > 0 ? `${near.join(', ')} or ${last}` : last}?`;
}

/** The nearest numbers to `value` (both neighbours on a tie), for values that are not names. */
export function nearestNumbers(value: number, candidates: Iterable<number>): number[] {
  let best = Number.POSITIVE_INFINITY;
  let out: number[] = [];
  for (const c of new Set(candidates)) {
    const d = Math.abs(c - value);
    if (d < best) {
      best = d;
      out = [c];
    } else if (d === best) out.push(c);
  }
  return out.sort((a, b) => a - b);
}
