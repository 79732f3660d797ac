import { formatValue } from '../../analysis/ticks.ts';

/** Number, date and command-line formatting for the views. */

export const fmt = (v: number | null | undefined, digits = 3): string => formatValue(v ?? null, digits);

export const pct = (v: number | null): string =>
  v === null ? 'N/A' : `${v >= 0 ? '+' : ''}${v.toFixed(1)}%`;

export const money = (v: number | null): string =>
  v === null
    ? 'N/A'
    : `$${v < 1 ? v.toFixed(3) : v < 100 ? v.toFixed(2) : Math.round(v).toLocaleString('en-US')}`;

/** `2026-01-05 14:03 UTC`. */
export function when(iso: string | null): string {
  if (iso === null) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** A command line as a POSIX shell would take it back. */
export function shellQuote(argv: readonly string[]): string {
  return argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replaceAll("'", `'\\''`)}'`)).join(' ');
}

const kTokens = (n: number) => (n % 1024 === 0 ? `${n / 1024}k` : String(n));
export const workload = (isl: number, osl: number) => `${kTokens(isl)}/${kTokens(osl)}`;
