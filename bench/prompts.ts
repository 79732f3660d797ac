/**
 * Building a fixed-seq-len point's prompts: 640 prompts of up to 8,192 tokens (CONC 64 at 8k/1k) with the
 * built-in tokenizer, cold and then from the prompt cache, in this one command; the ratio is the cache's
 * gain. Also how long the client's after-the-clock output count takes per 1,000 tokens of English.
 *
 *   npm run bench:prompts              # 640 prompts at ISL 8192
 *   npm run bench:prompts -- 128 1024  # N prompts at ISL
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildFixedSeqLenPrompts } from '../src/workload/fixed-seq-len.ts';
import { loadTokenizer } from '../src/workload/tokenizers.ts';

const n = Number(process.argv[2] ?? 640);
const isl = Number(process.argv[3] ?? 8192);
const seconds = (t0: number) => (performance.now() - t0) / 1000;

let t0 = performance.now();
const tokenizer = await loadTokenizer();
console.log(`bench/prompts: built-in tokenizer loaded in ${seconds(t0).toFixed(2)} s`);

const cacheDir = mkdtempSync(join(tmpdir(), 'infx-bench-prompts-'));
try {
  const build = () =>
    buildFixedSeqLenPrompts({
      tokenizer,
      isl,
      osl: 1024,
      randomRangeRatio: 0.8,
      numPrompts: n,
      seed: 0,
      chatTemplate: 'none',
      cacheDir,
    });
  t0 = performance.now();
  const prompts = await build();
  const cold = seconds(t0);
  t0 = performance.now();
  await build();
  const cached = seconds(t0);
  const exact = prompts.filter((p) => p.inputTokens === p.targetInputTokens).length;
  console.log(
    `${n} prompts at ISL ${isl}: cold ${cold.toFixed(2)} s, cached ${cached.toFixed(2)} s (${(cold / cached).toFixed(0)}x); ${exact}/${n} hit their drawn length exactly`,
  );
} finally {
  rmSync(cacheDir, { recursive: true, force: true });
}

const words = 'the model serves many users at once while each request streams its tokens back'.split(' ');
let text = '';
for (let i = 0; tokenizer.encode(text).length < 1000; i++) text += `${words[(i * 7) % words.length]} `;
const tokens = tokenizer.encode(text).length;
t0 = performance.now();
const rounds = 200;
for (let i = 0; i < rounds; i++) tokenizer.encode(`${i} ${text}`);
console.log(
  `client output count: ${((performance.now() - t0) / rounds).toFixed(3)} ms per ${tokens} tokens of English`,
);
