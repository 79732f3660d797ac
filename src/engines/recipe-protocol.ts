import type { EngineFile } from '../schema/engine-launch.ts';
import { RecipeError } from './frameworks.ts';

/**
 * The line protocol a recipe prints with INFX_RENDER=1 (defined in recipes/lib.sh): one record per line,
 * `TAG VALUE` where VALUE is the rest of the line verbatim, so values may hold spaces, quotes and JSON;
 * file contents travel as `data` lines between `file PATH` and `end`.
 */

export const PROTOCOL_VERSION = '1';

export interface RenderedRecipe {
  argv: string[];
  env: Record<string, string>;
  files: EngineFile[];
  readyPath: string;
  /** The flag that takes the node rank when the process spans several nodes; null when none. */
  rankFlag: string | null;
  notes: string[];
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function split(line: string): [string, string] {
  const space = line.indexOf(' ');
  return space < 0 ? [line, ''] : [line.slice(0, space), line.slice(space + 1)];
}

/** Parses a recipe's render output; `recipe` names it in errors. */
export function parseRecipeOutput(text: string, recipe: string): RenderedRecipe {
  // A trailing newline ends the last record; it does not start another.
  const lines = text.endsWith('\n') ? text.slice(0, -1).split('\n') : text.split('\n');
  const fail = (n: number, what: string): never => {
    throw new RecipeError(`${recipe} printed an invalid render (line ${n + 1}): ${what}`);
  };
  if (lines[0] !== `infx-recipe-protocol ${PROTOCOL_VERSION}`)
    fail(
      0,
      `expected 'infx-recipe-protocol ${PROTOCOL_VERSION}', got '${lines[0] ?? ''}': a recipe must end with infx_exec (recipes/lib.sh) and print nothing else on stdout`,
    );
  const out: RenderedRecipe = {
    argv: [],
    env: {},
    files: [],
    readyPath: '/health',
    rankFlag: null,
    notes: [],
  };
  let file: { path: string; lines: string[] } | null = null;
  let ended = false;
  for (let n = 1; n < lines.length; n++) {
    const line = lines[n] as string;
    if (ended) fail(n, `unexpected output after infx-recipe-end: '${line}'`);
    const [tag, value] = split(line);
    if (file) {
      if (tag === 'data') file.lines.push(value);
      else if (line === 'end') {
        out.files.push({ path: file.path, content: file.lines.map((l) => `${l}\n`).join('') });
        file = null;
      } else fail(n, `expected 'data' or 'end' inside file ${file.path}, got '${line}'`);
      continue;
    }
    switch (tag) {
      case 'env': {
        const [name, val] = split(value);
        if (!ENV_NAME.test(name)) fail(n, `invalid environment variable name '${name}'`);
        out.env[name] = val;
        break;
      }
      case 'file':
        if (value === '') fail(n, 'file without a path');
        file = { path: value, lines: [] };
        break;
      case 'arg':
        out.argv.push(value);
        break;
      case 'ready':
        if (!value.startsWith('/')) fail(n, `ready path must start with '/', got '${value}'`);
        out.readyPath = value;
        break;
      case 'rankflag':
        out.rankFlag = value || null;
        break;
      case 'note':
        out.notes.push(value);
        break;
      case 'infx-recipe-end':
        ended = true;
        break;
      default:
        fail(n, `unknown record '${line}'`);
    }
  }
  if (file) fail(lines.length - 1, `file ${file.path} is not closed with 'end'`);
  if (!ended) fail(lines.length - 1, 'output ends before infx-recipe-end (the recipe stopped early)');
  if (out.argv.length === 0) fail(lines.length - 1, 'no command (no arg records)');
  return out;
}
