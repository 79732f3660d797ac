import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers.ts';

/**
 * The layer table of docs/architecture.md is the rule for imports: every relative import of every source
 * file under src/ (type-only ones included, tests excluded) may reach only its own folder or a folder its row
 * names.
 */

const SRC = join(REPO_ROOT, 'src');

function layerTable(): Map<string, Set<string> | 'all'> {
  const doc = readFileSync(join(REPO_ROOT, 'docs/architecture.md'), 'utf8');
  const table = new Map<string, Set<string> | 'all'>();
  for (const line of doc.split('\n')) {
    // | `src/<layer>/` | owns | may import |, however the table is padded
    const cells = line.split('|').map((c) => c.trim());
    const layer = /^`src\/([a-z-]+)\/`$/.exec(cells[1] ?? '')?.[1];
    if (layer === undefined || cells.length !== 5) continue;
    const allowed = cells[3] as string;
    if (/^every layer/.test(allowed)) table.set(layer, 'all');
    else if (allowed === 'nothing of ours') table.set(layer, new Set());
    else table.set(layer, new Set(allowed.split(',').map((s) => s.trim())));
  }
  return table;
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...sourceFiles(p));
    else if (/\.ts$/.test(e.name) && !/\.test\.ts$|\.d\.ts$/.test(e.name)) out.push(p);
  }
  return out;
}

const layerOf = (file: string) => relative(SRC, file).split(sep)[0] as string;
const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;

describe('architecture', () => {
  const table = layerTable();

  it('docs/architecture.md lists every folder of src/', () => {
    const folders = readdirSync(SRC, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
    expect([...table.keys()].sort()).toEqual(folders);
  });

  it('no source file imports a layer its row does not allow', () => {
    const wrong: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const from = layerOf(file);
      const allowed = table.get(from);
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(IMPORT)) {
        const target = resolve(dirname(file), (m[1] ?? m[2]) as string);
        if (!target.startsWith(SRC + sep)) continue;
        const to = layerOf(target);
        if (to === from || allowed === 'all' || allowed?.has(to)) continue;
        wrong.push(`${relative(REPO_ROOT, file)} imports ${to} (${m[1] ?? m[2]})`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
