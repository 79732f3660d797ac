import type { EvalResults } from '../schema/evals.ts';
import { GSM8K_TASK } from './gsm8k.ts';

/**
 * Python's `format(x, '.<digits>f')`: like toFixed, except that an exact tie rounds half to even (toFixed
 * rounds it up), so 0.03125 prints as 0.0312, as the reference's log lines print it.
 */
export function pyFixed(x: number, digits: number): string {
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : x < 0 ? '-inf' : 'nan';
  const exact = Math.abs(x).toFixed(100);
  const dot = exact.indexOf('.');
  const rest = exact.slice(dot + 1 + digits);
  if (rest[0] === '5' && /^50*$/.test(rest)) {
    const kept = exact.slice(0, dot + 1 + digits).replace('.', '');
    const last = Number(kept[kept.length - 1]);
    const up = last % 2 === 1;
    const scaled = BigInt(kept) + (up ? 1n : 0n);
    const s = scaled.toString().padStart(digits + 1, '0');
    const out = digits === 0 ? s : `${s.slice(0, s.length - digits)}.${s.slice(s.length - digits)}`;
    return (x < 0 ? '-' : '') + out;
  }
  return x.toFixed(digits);
}

const stderrText = (v: number | 'N/A') => (v === 'N/A' ? 'N/A' : pyFixed(v, 4));

/** The score as text: lm-eval's keys with their values, then what infx counted. */
export function formatResults(results: EvalResults): string {
  const r = results.results[GSM8K_TASK];
  if (r === undefined) return 'no gsm8k results\n';
  const n = results.infx;
  const lines = [
    `gsm8k (${results['n-shot'][GSM8K_TASK]}-shot, ${n.samples} samples)${n.simulator ? ` — simulated: the server is infx's simulated engine (${n.simulator}), so the score is too` : ''}`,
    `  exact_match,strict-match      ${pyFixed(r['exact_match,strict-match'], 4)} ± ${stderrText(r['exact_match_stderr,strict-match'])}  (${n.correct['strict-match']} correct)`,
    `  exact_match,flexible-extract  ${pyFixed(r['exact_match,flexible-extract'], 4)} ± ${stderrText(r['exact_match_stderr,flexible-extract'])}  (${n.correct['flexible-extract']} correct)`,
    `  failed requests ${n.failed} (graded wrong, not answers), empty ${n.empty}, truncated ${n.truncated}, retries ${n.retries}`,
  ];
  return `${lines.join('\n')}\n`;
}
