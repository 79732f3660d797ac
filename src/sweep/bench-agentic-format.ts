import type { PointResult } from '../schema/point-result.ts';

/** The summary `infx bench --workload agentic` prints: the reference's headline figures of the point. */

const fixed = (v: number | null | undefined, digits = 1) =>
  v === null || v === undefined ? 'n/a' : v.toFixed(digits);

export function formatAgenticSummary(result: PointResult, files: readonly string[]): string {
  const a = result.agentic;
  const simulated = result.engine.kind === 'simulated';
  const tag = simulated ? ' (simulated)' : '';
  const lines: string[] = [];
  lines.push(
    `agentic replay: ${result.load.concurrency} users, ${result.workload.kind === 'agentic-coding' ? result.workload.durationS : '?'} s${simulated ? ' of simulated time' : ''}`,
  );
  if (a === undefined) {
    lines.push('no agentic metrics (no replay records)');
    return `${lines.join('\n')}\n`;
  }
  const acc = a.accounting;
  lines.push(
    `requests: ${acc.recordsTotal} total, ${acc.recordsProfiled} profiled, ${acc.recordsWarmupDropped} warmup, ` +
      `${acc.recordsErrorDropped - acc.recordsCancelled} failed, ${acc.recordsCancelled} cancelled at the end`,
  );
  const i = a.interactivity;
  lines.push(
    `E2E-normalized interactivity${tag}: p90 ${fixed(i.e2eNormIntvty.p90)} tok/s/user (p50 ${fixed(i.e2eNormIntvty.p50)})`,
    `generation interactivity${tag}: p90 ${fixed(i.intvty.p90)} tok/s/user`,
    `TTFT${tag}: p90 ${fixed(a.latency.ttftMs.p90)} ms (p50 ${fixed(a.latency.ttftMs.p50)})`,
  );
  const t = a.throughput;
  lines.push(
    t === null
      ? 'throughput: n/a'
      : `throughput${tag}: ${fixed(t.totalTokensPerS)} tok/s total` +
          (t.perGpu.total === null
            ? ' (no --gpus: no per-GPU figure)'
            : `, ${fixed(t.perGpu.total)} tok/s/GPU`),
  );
  const hit = a.cache.theoreticalCacheHitRate;
  lines.push(`theoretical prefix-cache hit rate: ${hit === null ? 'n/a' : `${(hit * 100).toFixed(1)}%`}`);
  lines.push(
    a.submissionValid && result.valid
      ? 'valid: yes'
      : `valid: no (${[...a.submissionInvalidReasons, ...result.client.reasons, ...result.engine.reasons].join('; ') || 'see result.json'})`,
  );
  for (const f of files) lines.push(`wrote ${f}`);
  return `${lines.join('\n')}\n`;
}
