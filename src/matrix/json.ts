/**
 * JSON text as Python's `json.dumps` writes it: `", "` and `": "` separators (or none, for canonical
 * hashing), non-ASCII escaped as \uXXXX. Matrix output must match the reference byte for byte.
 */

const NON_ASCII = /[\u0080-\uffff]/g;

function pyString(s: string): string {
  const json = JSON.stringify(s);
  // JSON.stringify leaves U+2028/9 and everything above ASCII as-is; Python's ensure_ascii escapes them.
  return json.replace(NON_ASCII, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Python's float repr: shortest round-trip digits, exponent form below 1e-4 and from 1e16. */
function pyFloat(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : '-Infinity';
  if (Number.isInteger(x) && Math.abs(x) < 1e16) return String(x);
  const abs = Math.abs(x);
  if (abs >= 1e-4 && abs < 1e16) return String(x);
  const [mant, exp] = x.toExponential().split('e') as [string, string];
  const e = Number(exp);
  return `${mant}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
}

function write(value: unknown, item: string, kv: string, sortKeys: boolean, out: string[]): void {
  if (value === null || value === undefined) out.push('null');
  else if (typeof value === 'string') out.push(pyString(value));
  else if (typeof value === 'number') out.push(pyFloat(value));
  else if (typeof value === 'boolean') out.push(value ? 'true' : 'false');
  else if (Array.isArray(value)) {
    out.push('[');
    value.forEach((v, i) => {
      if (i > 0) out.push(item);
      write(v, item, kv, sortKeys, out);
    });
    out.push(']');
  } else if (typeof value === 'object') {
    out.push('{');
    let keys = Object.keys(value).filter((k) => (value as Record<string, unknown>)[k] !== undefined);
    if (sortKeys) keys = keys.sort();
    keys.forEach((k, i) => {
      if (i > 0) out.push(item);
      out.push(pyString(k), kv);
      write((value as Record<string, unknown>)[k], item, kv, sortKeys, out);
    });
    out.push('}');
  } else throw new TypeError(`cannot serialise ${typeof value} as JSON`);
}

/** `json.dumps(value)` */
export function pyDumps(value: unknown): string {
  const out: string[] = [];
  write(value, ', ', ': ', false, out);
  return out.join('');
}

/** `json.dumps(value, sort_keys=True, separators=(",", ":"))`, the form hashed for fingerprints and keys. */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  write(value, ',', ':', true, out);
  return out.join('');
}
