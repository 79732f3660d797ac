/**
 * Shell words as a POSIX shell expands them, for reading engine recipes: quotes, `$NAME`,
 * `${NAME:-default}` and its kin, and `$(( ))` integer arithmetic. A command substitution, or a variable
 * the reader has lost track of, expands to null (unknown), never to a guess.
 */

/** A variable's value: a string, or null when the script makes it unknowable here. */
export type Value = string | null;
export type Vars = Map<string, Value>;

export interface LogicalLine {
  text: string;
  line: number;
  /** Where each physical line after the first starts in `text`. */
  breaks: number[];
}

/** Lines with their `\`-newline continuations joined, each numbered by its first physical line. */
export function logicalLines(script: string): LogicalLine[] {
  const out: LogicalLine[] = [];
  const physical = script.split('\n');
  for (let i = 0; i < physical.length; i++) {
    const start = i;
    let text = physical[i] ?? '';
    const breaks: number[] = [];
    while (text.endsWith('\\') && i + 1 < physical.length) {
      text = `${text.slice(0, -1)} `;
      breaks.push(text.length);
      text += physical[++i];
    }
    out.push({ text, line: start + 1, breaks });
  }
  return out;
}

/** The physical line of offset `at` in a logical line. */
export function lineAt(l: LogicalLine, at: number): number {
  return l.line + l.breaks.filter((b) => b <= at).length;
}

/**
 * Walks `text` (up to `end`) as the shell quotes it, asking `stop` at each unquoted character: where it
 * stopped (or `end`), and the quote open there.
 */
export function walkQuotes(
  text: string,
  stop: (i: number) => boolean,
  end = text.length,
): { at: number; quote: string | null } {
  let quote: string | null = null;
  for (let i = 0; i < end; i++) {
    const c = text[i];
    if (quote) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"') i++;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '\\') i++;
    else if (stop(i)) return { at: i, quote: null };
  }
  return { at: end, quote };
}

/** The text up to an unquoted `#` that starts a comment. */
export function stripComment(text: string): string {
  const { at } = walkQuotes(text, (i) => text[i] === '#' && (i === 0 || /\s/.test(text[i - 1] ?? '')));
  return text.slice(0, at);
}

/** The end (exclusive) of a `(`…`)` group opened at `open`, or -1. */
function closing(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')' && --depth === 0) return i + 1;
  }
  return -1;
}

/**
 * One shell word from `start`: its expansion and where it ends. `inQuotes`: the word sits inside a
 * double-quoted string (a flag's value in `ARGS="--max-num-seqs 256"`), so the closing quote ends it too.
 */
export function readWord(
  text: string,
  start: number,
  vars: Vars,
  inQuotes = false,
): { value: Value; end: number } {
  let out: string | null = '';
  let i = start;
  const add = (v: Value) => {
    out = out === null || v === null ? null : out + v;
  };
  let quote: '"' | null = null;
  while (i < text.length) {
    const c = text[i] as string;
    if (!quote && (/\s/.test(c) || ';&|<>)'.includes(c))) break;
    if (c === '"' && inQuotes) break;
    if (c === '"') {
      quote = quote ? null : '"';
      i++;
    } else if (c === "'" && !quote) {
      const end = text.indexOf("'", i + 1);
      if (end < 0) return { value: null, end: text.length };
      add(text.slice(i + 1, end));
      i = end + 1;
    } else if (c === '\\') {
      add(text[i + 1] ?? '');
      i += 2;
    } else if (c === '$') {
      const e = expansion(text, i, vars);
      add(e.value);
      i = e.end;
    } else {
      add(c);
      i++;
    }
  }
  return { value: out, end: i };
}

/** `$NAME`, `${NAME…}`, `$(( … ))` or `$( … )` at `i`. */
function expansion(text: string, i: number, vars: Vars): { value: Value; end: number } {
  if (text.startsWith('$((', i)) {
    const end = closing(text, i + 1);
    if (end < 0) return { value: null, end: text.length };
    const n = arithmetic(text.slice(i + 3, end - 2), vars);
    return { value: n === null ? null : String(n), end };
  }
  if (text[i + 1] === '(') {
    const end = closing(text, i + 1);
    return { value: null, end: end < 0 ? text.length : end };
  }
  if (text[i + 1] === '{') {
    const end = text.indexOf('}', i + 2);
    if (end < 0) return { value: null, end: text.length };
    return { value: parameter(text.slice(i + 2, end), vars), end: end + 1 };
  }
  const m = /^[A-Za-z_]\w*/.exec(text.slice(i + 1));
  if (!m) return { value: '$', end: i + 1 };
  return { value: lookup(vars, m[0]), end: i + 1 + m[0].length };
}

