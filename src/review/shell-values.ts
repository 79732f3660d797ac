import {
  arithmetic,
  lineAt,
  logicalLines,
  readWord,
  stripComment,
  type Value,
  type Vars,
  walkQuotes,
} from './shell-words.ts';

/**
 * Just enough of a POSIX shell to read an engine recipe's flag values at one benchmark point: the script
 * runs line by line with the point's environment (CONC, TP, ...), through assignments and `if` arms on
 * simple tests. An arm whose test it cannot decide, a loop or a `case` makes what they assign unknown,
 * and a flag passed there uncertain: rules on such a value stay silent rather than guess.
 */

export interface FlagValue {
  /** The flag, with `_` read as `-` (`--max_num_seqs` is `--max-num-seqs`). */
  flag: string;
  /** The expanded value (null: unknown; '' for a switch). */
  value: Value;
  line: number;
  /** false when the line sits in an arm, loop or case whose running could not be decided. */
  certain: boolean;
}

type Branch = 'taken' | 'skipped' | 'unknown';

interface Frame {
  kind: 'if' | 'loop' | 'case';
  /** Whether the code around the block runs. */
  outer: Branch;
  /** An earlier arm of this `if` was taken for sure: later arms are skipped. */
  done: boolean;
  /** Some earlier arm may have run. */
  maybe: boolean;
  now: Branch;
  /** Variables assigned where the block may or may not run: unknown once it closes. */
  touched: Set<string>;
}

