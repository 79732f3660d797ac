/**
 * JSON text as Python's `json.dumps` writes it: `", "` and `": "` separators (or none, for canonical
 * hashing), non-ASCII escaped as \uXXXX. Matrix output must match the reference byte for byte.
 */

// Python's ensure_ascii escapes everything outside printable ASCII that JSON.stringify leaves raw (DEL and up).
const NON_ASCII = /[\u007f-\uffff]/;
const NON_ASCII_ALL = new RegExp(NON_ASCII.source, 'g');
const escapeNonAscii = (json: string) =>
  json.replace(NON_ASCII_ALL, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);

function pyString(s: string): string {
  const json = JSON.stringify(s);
  return NON_ASCII.test(json) ? escapeNonAscii(json) : json;
}

/** Python's float repr: shortest round-trip digits, exponent form below 1e-4 and from 1e16. */
function pyFloat(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : '-Infinity';
  // Integral values are taken to be Python ints (YAML and JSON ints), which never use an exponent.
  if (Number.isInteger(x)) return Math.abs(x) < 1e21 ? String(x) : BigInt(x).toString();
  const abs = Math.abs(x);
  if (abs >= 1e-4 && abs < 1e16) return String(x);
  const [mant, exp] = x.toExponential().split('e') as [string, string];
  const e = Number(exp);
  return `${mant}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
}

function write(value: unknown, item: string, kv: string, sortKeys: boolean): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return pyString(value);
  if (typeof value === 'number') return pyFloat(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i > 0 ? item : '') + write(value[i], item, kv, sortKeys);
    return `${out}]`;
  }
  if (typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj).filter((k) => obj[k] !== undefined);
    if (sortKeys) keys.sort();
    let out = '{';
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      out += (i > 0 ? item : '') + pyString(k) + kv + write(obj[k], item, kv, sortKeys);
    }
    return `${out}}`;
  }
  throw new TypeError(`cannot serialise ${typeof value} as JSON`);
}

/**
 * Number text that JS and Python may print differently (exponent forms, and tiny decimals that Python
 * writes as `1e-05`). A match inside a string is harmless: it only sends the value down the slow path.
 */
const NUMBER_FORM_RISK = /(?:: |\[|, )-?(?:\d+(?:\.\d+)?[eE][-+]?\d|0\.0000\d)/;

/**
 * `json.dumps(value)`. The fast path lets V8 serialise with one-space indentation, then folds the line
 * breaks into Python's separators: raw newlines in JSON text are always structural, never inside strings.
 */
export function pyDumps(value: unknown): string {
  const folded = JSON.stringify(value, null, 1).split(/,\n */).join(', ').split(/\n */).join('');
  if (NUMBER_FORM_RISK.test(folded)) return write(value, ', ', ': ', false);
  return NON_ASCII.test(folded) ? escapeNonAscii(folded) : folded;
}

/** `json.dumps(value, sort_keys=True, separators=(",", ":"))`, the form hashed for fingerprints and keys. */
export function canonicalJson(value: unknown): string {
  return write(value, ',', ':', true);
}

/** `json.dumps(value, separators=(",", ":"))`: the changelog processor's compact stdout, keys in order. */
export function compactJson(value: unknown): string {
  return write(value, ',', ':', false);
}
