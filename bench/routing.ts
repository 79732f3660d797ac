/**
 * `npm run bench:routing`: an agentic replay in front of four simulated engines (one aggregated pool of
 * `infx sim serve`, its engines picked by the router code of src/router), once per routing policy, and per
 * policy the server's prefix-cache hit rate, throughput per GPU and TTFT p90. Target (issue 18):
 * cache-aware and consistent hash both beat round robin on hit rate and on TTFT. Every figure is simulated.
 * Needs `npm run build` (the engines run as `node bin/infx.js sim serve`).
 *
 * Flags: --users N (default 32), --seconds S (simulated seconds of replay, 240), --traces N (48),
 * --time-scale K (20).
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PointResult } from '../src/schema/point-result.ts';
import { runAgenticBench } from '../src/sweep/bench-agentic.ts';
import { invalidReason } from '../src/sweep/point-verdict.ts';
import { writeSynthCorpusFile } from '../src/workload/agentic/synth.ts';

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isFinite(v) || v <= 0) throw new Error(`--${name} must be a positive number`);
  return v;
}

const USERS = flag('users', 32);
const SECONDS = flag('seconds', 240);
const TRACES = flag('traces', 48);
const TIME_SCALE = flag('time-scale', 20);
const ENGINES = 4;
const MODEL = 'meta-llama/Llama-3.1-8B-Instruct';
const MAX_CONTEXT = 100_000;

const POLICIES: readonly { label: string; args: string[] }[] = [
  { label: 'round-robin', args: ['--router-policy', 'round-robin'] },
  { label: 'power-of-two', args: ['--router-policy', 'power-of-two'] },
  { label: 'consistent-hash (vllm)', args: ['--router-policy', 'consistent-hash', '--hash-flavor', 'vllm'] },
  { label: 'cache-aware', args: ['--router-policy', 'cache-aware'] },
  { label: 'kv-aware (KV events)', args: ['--router-policy', 'kv-aware'] },
];

/** Four TP1 engines of one aggregated pool: a multi-node row with no decode pool. */
function poolRow(): object {
  const worker = (n: number) => ({
    'num-worker': n,
    tp: 1,
    ep: 1,
    'dp-attn': false,
    pp: 1,
    'dcp-size': 1,
    'pcp-size': 1,
  });
  return {
    image: 'sim',
    model: MODEL,
    'model-prefix': 'llama8b',
    precision: 'bf16',
    framework: 'vllm',
    runner: 'h100',
    'spec-decoding': 'none',
    prefill: worker(ENGINES),
    decode: worker(0),
    conc: [USERS],
    'kv-offloading': 'none',
    'total-cpu-dram-gb': 0,
    duration: SECONDS,
    'exp-name': 'llama8b_routing',
    disagg: false,
    'scenario-type': 'agentic-coding',
  };
}

async function startPool(
  point: string,
  args: readonly string[],
): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    [
      'bin/infx.js',
      'sim',
      'serve',
      '--point',
      point,
      '--port',
      '0',
      '--time-scale',
      String(TIME_SCALE),
      '--prefix-caching',
      ...args,
    ],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve(m[1] as string);
    });
    child.once('exit', (code) => reject(new Error(`sim serve exited with ${code}`)));
  });
  return { url, child };
}

interface Row {
  label: string;
  hitRate: number | null;
  tputPerGpu: number | null;
  ttftP90: number | null;
  /** Why the point is not valid (the client or the host, not the engine, set the pace), or null. */
  invalid: string | null;
  /** Whether its figures can be compared: invalid only for being shorter than a submission may be. */
  comparable: boolean;
}

/**
 * A point whose only flaw is a replay shorter than the reference's submission minimum (900 s) measured
 * what it measured: a policy comparison may use it. One the host could not keep pace with, or whose
 * requests failed, may not.
 */
function comparable(r: PointResult): boolean {
  if (r.valid) return true;
  if (r.engine.engineLimited || r.client.clientLimited) return false;
  const reasons = r.agentic?.submissionInvalidReasons ?? [];
  return reasons.length > 0 && reasons.every((x) => x === 'duration_below_submission_minimum');
}

const fmt = (v: number | null, digits: number) => (v === null ? '—' : v.toFixed(digits));

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'infx-bench-routing-'));
  try {
    const corpus = join(dir, 'traces.jsonl');
    writeSynthCorpusFile({ traces: TRACES, seed: 1, maxContext: MAX_CONTEXT }, corpus);
    const point = join(dir, 'pool.json');
    writeFileSync(point, JSON.stringify(poolRow()));
    const rows: Row[] = [];
    for (const p of POLICIES) {
      process.stderr.write(`${p.label}: ${USERS} users, ${SECONDS} simulated s, ${ENGINES} engines…\n`);
      const { url, child } = await startPool(point, p.args);
      try {
        const report = await runAgenticBench(
          {
            baseUrl: url,
            models: [MODEL],
            traces: [corpus],
            maxContextTokens: MAX_CONTEXT,
            users: USERS,
            durationS: SECONDS,
            fast: true,
            warmupRequestsPerLane: 1,
            warmupGraceS: 600,
            benchmarkGraceS: 30,
            seed: 1,
            timeoutS: 600,
            gpus: ENGINES,
            prefillGpus: null,
            decodeGpus: null,
            tokenizer: null,
            affinityHeaders: [],
            out: join(dir, p.label.replace(/\W+/g, '-')),
            formats: ['infx'],
            apiKey: null,
            version: 'bench',
            corpusName: 'synthetic',
            labels: { accelerator: 'h100', framework: 'sim', precision: 'bf16', modelPrefix: 'llama8b' },
            failedRequestThreshold: 0.1,
          },
          { log: () => {} },
        );
        const a = report.result.agentic;
        rows.push({
          label: p.label,
          hitRate: a?.server?.cache.gpu_cache_hit_rate ?? null,
          tputPerGpu: a?.throughput?.perGpu.total ?? null,
          ttftP90: a?.latency.ttftMs.p90 ?? null,
          invalid: report.result.valid ? null : invalidReason(report.result),
          comparable: comparable(report.result),
        });
      } finally {
        child.kill('SIGTERM');
        await once(child, 'exit');
      }
    }
    console.log(
      'policy                   prefix hit   tok/s/GPU   TTFT p90 (ms)   (simulated, 4 × TP1 Llama-3.1-8B on H100)',
    );
    for (const r of rows)
      console.log(
        `${r.label.padEnd(24)} ${fmt(r.hitRate === null ? null : r.hitRate * 100, 1).padStart(9)}%  ${fmt(r.tputPerGpu, 0).padStart(10)}  ${fmt(r.ttftP90, 0).padStart(14)}${r.invalid ? `   INVALID: ${r.invalid}` : ''}`,
      );
    const rr = rows.find((r) => r.label === 'round-robin');
    for (const r of rows.filter((x) => x.label === 'cache-aware' || x.label.startsWith('consistent-hash'))) {
      // A point the host could not keep pace with has no figures to compare.
      if (!r.comparable || !rr?.comparable) {
        console.log(
          `${r.label} against round-robin: not judged (a result is invalid; rerun on a quieter machine or at a lower --time-scale)`,
        );
        continue;
      }
      const beats =
        rr && r.hitRate !== null && rr.hitRate !== null && r.ttftP90 !== null && rr.ttftP90 !== null
          ? r.hitRate > rr.hitRate && r.ttftP90 < rr.ttftP90
          : false;
      console.log(`${r.label} beats round-robin on hit rate and TTFT p90: ${beats ? 'PASS' : 'FAIL'}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