/** An unset variable reads as empty, as the shell reads it; a variable this reader lost reads unknown. */
function lookup(vars: Vars, name: string): Value {
  return vars.has(name) ? (vars.get(name) as Value) : '';
}

function parameter(body: string, vars: Vars): Value {
  const m = /^([A-Za-z_]\w*)(?:(:?)([-=?+])(.*))?$/s.exec(body);
  if (!m) return null;
  const [, name, colon, op, word] = m as unknown as [string, string, string, string | undefined, string];
  const v = vars.has(name) ? (vars.get(name) as Value) : undefined;
  if (op === undefined) return v ?? '';
  if (v === null) return null;
  const unset = v === undefined || (colon === ':' && v === '');
  if (op === '+') return unset ? '' : readWord(word, 0, vars).value;
  if (!unset) return v;
  if (op === '?') return null;
  const d = readWord(word, 0, vars).value;
  if (op === '=') vars.set(name, d);
  return d;
}

const TOKEN = /\s*(\d+|[A-Za-z_]\w*|\$\{?[A-Za-z_]\w*\}?|&&|\|\||==|!=|<=|>=|[-+*/%()<>?:!])/y;

/** Integer arithmetic as `$(( ))` does it (names read as numbers, unset as 0); null when it cannot. */
export function arithmetic(expr: string, vars: Vars): number | null {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  let m = TOKEN.exec(expr);
  let end = 0;
  while (m) {
    tokens.push(m[1] as string);
    end = TOKEN.lastIndex;
    m = TOKEN.exec(expr);
  }
  if (expr.slice(end).trim() !== '') return null;
  let pos = 0;
  const peek = () => tokens[pos];
  const atom = (): number | null => {
    const t = tokens[pos++];
    if (t === undefined) return null;
    if (t === '(') {
      const v = ternary();
      return tokens[pos++] === ')' ? v : null;
    }
    if (t === '-' || t === '+' || t === '!') {
      const v = atom();
      if (v === null) return null;
      return t === '-' ? -v : t === '!' ? Number(v === 0) : v;
    }
    if (/^\d+$/.test(t)) return Number(t);
    const name = t.replace(/^\$\{?|\}$/g, '');
    if (!/^[A-Za-z_]\w*$/.test(name)) return null;
    const v = lookup(vars, name);
    if (v === null) return null;
    if (v.trim() === '') return 0;
    return /^\s*-?\d+\s*$/.test(v) ? Number(v) : null;
  };
  const LEVELS: readonly (readonly string[])[] = [
    ['||'],
    ['&&'],
    ['==', '!='],
    ['<', '<=', '>', '>='],
    ['+', '-'],
    ['*', '/', '%'],
  ];
  const binary = (level: number): number | null => {
    if (level === LEVELS.length) return atom();
    let left = binary(level + 1);
    while (LEVELS[level]?.includes(peek() ?? '')) {
      const op = tokens[pos++] as string;
      const right = binary(level + 1);
      if (left === null || right === null) return null;
      left = apply(op, left, right);
      if (left === null) return null;
    }
    return left;
  };
  const ternary = (): number | null => {
    const cond = binary(0);
    if (peek() !== '?') return cond;
    pos++;
    const yes = ternary();
    if (tokens[pos++] !== ':') return null;
    const no = ternary();
    return cond === null || yes === null || no === null ? null : cond !== 0 ? yes : no;
  };
  const v = ternary();
  return pos === tokens.length ? v : null;
}

function apply(op: string, a: number, b: number): number | null {
  switch (op) {
    case '||':
      return Number(a !== 0 || b !== 0);
    case '&&':
      return Number(a !== 0 && b !== 0);
    case '==':
      return Number(a === b);
    case '!=':
      return Number(a !== b);
    case '<':
      return Number(a < b);
    case '<=':
      return Number(a <= b);
    case '>':
      return Number(a > b);
    case '>=':
      return Number(a >= b);
    case '+':
      return a + b;
    case '-':
      return a - b;
    case '*':
      return a * b;
    default:
      if (b === 0) return null;
      return op === '/' ? Math.trunc(a / b) : a % b;
  }
}
