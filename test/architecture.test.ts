import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkImports, longFiles, parseLayerTable, reach } from './architecture-check.ts';
import { REPO_ROOT, tmpDir } from './helpers.ts';

/**
 * The layer table of docs/architecture.md is the rule for imports: every relative import of every source
 * file under src/ may reach only its own folder or a folder its row names, and no import circles. No file
 * under src/ is over 500 lines, and the dashboard's page loads nothing of Node (nor zod).
 */

const MAX_LINES = 500;

const SRC = join(REPO_ROOT, 'src');
const table = parseLayerTable(readFileSync(join(REPO_ROOT, 'docs/architecture.md'), 'utf8'));

function tree(files: Record<string, string>): string {
  const root = join(tmpDir('infx-arch-'), 'src');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe('architecture', () => {
  it('docs/architecture.md has a row for every folder of src/', () => {
    const folders = readdirSync(SRC, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    for (const f of folders) expect([...table.keys()], `src/${f}/`).toContain(f);
  });

  it('no source file imports a layer its row does not allow, and no file imports itself round a circle', () => {
    const report = checkImports(SRC, table);
    expect(report.files).toBeGreaterThan(200);
    expect(report.imports).toBeGreaterThan(1000);
    expect(report.forbidden).toEqual([]);
    expect(report.circles).toEqual([]);
  });

  it(`no file in src/ is over ${MAX_LINES} lines`, () => {
    expect(longFiles(SRC, MAX_LINES)).toEqual([]);
  });

  it('the line count finds a long file (tests and styles too) and lists the longest first', () => {
    const lines = (n: number) => 'x\n'.repeat(n);
    const src = tree({
      'a/ok.ts': lines(500),
      'a/long.ts': lines(501),
      'a/long.test.ts': `${lines(600)}no newline at the end`,
      'b/ui/style.css': lines(502),
    });
    expect(longFiles(src, 500)).toEqual([
      'a/long.test.ts: 601 lines',
      'b/ui/style.css: 502 lines',
      'a/long.ts: 501 lines',
    ]);
  });

  it("the dashboard's bundle loads no package and nothing of Node: the analysis modules it shares are browser-safe", () => {
    const page = reach(join(SRC, 'web/ui/main.ts'), SRC);
    expect(page.files).toContain('analysis/axes.ts');
    expect(page.files).toContain('analysis/svg.ts');
    expect(page.packages).toEqual([]);
  });

  it('the bundle check follows value imports, skips type-only ones and finds a builtin or a package', () => {
    const src = tree({
      'ui/main.ts':
        "import './style.css';\nimport { a } from '../lib/a.ts';\nimport type { Z } from '../lib/z.ts';\n" +
        "import { type Y } from '../lib/y.ts';\nexport const m: Z | Y = a;\n",
      'lib/a.ts':
        "import { readFileSync } from 'node:fs';\nexport { b } from './b.ts';\nexport const a = 1;\n",
      'lib/b.ts': "export const b = () => import('kysely');\n",
      'lib/z.ts': "import * as z from 'zod';\nexport type Z = z.infer<z.ZodNumber>;\n",
      'lib/y.ts': "import * as z from 'zod';\nexport type Y = z.infer<z.ZodString>;\n",
    });
    expect(reach(join(src, 'ui/main.ts'), src)).toEqual({
      files: ['lib/a.ts', 'lib/b.ts', 'ui/main.ts'],
      packages: ['lib/a.ts imports node:fs', 'lib/b.ts imports kysely'],
    });
  });

  it('an application row may import every layer but those it names', () => {
    const src = tree({
      'schema/s.ts': 'export const s = 1;\n',
      'cli/main.ts': "import { d } from '../demo/d.ts';\nexport const m = d;\n",
      'demo/d.ts': "import { s } from '../schema/s.ts';\nexport const d = () => import('../cli/main.ts');\n",
      'demo/e.ts': "import { s } from '../schema/s.ts';\nexport const e = s;\n",
    });
    const rules = parseLayerTable(
      [
        '| `src/schema/` | shapes | nothing of ours |',
        '| `src/demo/` | the demo | every layer but cli |',
        '| `src/cli/` | the command | every layer |',
      ].join('\n'),
    );
    expect(checkImports(src, rules).forbidden).toEqual(['demo/d.ts imports cli (../cli/main.ts)']);
  });

  it('the check finds a forbidden import (type-only and dynamic ones too) and a circle', () => {
    const src = tree({
      'schema/a.ts': "import type { X } from '../store/x.ts';\nexport type A = X;\n",
      'store/x.ts': "export type X = 1;\nexport const load = () => import('../web/w.ts');\n",
      'web/w.ts': "import { y } from './y.ts';\nexport const w = y;\n",
      'web/y.ts': "import { w } from './w.ts';\nexport const y = () => w;\n",
      'web/ok.ts': "import type { X } from '../store/x.ts';\nexport type O = X;\n",
    });
    const rules = parseLayerTable(
      [
        '| `src/schema/` | shapes | nothing of ours |',
        '| `src/store/` | the store | schema |',
        '| `src/web/` | the dashboard | schema, store |',
      ].join('\n'),
    );
    const report = checkImports(src, rules);
    expect(report.forbidden).toEqual([
      'schema/a.ts imports store (../store/x.ts)',
      'store/x.ts imports web (../web/w.ts)',
    ]);
    expect(report.circles).toEqual(['web/w.ts → web/y.ts → web/w.ts']);
  });
});
