import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadTokenizer } from '../tokenizers.ts';
import type { TextTokenizer } from '../types.ts';
import { compileCorpus } from './compile.ts';
import { compiledCacheFile, decodeCompiled, encodeCompiled } from './compile-cache.ts';
import { compileTraceParts } from './compile-trace.ts';
import type { CompiledCorpus } from './compile-types.ts';
import { synthTrace } from './synth.ts';

const tokenizer = await loadTokenizer();
const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'infx-compile-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function corpusFile(dir: string, traces = 2): string {
  const file = join(dir, 'traces.jsonl');
  const lines = Array.from({ length: traces }, (_, i) => JSON.stringify(synthTrace(5, i, 131_072)));
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

/** Everything but the cache flag: calls with their ids and message structure. */
const plain = (c: CompiledCorpus) => ({
  key: c.key,
  seed: c.seed,
  words: c.words,
  traces: c.traces.map((t) => ({
    ...t,
    calls: t.calls.map((x) => ({
      ...x,
      hashIds: [...x.hashIds],
      messages: x.messages.map((m) => [m.role, [...m.ids]]),
    })),
  })),
});

describe('the compile cache', () => {
  it('returns the same compiled corpus on a hit, shares messages as the cold one does', async () => {
    const dir = tmp();
    const file = corpusFile(dir);
    const cacheDir = join(dir, 'cache');
    const cold = await compileCorpus([file], { tokenizer, seed: 1, cacheDir });
    expect(cold.fromCache).toBe(false);
    expect(readdirSync(cacheDir).length).toBe(1);
    const warm = await compileCorpus([file], { tokenizer, seed: 1, cacheDir });
    expect(warm.fromCache).toBe(true);
    expect(plain(warm)).toEqual(plain(cold));
    const calls = warm.traces[0]?.calls ?? [];
    const extending = calls.findIndex(
      (c, i) => i > 1 && !c.resetContext && c.recipe.keep > 0 && c.inner === -1,
    );
    const c = calls[extending];
    expect(c?.messages[0]).toBe(calls[c?.recipe.base ?? -1]?.messages[0]);
  });

  it('misses on a changed corpus byte, another seed, another tokenizer, and on a corrupt entry', async () => {
    const dir = tmp();
    const file = corpusFile(dir);
    const cacheDir = join(dir, 'cache');
    const first = await compileCorpus([file], { tokenizer, seed: 1, cacheDir });
    expect((await compileCorpus([file], { tokenizer, seed: 2, cacheDir })).fromCache).toBe(false);
    // One byte of the corpus: `"t":0` of the first call becomes `"t":1`… or any digit flip inside the JSON.
    const text = readFileSync(file, 'utf8');
    const at = text.indexOf('"out":') + 6;
    const flipped = text.slice(0, at) + (text[at] === '9' ? '8' : '9') + text.slice(at + 1);
    writeFileSync(file, flipped);
    const changed = await compileCorpus([file], { tokenizer, seed: 1, cacheDir });
    expect(changed.fromCache).toBe(false);
    expect(changed.key).not.toBe(first.key);
    writeFileSync(file, text);
    expect((await compileCorpus([file], { tokenizer, seed: 1, cacheDir })).fromCache).toBe(true);
    // A tokenizer with another fingerprint keys apart.
    const other = { ...tokenizer, fingerprint: 'another' } as TextTokenizer;
    expect((await compileCorpus([file], { tokenizer: other, seed: 1, cacheDir })).fromCache).toBe(false);
    // Corrupt the entry: a flipped byte in the ids, then a truncation. Both are misses, then rewritten.
    const entry = compiledCacheFile(cacheDir, first.key);
    const bytes = readFileSync(entry);
    bytes[bytes.length - 100] = (bytes[bytes.length - 100] as number) ^ 0xff;
    writeFileSync(entry, bytes);
    const afterFlip = await compileCorpus([file], { tokenizer, seed: 1, cacheDir });
    expect(afterFlip.fromCache).toBe(false);
    expect(plain(afterFlip)).toEqual(plain(first));
    writeFileSync(entry, readFileSync(entry).subarray(0, 1000));
    expect((await compileCorpus([file], { tokenizer, seed: 1, cacheDir })).fromCache).toBe(false);
    expect((await compileCorpus([file], { tokenizer, seed: 1, cacheDir })).fromCache).toBe(true);
  });

  it('keeps the traces --max-context dropped, cold and warm, and keys the cap apart', async () => {
    const dir = tmp();
    const file = join(dir, 'traces.jsonl');
    // Trace 0 needs 131,072 tokens at most; a trace of 2 calls needing 64 × 3 + 10 = 202 stays under 1,000.
    const small = {
      id: 'small',
      block_size: 64,
      tool_tokens: 0,
      system_tokens: 0,
      requests: [
        { type: 'n', t: 0, in: 128, out: 10, hash_ids: [0, 1] },
        { type: 'n', t: 1, in: 192, out: 10, hash_ids: [0, 1, 2] },
      ],
    };
    writeFileSync(file, `${JSON.stringify(synthTrace(5, 0, 131_072))}\n${JSON.stringify(small)}\n`);
    const cacheDir = join(dir, 'cache');
    const cold = await compileCorpus([file], { tokenizer, seed: 1, cacheDir, maxContext: 1000 });
    expect(cold.traces.map((t) => t.id)).toEqual(['small']);
    expect(cold.dropped.map((d) => [d.line, d.id])).toEqual([[1, 'synth-5-0000']]);
    const warm = await compileCorpus([file], { tokenizer, seed: 1, cacheDir, maxContext: 1000 });
    expect(warm.fromCache).toBe(true);
    expect(warm.dropped).toEqual(cold.dropped);
    const all = await compileCorpus([file], { tokenizer, seed: 1, cacheDir });
    expect(all.fromCache).toBe(false);
    expect(all.traces.length).toBe(2);
  });

  it('decodes only its own key and rejects garbage', () => {
    const parts = [compileTraceParts(synthTrace(1, 0, 131_072))];
    const bytes = encodeCompiled('k1', {
      seed: 1,
      tokenizer: 'o200k_base',
      words: ['abc'],
      dropped: [],
      traces: parts,
    });
    expect(decodeCompiled(bytes, 'k1')?.traces[0]?.calls.length).toBe(parts[0]?.calls.length);
    expect(decodeCompiled(bytes, 'k2')).toBeNull();
    expect(decodeCompiled(Buffer.from('INFXAC01 nonsense'), 'k1')).toBeNull();
    expect(decodeCompiled(Buffer.alloc(0), 'k1')).toBeNull();
  });

  it('does not cache without a cache dir or for a tokenizer without a fingerprint', async () => {
    const dir = tmp();
    const file = corpusFile(dir, 1);
    expect((await compileCorpus([file], { tokenizer, seed: 1, cacheDir: null })).key).toBe('');
    const bare = { ...tokenizer, fingerprint: undefined } as unknown as TextTokenizer;
    const cacheDir = join(dir, 'cache');
    await compileCorpus([file], { tokenizer: bare, seed: 1, cacheDir });
    expect(() => readdirSync(cacheDir)).toThrow();
  });
});
