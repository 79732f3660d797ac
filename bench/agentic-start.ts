/**
 * Time to the first request of an agentic replay (issue 16, Speed): on a synthetic 1M-context corpus of
 * 400 traces (`infx trace synth --traces 400 --seed 1`, ≈1.5 GB, written to a temporary folder), how long
 * a fresh process takes from its start to holding the first request's body — the corpus opened
 * (hashed, lines indexed), trace 0 read, validated and compiled, its plan made and the body of its
 * largest call rendered from nothing (a warmup request starts a play mid-trace, so its first body holds
 * the whole context at once; the largest is the worst case).
 *
 *   cold: no compile cache (the corpus file is in the page cache: it was just written);
 *         then the same process validates and compiles the rest and writes the cache (reported apart,
 *         with the event loop's longest stall meanwhile: what a replay running beside it would feel);
 *   warm: the compile cache written by the cold run, the corpus's hash remembered (compile-hash.ts);
 *   warm, corpus hashed: the same without the remembered hash (a corpus file not seen before).
 *
 * Each start is a fresh `node` process; its time is `performance.now()` there (from the process's
 * start, module loading included).
 *
 *   npm run bench:agentic-start                 # 400 traces, seed 1
 *   node scripts/run-ts.mjs bench/agentic-start.ts 100 7
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { cacheBust, TraceTexts } from '../src/workload/agentic/compile-body.ts';
import { openCompiledCorpus } from '../src/workload/agentic/compile-open.ts';
import { planTrace } from '../src/workload/agentic/replay-plan.ts';
import { writeSynthCorpusFile } from '../src/workload/agentic/synth.ts';
import { loadTokenizer } from '../src/workload/tokenizers.ts';

const COLD_TARGET_S = 5;
const WARM_TARGET_S = 1;

interface StartResult {
  firstBodyS: number;
  fromCache: boolean;
  bodyBytes: number;
  inputTokens: number;
  completeS: number | null;
  /** The event loop's longest delay while the rest compiled, ms. */
  stallMs: number | null;
  traces: number;
}

/** In the child: open, first body, and (cold) the rest; prints one JSON line. */
async function child(file: string, cacheDir: string, finish: boolean): Promise<void> {
  const tokenizer = await loadTokenizer();
  const corpus = await openCompiledCorpus([file], { tokenizer, seed: 1, cacheDir });
  const trace = corpus.getCompiled(0);
  const raw = corpus.getTrace(0);
  if (trace === undefined || raw === undefined) throw new Error('no trace');
  planTrace(raw);
  const call = [...trace.calls].sort((a, b) => b.inputTokens - a.inputTokens)[0];
  if (call === undefined) throw new Error('no call');
  const marker = cacheBust(tokenizer, 'bench', 0, trace.id);
  const body = Buffer.concat(new TraceTexts(corpus, trace).body(call, { served: ['model'], marker }));
  const firstBodyS = performance.now() / 1000;
  let completeS: number | null = null;
  let stallMs: number | null = null;
  let traces = corpus.lines;
  if (finish) {
    const loop = monitorEventLoopDelay({ resolution: 1 });
    loop.enable();
    traces = (await corpus.complete()).traces.length;
    loop.disable();
    completeS = performance.now() / 1000;
    stallMs = loop.max / 1e6;
  }
  const result: StartResult = {
    firstBodyS,
    fromCache: corpus.fromCache,
    bodyBytes: body.length,
    inputTokens: call.inputTokens,
    completeS,
    stallMs,
    traces,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

function start(file: string, cacheDir: string, mode: 'cold' | 'warm'): StartResult {
  const out = execFileSync(process.execPath, [process.argv[1] as string, '--child', mode, file, cacheDir], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 1 << 20,
  });
  return JSON.parse(out.trim().split('\n').at(-1) as string) as StartResult;
}

const verdict = (s: number, target: number) =>
  `${s.toFixed(2)} s (target ≤ ${target} s: ${s <= target ? 'PASS' : 'FAIL'})`;

async function main(): Promise<void> {
  const traces = Number(process.argv[2] ?? 400);
  const seed = Number(process.argv[3] ?? 1);
  const dir = mkdtempSync(join(tmpdir(), 'infx-bench-agentic-start-'));
  try {
    const file = join(dir, 'traces.jsonl');
    const t0 = performance.now();
    writeSynthCorpusFile({ traces, seed }, file);
    // A file is remembered by its hash only once it is 2 s old (compile-hash.ts): date it back, as a
    // corpus downloaded or synthesised earlier would be.
    const past = new Date(Date.now() - 60_000);
    utimesSync(file, past, past);
    const size = statSync(file).size;
    console.log(
      `bench/agentic-start: ${traces} synthetic 1M-context traces (seed ${seed}), ${(size / 1e9).toFixed(2)} GB, ` +
        `written in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
    const cache = join(dir, 'cache');
    const cold = start(file, cache, 'cold');
    if (cold.fromCache) throw new Error('the cold start found a cache');
    const warm = start(file, cache, 'warm');
    if (!warm.fromCache) throw new Error('the warm start missed the cache');
    // Without the remembered hash: the cache entry stays, only the file-hash memo goes.
    rmSync(join(cache, 'agentic-file-hashes.json'), { force: true });
    const hashed = start(file, cache, 'warm');
    const body = `first body: trace 0's largest call, ${cold.inputTokens} input tokens, ${(cold.bodyBytes / 1e6).toFixed(1)} MB`;
    console.log(`  ${body}`);
    console.log(
      `  cold (no compile cache), time to first request: ${verdict(cold.firstBodyS, COLD_TARGET_S)}`,
    );
    console.log(
      `    the rest validated and compiled, cache written, in the same process: ${(cold.completeS ?? 0).toFixed(2)} s from start (${cold.traces} traces; ` +
        `the event loop's longest stall meanwhile ${(cold.stallMs ?? 0).toFixed(0)} ms: one large trace, or the cache write)`,
    );
    console.log(
      `  warm (compile cache, corpus hash remembered), time to first request: ${verdict(warm.firstBodyS, WARM_TARGET_S)}`,
    );
    console.log(`  warm (compile cache, corpus hashed again): ${hashed.firstBodyS.toFixed(2)} s (no target)`);
    if (cold.firstBodyS > COLD_TARGET_S || warm.firstBodyS > WARM_TARGET_S) process.exitCode = 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const at = process.argv.indexOf('--child');
if (at !== -1) {
  const [mode, file, cacheDir] = process.argv.slice(at + 1);
  await child(file as string, cacheDir as string, mode === 'cold');
} else {
  await main();
}
