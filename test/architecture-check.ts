import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/**
 * The rules of docs/architecture.md, checked over a source tree: every relative import (type-only ones
 * and dynamic `import()` included; tests excluded) may reach only its own layer or a layer its row names,
 * no file may reach itself again through its imports (a circle), no file is too long to hold in mind, and
 * what a browser bundle loads imports no package or Node builtin.
 */

/** What a layer may import: the layers named, or every layer but those named (an application layer). */
export type Allowed = { only: Set<string> } | { allBut: Set<string> };
export type LayerTable = Map<string, Allowed>;

const names = (list: string) => new Set(list.split(',').map((s) => s.trim()));

/**
 * The layer table of an architecture document: `| \`src/<layer>/\` | owns | may import |` rows, the last
 * cell `nothing of ours`, `every layer`, `every layer but a, b` or a list `a, b`.
 */
export function parseLayerTable(doc: string): LayerTable {
  const table: LayerTable = new Map();
  for (const line of doc.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    const layer = /^`src\/([a-z-]+)\/`$/.exec(cells[1] ?? '')?.[1];
    if (layer === undefined || cells.length !== 5) continue;
    const allowed = (cells[3] as string).replace(/\(.*\)$/, '').trim();
    const but = /^every layer but (.+)$/.exec(allowed)?.[1];
    if (but !== undefined) table.set(layer, { allBut: names(but) });
    else if (/^every layer/.test(allowed)) table.set(layer, { allBut: new Set() });
    else if (allowed === 'nothing of ours') table.set(layer, { only: new Set() });
    else table.set(layer, { only: names(allowed) });
  }
  return table;
}

const allows = (a: Allowed | undefined, to: string): boolean =>
  a !== undefined && ('only' in a ? a.only.has(to) : !a.allBut.has(to));

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(p));
    else out.push(p);
  }
  return out;
}

const sourceFiles = (dir: string) =>
  filesUnder(dir).filter((p) => /\.ts$/.test(p) && !/\.test\.ts$|\.d\.ts$/.test(p));

/**
 * `path: N lines` for every file under `src` (tests, styles and markup included) longer than `max` lines,
 * longest first: a file that long no longer fits in mind at once.
 */
export function longFiles(src: string, max: number): string[] {
  const long: [string, number][] = [];
  for (const file of filesUnder(src)) {
    const text = readFileSync(file, 'utf8');
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    if (lines > max) long.push([relative(src, file), lines]);
  }
  return long.sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([f, n]) => `${f}: ${n} lines`);
}

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;

export interface ImportReport {
  /** `file imports layer (specifier)` for every import its row does not allow. */
  forbidden: string[];
  /** Each circle of files, as `a.ts → b.ts → a.ts`. */
  circles: string[];
  files: number;
  imports: number;
}

export function checkImports(src: string, table: LayerTable): ImportReport {
  const files = sourceFiles(src);
  const known = new Set(files);
  const layerOf = (file: string) => relative(src, file).split(sep)[0] as string;
  const graph = new Map<string, string[]>();
  const forbidden: string[] = [];
  let imports = 0;
  for (const file of files) {
    const from = layerOf(file);
    const allowed = table.get(from);
    const deps: string[] = [];
    for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const spec = (m[1] ?? m[2]) as string;
      const target = resolve(dirname(file), spec);
      if (!target.startsWith(src + sep)) continue;
      imports++;
      if (known.has(target)) deps.push(target);
      const to = layerOf(target);
      if (to === from || allows(allowed, to)) continue;
      forbidden.push(`${relative(src, file)} imports ${to} (${spec})`);
    }
    graph.set(file, deps);
  }
  return { forbidden, circles: circlesOf(graph, src), files: files.length, imports };
}

/** Strongly connected components of more than one file, or a file importing itself (Tarjan's algorithm). */
function circlesOf(graph: Map<string, string[]>, src: string): string[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const scc: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      scc.push(w);
    } while (w !== v);
    if (scc.length > 1 || (graph.get(v) ?? []).includes(v))
      out.push([...scc.reverse(), scc[0]!].map((f) => relative(src, f)).join(' → '));
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

const STATEMENT =
  /(?:^|\n)\s*(?:import|export)\s+(type\s+)?(?:([^'"]*?)\s+from\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** `{ type A, type B }`: a clause that names types only, which the build erases. */
const typesOnly = (clause: string) =>
  /^\{[^}]*\}$/.test(clause) &&
  clause
    .slice(1, -1)
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .every((s) => s.startsWith('type '));

/**
 * The files a bundle of `entry` loads, following relative value imports (type-only imports are erased by
 * the build), and every import of a package or a Node builtin among them, as `file imports specifier`.
 */
export function reach(entry: string, root: string): { files: string[]; packages: string[] } {
  const seen = new Set<string>();
  const packages: string[] = [];
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const m of readFileSync(file, 'utf8').matchAll(STATEMENT)) {
      const clause = (m[2] ?? '').trim();
      if (m[1] !== undefined || typesOnly(clause)) continue;
      const spec = (m[3] ?? m[4]) as string;
      if (!spec.startsWith('.')) packages.push(`${relative(root, file)} imports ${spec}`);
      else if (/\.ts$/.test(spec)) visit(resolve(dirname(file), spec));
    }
  };
  visit(entry);
  return { files: [...seen].map((f) => relative(root, f)).sort(), packages };
}
