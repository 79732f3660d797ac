import { engineCause } from '../engines/log-tail.ts';
import { shellJoin, shellQuote } from '../engines/shell.ts';
import type { EngineLaunch } from '../schema/engine-launch.ts';
import { plural } from '../schema/plural.ts';
import type { PointBench, PointStatus, RunManifest } from '../schema/run-dir.ts';
import { evalVerdictLine } from './point-eval.ts';
import { formatDuration } from './progress.ts';
import type { PointState } from './run-dir.ts';
import type { SweepOutcome } from './sweep.ts';

/** Text for people: the plan of a dry run, the state of a run, the summary at the end of a sweep. */

/** An engine exit without the log line after it: what status.json said before causes were read from the log. */
const BARE_EXIT =
  /(exited before it was ready|died during the benchmark) \((exit code -?\d+|signal \w+)\)\)?$/;

/**
 * Why a point failed, as `phase: reason`. A run directory written before the sweep read causes from the
 * engine's log still has the log's tail in status.json: the cause is read from it here.
 */
export function failureCause(s: Pick<PointStatus, 'phase' | 'reason' | 'logTail'>): string {
  const reason = s.reason ?? 'no reason recorded';
  const why = BARE_EXIT.test(reason) && s.logTail.length > 0 ? engineCause(reason, s.logTail) : reason;
  return `${s.phase ?? 'unknown phase'}: ${why}`;
}

/** What the client does at a planned point, in a few words. */
const benchLine = (b: PointBench): string =>
  b.kind === 'fixed-seq-len'
    ? `ISL ${b.isl} OSL ${b.osl}, ${plural(b.numPrompts, 'prompt')} + ${b.warmup} warmup`
    : `a ${b.durationS} s replay of ${b.traces.name}`;

export function formatPlan(
  manifest: RunManifest,
  launches: ReadonlyMap<string, EngineLaunch | string>,
): string {
  const lines: string[] = [];
  const gpus = manifest.points.reduce((a, p) => a + p.gpus.total, 0);
  const o = manifest.options;
  lines.push(
    `run ${manifest.runId}: ${plural(manifest.points.length, 'point')}, ${plural(gpus, 'GPU-slot')} in all; ` +
      `executor ${o.executor}${o.parallel > 1 ? ` (${o.parallel} at a time)` : ''}, retries ${o.retries}` +
      `${o.failFast ? ', fail-fast' : ''}${o.canary ? ', canary first' : ''}`,
  );
  for (const p of manifest.points) {
    const pools = p.gpus.prefill !== null ? ` (prefill ${p.gpus.prefill} + decode ${p.gpus.decode})` : '';
    lines.push('');
    lines.push(
      `${p.index + 1}. ${p.canary ? '[canary] ' : ''}${p.pointId}`,
      `   bucket ${p.bucket}, conc ${p.conc}, ${benchLine(p.bench)}, ${plural(p.gpus.total, 'GPU')}${pools}`,
    );
    const launch = launches.get(p.pointId);
    if (typeof launch === 'string') lines.push(`   engine: cannot render: ${launch}`);
    else if (launch)
      for (const proc of launch.processes) {
        const env = Object.entries(proc.env).map(([k, v]) => `${k}=${shellQuote(v)} `);
        lines.push(`   ${proc.role}: ${env.join('')}${shellJoin(proc.argv)}`);
      }
    if (p.engine.faults.length)
      lines.push(
        `   faults: ${p.engine.faults.map((f) => `${f.kind}${f.requests ? `:${f.requests}` : ''}`).join(', ')}`,
      );
  }
  if (manifest.skipped.length) {
    lines.push('', `${plural(manifest.skipped.length, 'row')} skipped:`);
    for (const s of manifest.skipped) lines.push(`  row ${s.index} ${s.expName}: ${s.reason}`);
  }
  return `${lines.join('\n')}\n`;
}

export type Headlines = ReadonlyMap<
  string,
  { totalPerGpu: number | null; interactivity: number | null } | null
>;

const num = (v: number | null) => (v === null ? '-' : v >= 100 ? v.toFixed(0) : v.toFixed(1));

export function formatStatus(
  manifest: RunManifest,
  states: ReadonlyMap<string, PointState>,
  headlines: Headlines = new Map(),
): string {
  const counts = { done: 0, failed: 0, pending: 0 };
  const lines: string[] = [];
  for (const p of manifest.points) {
    const s = states.get(p.pointId);
    if (!s) continue;
    counts[s.state]++;
    const tries = plural(s.attempts, 'attempt');
    let detail = '';
    if (s.state === 'done') {
      const h = headlines.get(p.pointId);
      const numbers = h ? `, ${num(h.totalPerGpu)} tok/s/GPU at ${num(h.interactivity)} tok/s/user` : '';
      detail = `${formatDuration(s.status.durationS)}${numbers}${s.status.valid === false ? `, not valid: ${s.status.reason}` : ''}`;
      // A run-eval point's verdict (an eval-only point has no numbers but this).
      if (s.status.eval) detail += `; ${evalVerdictLine(s.status.eval)}`;
    } else if (s.state === 'failed') detail = failureCause(s.status);
    else if (s.incomplete)
      detail = s.status ? `interrupted in ${s.status.phase}` : 'started, no status yet (running, or stopped)';
    lines.push(`${s.state.padEnd(7)} ${p.pointId}  [${tries}]${detail ? `  ${detail}` : ''}`);
  }
  const head =
    `run ${manifest.runId} (created ${manifest.createdAt}, ${manifest.options.executor} executor): ` +
    `${counts.done} done, ${counts.failed} failed, ${counts.pending} pending of ${manifest.points.length}`;
  return `${head}\n${lines.join('\n')}\n`;
}

export function formatOutcome(outcome: SweepOutcome, runDir: string, manifest: RunManifest): string {
  const lines = [
    `run ${manifest.runId}: ${outcome.ok.length} ok this sweep` +
      `${outcome.alreadyDone ? ` (+${outcome.alreadyDone} done before)` : ''}, ` +
      `${outcome.invalid.length ? `${outcome.invalid.length} not valid, ` : ''}${outcome.failed.length} failed, ` +
      `${outcome.notRun.length} not run; results in ${runDir}`,
  ];
  // One column of labels, as wide as the widest: the point ids line up under each other.
  const row = (label: string, id: string, why: string) => `  ${label.padEnd(9)} ${id}: ${why}`;
  for (const v of outcome.invalid) lines.push(row('not valid', v.pointId, v.reason));
  for (const f of outcome.failed) lines.push(row('failed', f.pointId, failureCause(f.status)));
  for (const n of outcome.notRun) lines.push(row('not run', n.pointId, n.reason));
  if (outcome.canaryFailed) lines.push('the canary failed, so no other point ran');
  if (outcome.interrupted || outcome.notRun.length)
    lines.push(`resume with: infx sweep --resume ${manifest.runId} --out ${runDir.replace(/\/[^/]+$/, '')}`);
  if (outcome.failed.length)
    lines.push(
      `rerun the failed points with: infx sweep retry ${runDir} --failed-only   (details: infx sweep status ${runDir})`,
    );
  return `${lines.join('\n')}\n`;
}
