import { plural } from '../schema/plural.ts';
import type { PointResult, Stats } from '../schema/point-result.ts';

/** The few lines a person reads after `infx bench`; everything else is in result.json. */

const f = (v: number | null, digits = 1) => (v === null ? 'n/a' : v.toFixed(digits));

function stat(name: string, s: Stats, unit: string): string {
  return `${name.padEnd(16)} median ${f(s.median, 2)} ${unit}, p90 ${f(s.p90, 2)}, p99 ${f(s.p99, 2)}, mean ${f(s.mean, 2)} (n=${s.count})`;
}

export function formatBenchSummary(r: PointResult, files: readonly string[]): string {
  const t = r.throughput;
  const lines = [
    `completed ${r.counts.completed}/${r.counts.scheduled} in ${r.timing.durationS.toFixed(2)} s` +
      `${r.engine.kind === 'simulated' ? ` simulated (${r.timing.wallDurationS.toFixed(2)} s of wall time)` : ''}` +
      `${r.counts.failed ? `, ${r.counts.failed} failed (${(r.counts.failureRate * 100).toFixed(1)}%)` : ''}` +
      `${r.counts.cancelled ? `, ${r.counts.cancelled} cancelled` : ''}`,
    `throughput       ${f(t.requestsPerS, 2)} req/s, output ${f(t.outputTokensPerS)} tok/s, total ${f(t.totalTokensPerS)} tok/s`,
  ];
  if (t.perGpu.total !== null)
    lines.push(
      `per GPU          total ${f(t.perGpu.total)} tok/s, output ${f(t.perGpu.output)}, input ${f(t.perGpu.input)}`,
    );
  lines.push(
    stat('TTFT', r.latency.ttftMs, 'ms'),
    stat('TPOT', r.latency.tpotMs, 'ms'),
    stat('ITL', r.latency.itlMs, 'ms'),
    stat('E2EL', r.latency.e2elMs, 'ms'),
    `interactivity    median ${f(r.interactivity.median)} tok/s/user, p90 ${f(r.interactivity.p90)}, p99 ${f(r.interactivity.p99)}`,
    `tokens           input ${r.tokens.totalInput}, output ${r.tokens.totalOutput} (counts from ${r.tokens.source}` +
      `${r.tokens.mismatch.output || r.tokens.mismatch.input ? `; client and server disagree on ${r.tokens.mismatch.input} input / ${r.tokens.mismatch.output} output counts` : ''})`,
  );
  const flagged = r.counts.usageFlagged ?? 0;
  if (flagged) {
    const by = r.tokens.flagged;
    lines.push(
      `warning: the server's token counts failed the usage check on ${flagged} requests` +
        `${by ? ` (${by.input} prompt_tokens, ${by.output} completion_tokens)` : ''}: the client's own counts were used (usageFlag in requests.jsonl says why)`,
    );
  }
  if (r.counts.shortOutput)
    lines.push(`warning: ${r.counts.shortOutput} requests produced fewer tokens than asked for`);
  const errors = Object.entries(r.errors.byCategory);
  if (errors.length) lines.push(`errors           ${errors.map(([k, n]) => `${k} ${n}`).join(', ')}`);
  const warm = Object.entries(r.errors.warmupByCategory);
  if (warm.length)
    lines.push(`warmup errors    ${warm.map(([k, n]) => `${k} ${n}`).join(', ')} (not scored)`);
  for (const s of r.errors.samples.slice(0, 5)) lines.push(`  ${s.category}: ${s.message}`);
  const c = r.client;
  lines.push(
    `client           ${plural(c.workers, 'thread')}, event-loop p99 ${f(c.eventLoopDelayMs.p99)} ms, busy ${f(c.eventLoopUtilization === null ? null : c.eventLoopUtilization * 100, 0)}%, send lag p99 ${f(c.sendLagMs.p99, 2)} ms`,
  );
  for (const reason of c.reasons)
    lines.push(`${c.clientLimited ? 'client-limited' : 'client note'}: ${reason}`);
  const e = r.engine;
  if (e.kind === 'simulated') {
    const clock =
      e.clock === 'engine'
        ? "on the engine's own clock, in lockstep: this machine's load does not move them"
        : `read off the wall clock${e.timeScale !== null ? ` x ${e.timeScale}` : ''}`;
    lines.push(
      `engine           SIMULATED (${e.simulator ?? 'unknown version'}${e.timeScale !== null ? `, ${e.timeScale}x real time` : ''}): times and rates above are simulated, ${clock}`,
    );
    if (e.lag !== null)
      lines.push(
        `engine clock     ${e.lag.steps} events, ${e.lag.missedDeadlines} late, behind by ${e.lag.behindMs.toFixed(0)} ms (wall); ${plural(e.lag.lockstepWaits, 'lockstep wait')}, ${e.lag.lockstepTimeouts} timed out`,
      );
    if (
      r.wallClock !== null &&
      r.wallClock.throughput.outputTokensPerS !== null &&
      t.outputTokensPerS !== null
    )
      lines.push(
        `wall clock       output ${f(r.wallClock.throughput.outputTokensPerS)} tok/s (x time scale), ${f((100 * r.wallClock.throughput.outputTokensPerS) / t.outputTokensPerS - 100)}% off the engine clock`,
      );
  }
  for (const reason of e.reasons)
    lines.push(`${e.engineLimited ? 'engine-limited' : 'engine note'}: ${reason}`);
  lines.push(r.gate.passed ? 'gate             passed' : `gate             FAILED: ${r.gate.reason}`);
  if (!r.valid) lines.push('this point is NOT valid');
  for (const file of files) lines.push(`wrote ${file}`);
  return `${lines.join('\n')}\n`;
}
