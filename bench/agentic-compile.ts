/**
 * Compiling an agentic corpus: a synthetic 1M-context corpus (`infx trace synth --traces 40 --seed 42`,
 * ≈190 MB) compiled cold, then warm from the compile cache (first hashing the corpus, then with its file
 * hash memoised: a file is remembered once it is 2 s old), in this one command, with the heap and RSS
 * each leaves; then what replaying costs per request: rendering a play's bodies (contents once per
 * play, shared by later turns) and the body of the longest call.
 *
 *   node scripts/run-ts.mjs bench/agentic-compile.ts            # 40 traces, seed 42
 *   node scripts/run-ts.mjs bench/agentic-compile.ts 10 7       # N traces, seed
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileCorpus } from '../src/workload/agentic/compile.ts';
import { cacheBust, TraceTexts } from '../src/workload/agentic/compile-body.ts';
import type { CompiledCorpus } from '../src/workload/agentic/compile-types.ts';
import { writeSynthCorpusFile } from '../src/workload/agentic/synth.ts';
import { loadTokenizer } from '../src/workload/tokenizers.ts';

const traces = Number(process.argv[2] ?? 40);
const seed = Number(process.argv[3] ?? 42);
const seconds = (t0: number) => ((performance.now() - t0) / 1000).toFixed(2);
const mb = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MB`;
const memory = () => {
  globalThis.gc?.();
  const m = process.memoryUsage();
  return `heap ${mb(m.heapUsed)}, external+arrays ${mb(m.external + m.arrayBuffers)}, rss ${mb(m.rss)}`;
};

const dir = mkdtempSync(join(tmpdir(), 'infx-bench-agentic-compile-'));
try {
  const file = join(dir, 'traces.jsonl');
  let t0 = performance.now();
  writeSynthCorpusFile({ traces, seed }, file);
  console.log(
    `bench/agentic-compile: ${traces} synthetic traces (seed ${seed}), ${mb(statSync(file).size)}, written in ${seconds(t0)} s`,
  );
  const tokenizer = await loadTokenizer();
  const cacheDir = join(dir, 'cache');
  const run = async (label: string): Promise<CompiledCorpus> => {
    const t = performance.now();
    const corpus = await compileCorpus([file], { tokenizer, seed: 1, cacheDir });
    const calls = corpus.traces.reduce((n, tr) => n + tr.calls.length, 0);
    console.log(`  ${label}: ${seconds(t)} s (from cache: ${corpus.fromCache}), ${calls} calls; ${memory()}`);
    return corpus;
  };
  console.log(`  before: ${memory()}`);
  await run('cold');
  await run('warm (compiled cache; corpus hashed)');
  const warm = await run('warm (compiled cache; file hash memoised)');
  const entry = join(cacheDir, `agentic-${warm.key.slice(0, 32)}`, 'compiled.bin');
  console.log(`  cache entry: ${mb(statSync(entry).size)}`);

  // A whole play of the longest trace: every body in order, as the replay would send them.
  const longest = [...warm.traces].sort((a, b) => b.calls.length - a.calls.length)[0];
  if (longest !== undefined) {
    const texts = new TraceTexts(warm, longest);
    const marker = cacheBust(tokenizer, 'bench', 0, longest.id);
    let bytes = 0;
    let worst = 0;
    t0 = performance.now();
    for (const call of longest.calls) {
      const t = performance.now();
      for (const segment of texts.body(call, { served: ['model'], marker })) bytes += segment.length;
      worst = Math.max(worst, performance.now() - t);
    }
    const ms = performance.now() - t0;
    console.log(
      `  one play of ${longest.id} (${longest.calls.length} calls, ${mb(bytes)} of bodies): ${ms.toFixed(0)} ms, ` +
        `${((ms * 1000) / longest.calls.length).toFixed(0)} µs a call, worst ${worst.toFixed(1)} ms; ${memory()}`,
    );
    // A play that starts mid-trace renders its whole context at once: the largest call, from nothing.
    const biggest = [...longest.calls].sort((a, b) => b.hashIds.length - a.hashIds.length)[0];
    if (biggest !== undefined) {
      const fresh = new TraceTexts(warm, longest);
      t0 = performance.now();
      const size = fresh.body(biggest, { served: ['model'], marker }).reduce((n, s) => n + s.length, 0);
      console.log(
        `  largest body from nothing (${biggest.inputTokens} tokens, ${mb(size)}): ${(performance.now() - t0).toFixed(1)} ms`,
      );
      // Token exactness where it is hardest: the whole 1M-token context, under o200k.
      const body = JSON.parse(
        Buffer.concat(fresh.body(biggest, { served: ['model'], marker })).toString('utf8'),
      ) as {
        messages: { content: string }[];
      };
      t0 = performance.now();
      const counted = tokenizer.encode(body.messages.map((m) => m.content).join('')).length;
      const exact = counted === biggest.inputTokens + marker.tokens;
      console.log(
        `  its contents encode to ${counted} tokens (compiled: ${biggest.inputTokens} + marker ${marker.tokens}: ` +
          `${exact ? 'exact' : 'MISMATCH'}), counted in ${seconds(t0)} s`,
      );
      if (!exact) process.exitCode = 1;
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
