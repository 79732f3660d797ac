import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkImports, parseLayerTable } from './architecture-check.ts';
import { REPO_ROOT, tmpDir } from './helpers.ts';

/**
 * The layer table of docs/architecture.md is the rule for imports: every relative import of every source
 * file under src/ may reach only its own folder or a folder its row names, and no import circles.
 */

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
