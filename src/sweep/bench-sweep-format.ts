import { plural } from '../schema/plural.ts';
import type { PointResult } from '../schema/point-result.ts';
import { manifestPath } from '../schema/run-dir-paths.ts';
import { formatBenchSummary } from './bench-summary.ts';
import type { BenchPointOutcome, BenchSweepReport } from './bench-sweep.ts';

/** What a person reads after `infx bench --concurrency …`: one line per point, the counts, what to do next. */

const num = (v: number | null | undefined) =>
  v === null || v === undefined ? '-' : v >= 100 ? v.toFixed(0) : v.toFixed(1);

/** The headline of a point's result: throughput per GPU at its median interactivity. */
export function headline(r: PointResult): string {
  return `${num(r.throughput.perGpu.total)} tok/s/GPU at ${num(r.interactivity.median)} tok/s/user, TTFT median ${num(r.latency.ttftMs.median)} ms`;
}

function verdict(o: BenchPointOutcome): string {
  const s = o.status;
  switch (o.kind) {
    case 'measured':
      return s?.valid === false ? `ok, but ${s.reason ?? 'the result is not valid'}` : 'ok';
    case 'already-done':
      return `done before (attempt ${o.attempt})${s?.valid === false ? `, but ${s.reason ?? 'the result is not valid'}` : ''}`;
    case 'failed':
      return `FAILED in ${s?.phase}: ${s?.reason}`;
    case 'interrupted':
      return 'interrupted';
    case 'not-run':
      return 'not run';
  }
}

/** One line for a point as it finishes (progress on stderr). */
export function formatPointLine(o: BenchPointOutcome, index: number, total: number): string {
  const figures = o.result && o.kind !== 'failed' ? `: ${headline(o.result)}` : '';
  return `point ${index + 1}/${total} (concurrency ${o.spec.conc}) ${verdict(o)}${figures}`;
}

/** Counts of the run's points by outcome, with the right plurals: `3 points measured, 1 failed`. */
export function countsLine(r: BenchSweepReport): string {
  const n = (k: BenchPointOutcome['kind']) => r.points.filter((p) => p.kind === k).length;
  const parts = [`${plural(n('measured'), 'point')} measured`];
  if (n('already-done')) parts.push(`${n('already-done')} done before`);
  const invalid = r.points.filter((p) => p.status?.status === 'ok' && p.status.valid === false).length;
  if (invalid) parts.push(`${invalid} not valid`);
  parts.push(`${n('failed')} failed`);
  if (n('interrupted')) parts.push(`${n('interrupted')} interrupted`);
  if (n('not-run')) parts.push(`${n('not-run')} not run`);
  return `run ${r.manifest.runId}: ${plural(r.points.length, 'point')}: ${parts.join(', ')}; results in ${r.runDir}`;
}

/** What to run next: resume an unfinished run, else ingest and plot it. */
export function nextSteps(r: BenchSweepReport): string[] {
  const unfinished = r.points.some((p) => p.kind === 'interrupted' || p.kind === 'not-run');
  const lines: string[] = [];
  if (r.stopped) lines.push(`stopped: ${r.stopped}`);
  if (unfinished) lines.push('run the same command again to measure the rest (the points measured are kept)');
  const ok = r.points.some((p) => p.status?.status === 'ok');
  if (ok) lines.push(`next: infx ingest ${r.runDir}, then infx plot ${r.runDir} --out chart.svg`);
  return lines;
}

/** The table of a run of several points, then the counts and the next steps. */
export function formatSweepSummary(r: BenchSweepReport): string {
  const rows = [['conc', 'tok/s/GPU', 'tok/s/user', 'TTFT ms', 'status']];
  for (const o of r.points) {
    const res = o.kind === 'failed' ? null : o.result;
    rows.push([
      String(o.spec.conc),
      num(res?.throughput.perGpu.total),
      num(res?.interactivity.median),
      num(res?.latency.ttftMs.median),
      verdict(o),
    ]);
  }
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((row) => row[c]!.length)));
  const table = rows.map((row) =>
    row.map((cell, c) => (c === row.length - 1 ? cell : cell.padStart(widths[c]!))).join('  '),
  );
  return `${[...table, countsLine(r), ...nextSteps(r)].join('\n')}\n`;
}

/** A one-point run: the point's full summary, as `infx bench` has always printed it, then the run's line. */
export function formatSinglePointSummary(r: BenchSweepReport): string {
  const point = r.points[0];
  const files = [...r.topLevel, manifestPath(r.runDir)];
  const head = point?.result ? formatBenchSummary(point.result, files) : '';
  return `${head}${[countsLine(r), ...nextSteps(r)].join('\n')}\n`;
}
