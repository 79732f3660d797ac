import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AgenticTraceSchema } from '../../schema/agentic-trace.ts';
import { loadTokenizer } from '../tokenizers.ts';
import type { TextTokenizer } from '../types.ts';
import { compileTraces } from './compile.ts';
import { cacheBust, TraceTexts } from './compile-body.ts';
import type { CompiledCall } from './compile-types.ts';
import { buildWordPool, WORD_POOL_SIZE } from './compile-words.ts';

const TINY = join(import.meta.dirname, '../../../test/data/tokenizers/tiny-bpe');

describe('buildWordPool', () => {
  it('finds a full pool of single-token words in o200k, each one token with a leading space', async () => {
    const tokenizer = await loadTokenizer();
    const words = buildWordPool(tokenizer);
    expect(words.length).toBe(WORD_POOL_SIZE);
    expect(new Set(words).size).toBe(words.length);
    for (const w of words.slice(0, 200)) expect(tokenizer.encode(` ${w}`).length).toBe(1);
    expect(tokenizer.encode(words.map((w) => ` ${w}`).join('')).length).toBe(words.length);
  });

  it('builds token-exact blocks with a small Hugging Face BPE vocabulary too', async () => {
    const tokenizer = await loadTokenizer({ path: TINY });
    const trace = AgenticTraceSchema.parse({
      id: 'H',
      block_size: 16,
      tool_tokens: 10,
      system_tokens: 6,
      requests: [
        { type: 'n', t: 0, in: 48, out: 20, hash_ids: [0, 1, 2] },
        { type: 'n', t: 1, in: 96, out: 5, hash_ids: [0, 1, 2, 3, 4, 5] },
      ],
    });
    const corpus = compileTraces([trace], { tokenizer, seed: 3 });
    const ct = corpus.traces[0];
    if (ct === undefined) throw new Error('no trace');
    const texts = new TraceTexts(corpus, ct);
    const marker = cacheBust(tokenizer, 'r', 0, 'H');
    for (const c of ct.calls as CompiledCall[]) {
      const body = JSON.parse(Buffer.concat(texts.body(c, { served: ['m'], marker })).toString()) as {
        messages: { content: string }[];
      };
      const all = body.messages.map((m) => m.content).join('');
      expect(tokenizer.encode(all).length).toBe(c.hashIds.length * 16 + marker.tokens);
    }
  });

  it('refuses a tokenizer whose words merge in a longer run', async () => {
    const o200k = await loadTokenizer();
    // Counts every pair of words as one token: singles and identical pairs still pass.
    const merging: TextTokenizer = {
      ...o200k,
      name: 'merging',
      encode: (text) => {
        const ids = o200k.encode(text);
        return ids.length <= 2 && new Set(ids).size === 1 ? ids : ids.slice(0, Math.ceil(ids.length / 2));
      },
    };
    expect(() => buildWordPool(merging)).toThrow(/tokenizer merging merges words across spaces/);
  });

  it('refuses a vocabulary without enough words, naming the tokenizer', () => {
    const bare: TextTokenizer = {
      kind: 'builtin',
      name: 'digits',
      path: null,
      vocabSize: 10,
      encode: (t) => [...t].map((ch) => ch.charCodeAt(0) % 10),
      decode: (ids) => ids.join(''),
      applyChatTemplate: () => null,
    };
    expect(() => buildWordPool(bare)).toThrow(/tokenizer digits has only 0 single-token lowercase words/);
  });
});
