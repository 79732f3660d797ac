import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { RecipeError } from './frameworks.ts';
import { parseRecipeOutput } from './recipe-protocol.ts';

const RECIPES = resolve(dirname(fileURLToPath(import.meta.url)), '../../recipes');
const dir = mkdtempSync(join(tmpdir(), 'infx-protocol-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs a recipe body after sourcing recipes/lib.sh, values passed through the environment untouched. */
function render(body: string, env: Record<string, string>) {
  const path = join(dir, `r${Math.random().toString(36).slice(2)}.sh`);
  writeFileSync(path, `source ${JSON.stringify(join(RECIPES, 'lib.sh'))}\n${body}\n`);
  return spawnSync('bash', ['--norc', path], {
    env: { PATH: process.env.PATH, INFX_RENDER: '1', ...env },
    encoding: 'utf8',
  });
}

const JSON_VALUE = `{"method": "mtp", "model": "a b", "q": "it's \\"x\\""} $HOME \\ \t $(echo no)`;
const FILE = 'key: value  \n\n  nested: "x y"\nend\nINFX_EOF\ndata z\n';

describe('recipe protocol through recipes/lib.sh', () => {
  it('carries argv, env and files byte for byte: spaces, quotes, JSON, backslashes, tabs, empty words', () => {
    const r = render(
      'infx_env SPEC "$V1"\ninfx_env EMPTY ""\ninfx_file "$INFX_WORK_DIR/a.yaml" "$V2"\n' +
        'infx_note "$V3"\ninfx_ready /v1/models\ninfx_rank_flag --node-rank\ninfx_exec prog "$V1" "" "$V3" -x',
      // infx_file adds the final newline itself.
      { V1: JSON_VALUE, V2: FILE.slice(0, -1), V3: `it's "quoted" & $(not run) *`, INFX_WORK_DIR: '/w d' },
    );
    expect(r.status, r.stderr).toBe(0);
    const out = parseRecipeOutput(r.stdout, 't.sh');
    expect(out.argv).toEqual(['prog', JSON_VALUE, '', `it's "quoted" & $(not run) *`, '-x']);
    expect(out.env).toEqual({ SPEC: JSON_VALUE, EMPTY: '' });
    expect(out.files).toEqual([{ path: '/w d/a.yaml', content: FILE }]);
    expect(out.notes).toEqual([`it's "quoted" & $(not run) *`]);
    expect(out.readyPath).toBe('/v1/models');
    expect(out.rankFlag).toBe('--node-rank');
  });

  it('refuses a value with a newline instead of corrupting the protocol', () => {
    const r = render('infx_exec prog "$V"', { V: 'a\nb' });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/newline/);
  });

  it('writes files, exports env and execs when not rendering', () => {
    const out = join(dir, 'exec-out');
    const r = spawnSync(
      'bash',
      [
        '--norc',
        '-c',
        `source ${JSON.stringify(join(RECIPES, 'lib.sh'))}; infx_env GREETING "hi there"; ` +
          `infx_file "$D/x/f.txt" "line"; infx_exec bash -c 'printf "%s" "$GREETING" > "$D/env.txt"'`,
      ],
      { env: { PATH: process.env.PATH, D: out }, encoding: 'utf8' },
    );
    expect(r.status, r.stderr).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['env.txt', 'x']);
    expect(execFileSync('cat', [join(out, 'env.txt'), join(out, 'x/f.txt')], { encoding: 'utf8' })).toBe(
      'hi thereline\n',
    );
  });
});

describe('parseRecipeOutput', () => {
  const ok = 'infx-recipe-protocol 1\narg a b\ninfx-recipe-end\n';

  it('takes the rest of the line verbatim', () => {
    expect(parseRecipeOutput(ok, 'x.sh').argv).toEqual(['a b']);
    expect(
      parseRecipeOutput('infx-recipe-protocol 1\nenv A  two  spaces \narg p\ninfx-recipe-end', 'x').env,
    ).toEqual({ A: ' two  spaces ' });
  });

  it.each([
    ['no header', 'arg a\ninfx-recipe-end\n', /expected 'infx-recipe-protocol 1'/],
    [
      'stray output',
      'infx-recipe-protocol 1\nhello\narg a\ninfx-recipe-end\n',
      /\(line 2\): unknown record 'hello'/,
    ],
    ['no end', 'infx-recipe-protocol 1\narg a\n', /before infx-recipe-end/],
    ['open file', 'infx-recipe-protocol 1\nfile /f\ndata x\n', /not closed/],
    ['no command', 'infx-recipe-protocol 1\ninfx-recipe-end\n', /no command/],
    [
      'bad env name',
      'infx-recipe-protocol 1\nenv 1A x\narg a\ninfx-recipe-end\n',
      /invalid environment variable/,
    ],
    ['after end', `${ok}arg b\n`, /after infx-recipe-end/],
  ])('rejects %s, naming the recipe and line', (_, text, message) => {
    expect(() => parseRecipeOutput(text, 'x.sh')).toThrow(RecipeError);
    expect(() => parseRecipeOutput(text, 'x.sh')).toThrow(message);
  });
});