const ASSIGN = /^\s*(?:(?:export|local|readonly|declare(?:\s+-\w+)*)\s+)?([A-Za-z_]\w*)=/;
const FLAG = /(?<=^|[\s"'=])--[A-Za-z][A-Za-z0-9_-]*(?=[=\s"']|$)/g;
const CHAINED_ASSIGN = /(?:&&|\|\|)\s*(?:export\s+)?([A-Za-z_]\w*)=/g;

/**
 * The flags of `names` as the script passes them at the point `env`: every occurrence outside skipped
 * arms, in script order, each expanded with the variables as they stand on its line.
 */
export function flagValues(
  script: string,
  env: Readonly<Record<string, string>>,
  names: ReadonlySet<string>,
): FlagValue[] {
  return interpret(script, env, names).flags;
}

/**
 * What a recipe hands the engine at one point: every flag it passes (`--flag=value`, `?` where the value
 * or its passing is unknown) and every variable it exports, as they stand at the end of the script.
 */
export function recipeSurface(
  script: string,
  env: Readonly<Record<string, string>>,
): { flags: string[]; exports: Map<string, Value> } {
  const { flags, vars, exported } = interpret(script, env, 'all');
  return {
    flags: flags.map((f) => `${f.flag}=${f.certain && f.value !== null ? f.value : '?'}`),
    exports: new Map([...exported].sort().map((name) => [name, vars.get(name) ?? null])),
  };
}

function interpret(
  script: string,
  env: Readonly<Record<string, string>>,
  names: ReadonlySet<string> | 'all',
): { flags: FlagValue[]; vars: Vars; exported: Set<string> } {
  const vars: Vars = new Map(Object.entries(env));
  const exported = new Set<string>();
  const frames: Frame[] = [];
  const out: FlagValue[] = [];
  const state = (): Branch => frames.at(-1)?.now ?? 'taken';
  const open = (kind: Frame['kind']) =>
    frames.push({ kind, outer: state(), done: false, maybe: true, now: 'unknown', touched: new Set() });
  for (const logical of logicalLines(script)) {
    for (let { text: stmt, at: offset } of statements(stripComment(logical.text))) {
      for (let m = /^(then|do|else)\b\s*/.exec(stmt); m; m = /^(then|do|else)\b\s*/.exec(stmt)) {
        const f = frames.at(-1);
        if (m[1] === 'else' && f?.kind === 'if') f.now = arm(f, 'taken');
        stmt = stmt.slice(m[0].length);
        offset += m[0].length;
      }
      const head = /^(if|elif|fi|for|while|until|done|case|esac)\b/.exec(stmt)?.[1];
      if (head === 'if' || head === 'elif') {
        if (head === 'if')
          frames.push({
            kind: 'if',
            outer: state(),
            done: false,
            maybe: false,
            now: 'skipped',
            touched: new Set(),
          });
        const f = frames.at(-1);
        const test = condition(stmt.replace(/^(el)?if\s+/, '').replace(/\s*then$/, ''), vars);
        if (f?.kind === 'if') f.now = arm(f, test === null ? 'unknown' : test ? 'taken' : 'skipped');
        continue;
      }
      if (head === 'for' || head === 'while' || head === 'until' || head === 'case') {
        open(head === 'case' ? 'case' : 'loop');
        continue;
      }
      if (head === 'fi' || head === 'done' || head === 'esac') {
        const f = frames.pop();
        for (const name of f?.touched ?? []) {
          vars.set(name, null);
          frames.at(-1)?.touched.add(name);
        }
        continue;
      }
      if (frames.at(-1)?.kind === 'case') {
        const pattern = /^\(?[^()=\s]*\)\s*/.exec(stmt)?.[0] ?? '';
        stmt = stmt.slice(pattern.length).replace(/;;$/, '');
        offset += pattern.length;
      }
      const s = state();
      if (s === 'skipped' || stmt === '') continue;
      scanFlags(stmt, (i) => lineAt(logical, offset + i), s === 'taken', vars, names, out);
      assign(stmt, vars, s === 'taken' ? null : (frames.at(-1)?.touched ?? new Set()));
      const exports = /^export\s+(.*)$/.exec(stmt)?.[1];
      for (const m of exports?.matchAll(/(?:^|\s)([A-Za-z_]\w*)(?==|\s|$)/g) ?? [])
        exported.add(m[1] as string);
    }
  }
  return { flags: out, vars, exported };
}

/** Where an `if` arm runs, from its own test and the arms before it. */
function arm(f: Frame, test: Branch): Branch {
  if (f.outer === 'skipped' || f.done) return 'skipped';
  let now = test;
  if (now === 'taken' && (f.maybe || f.outer === 'unknown')) now = 'unknown';
  if (test === 'taken' && !f.maybe) f.done = true;
  if (now !== 'skipped') f.maybe = true;
  return now;
}

/** A line split at unquoted `;` (not `;;`), each statement with its offset in the line. */
function statements(text: string): { text: string; at: number }[] {
  const out: { text: string; at: number }[] = [];
  let quote: string | null = null;
  let from = 0;
  const push = (end: number) => {
    const raw = text.slice(from, end);
    const lead = raw.length - raw.trimStart().length;
    if (raw.trim() !== '') out.push({ text: raw.trim(), at: from + lead });
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === ';' && text[i + 1] !== ';' && text[i - 1] !== ';') {
      push(i);
      from = i + 1;
    }
  }
  push(text.length);
  return out;
}

function assign(stmt: string, vars: Vars, maybe: Set<string> | null): void {
  // `[ … ] && MAX=256`: assigned or not, this reader cannot tell.
  for (const m of stmt.matchAll(CHAINED_ASSIGN)) {
    vars.set(m[1] as string, null);
    maybe?.add(m[1] as string);
  }
  let rest = stmt;
  const pending: [string, Value][] = [];
  for (let m = ASSIGN.exec(rest); m; m = ASSIGN.exec(rest)) {
    const w = readWord(rest, m[0].length, vars);
    pending.push([m[1] as string, w.value]);
    rest = rest.slice(w.end);
  }
  // `A=1 cmd` sets A for cmd only.
  if (pending.length === 0 || rest.trim() !== '') return;
  for (const [name, value] of pending) {
    vars.set(name, maybe ? null : value);
    maybe?.add(name);
  }
}

/** Whether `pos` is inside a double-quoted string of `text`. */
const inDoubleQuotes = (text: string, pos: number) => walkQuotes(text, () => false, pos).quote === '"';

function scanFlags(
  stmt: string,
  lineOf: (offset: number) => number,
  certain: boolean,
  vars: Vars,
  names: ReadonlySet<string> | 'all',
  out: FlagValue[],
): void {
  // `[ … ] && ARGS="--enforce-eager"`: the flag is passed only when the test holds.
  const sure = certain && splitTop(stmt, ['&&', '||']).length === 1;
  for (const m of stmt.matchAll(FLAG)) {
    const flag = m[0].replaceAll('_', '-');
    if (names !== 'all' && !names.has(flag)) continue;
    let at = (m.index ?? 0) + m[0].length;
    const quoted = inDoubleQuotes(stmt, at);
    let hasValue = stmt[at] === '=';
    if (hasValue) at++;
    else {
      while (/\s/.test(stmt[at] ?? '')) at++;
      const next = stmt[at];
      hasValue = next !== undefined && next !== '-' && !(quoted && next === '"') && !';&|'.includes(next);
    }
    const value = hasValue ? readWord(stmt, at, vars, quoted).value : '';
    out.push({ flag, value, line: lineOf(m.index ?? 0), certain: sure });
  }
}

/**
 * An `if` test: `[[ … ]]`, `[ … ]` or `test …` on numbers and strings, `(( … ))`, joined by `&&` and
 * `||` and negated by `!`; null for anything else (a command's exit status).
 */
export function condition(test: string, vars: Vars): boolean | null {
  const t = test.trim();
  const parts = splitTop(t, ['&&', '||']);
  if (parts.length > 1) {
    let acc = condition(parts[0] as string, vars);
    for (let i = 1; i < parts.length; i += 2) {
      const next = condition(parts[i + 1] as string, vars);
      if (parts[i] === '&&') acc = acc === false || next === false ? false : acc && next;
      else acc = acc === true || next === true ? true : acc === null || next === null ? null : false;
    }
    return acc;
  }
  if (t.startsWith('!')) {
    const v = condition(t.slice(1), vars);
    return v === null ? null : !v;
  }
  let m = /^\(\((.*)\)\)$/s.exec(t);
  if (m) {
    const n = arithmetic(m[1] as string, vars);
    return n === null ? null : n !== 0;
  }
  m = /^\[\[(.*)\]\]$/s.exec(t) ?? /^\[(.*)\]$/s.exec(t) ?? /^test\s(.*)$/s.exec(t);
  return m ? primary(m[1] as string, vars) : null;
}

/** `s` split at top-level `ops` outside quotes and brackets: operands with the operators between. */
function splitTop(s: string, ops: readonly string[]): string[] {
  const out: string[] = [];
  let depth = 0;
  let quote: string | null = null;
  let from = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i] as string;
    if (quote) {
      if (c === quote) quote = null;
      continue;
    }
    if (c === "'" || c === '"') quote = c;
    else if (c === '[' || c === '(') depth++;
    else if (c === ']' || c === ')') depth--;
    else if (depth === 0) {
      const op = ops.find((o) => s.startsWith(o, i));
      if (op) {
        out.push(s.slice(from, i), op);
        from = i + op.length;
        i += op.length - 1;
      }
    }
  }
  out.push(s.slice(from));
  return out;
}

const NUMERIC: Readonly<Record<string, (a: number, b: number) => boolean>> = {
  '-eq': (a, b) => a === b,
  '-ne': (a, b) => a !== b,
  '-lt': (a, b) => a < b,
  '-le': (a, b) => a <= b,
  '-gt': (a, b) => a > b,
  '-ge': (a, b) => a >= b,
};

/** One test inside the brackets (with `&&`, `||`, `-a`, `-o` between tests). */
function primary(body: string, vars: Vars): boolean | null {
  const joined = splitTop(body, ['&&', '||', ' -a ', ' -o ']);
  if (joined.length > 1) {
    const expr = joined
      .map((p, i) =>
        i % 2 === 1 ? (({ ' -a ': '&&', ' -o ': '||' } as Record<string, string>)[p] ?? p) : `[${p}]`,
      )
      .join(' ');
    return condition(expr, vars);
  }
  const words: Value[] = [];
  let i = 0;
  while (i < body.length) {
    if (/\s/.test(body[i] as string)) {
      i++;
      continue;
    }
    const w = readWord(body, i, vars);
    words.push(w.value);
    i = Math.max(w.end, i + 1);
  }
  if (words.includes(null)) return null;
  const [a, op, b, ...more] = words as string[];
  if (more.length > 0) return null;
  if (a === '!' && op !== undefined) {
    const v = primary(body.replace(/^\s*!/, ''), vars);
    return v === null ? null : !v;
  }
  if (op === undefined) return a !== undefined && a !== '';
  if (b === undefined) return a === '-n' ? op !== '' : a === '-z' ? op === '' : null;
  // A pattern (`== mtp*`) is not an equality this reader decides.
  if ((op === '=' || op === '==' || op === '!=') && /[*?[]/.test(b)) return null;
  if (op === '=' || op === '==') return a === b;
  if (op === '!=') return a !== b;
  const num = NUMERIC[op];
  if (!num || !/^\s*-?\d+\s*$/.test(a ?? '') || !/^\s*-?\d+\s*$/.test(b)) return null;
  return num(Number(a), Number(b));
}
