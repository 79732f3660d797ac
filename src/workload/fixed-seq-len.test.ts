import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { WorkloadError } from './errors.ts';
import {
  averageTokenMismatch,
  buildFixedSeqLenPrompts,
  type FixedSeqLenOptions,
  planFixedSeqLen,
} from './fixed-seq-len.ts';
import { defaultPromptCacheDir } from './prompt-cache.ts';
import { loadTokenizer } from './tokenizers.ts';
import type { FixedPrompt, TextTokenizer } from './types.ts';

const TINY = resolve(dirname(fileURLToPath(import.meta.url)), '../../test/data/tokenizers/tiny-bpe');
const builtin = await loadTokenizer();
const tiny = await loadTokenizer({ path: TINY });

const temps: string[] = [];
afterAll(() => {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tmp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'infx-fsl-'));
  temps.push(dir);
  return dir;
}

function opts(over: Partial<FixedSeqLenOptions> = {}): FixedSeqLenOptions {
  return {
    tokenizer: builtin,
    isl: 32,
    osl: 16,
    randomRangeRatio: 0.5,
    numPrompts: 8,
    seed: 0,
    chatTemplate: 'none',
    cacheDir: null,
    ...over,
  };
}
const build = (over: Partial<FixedSeqLenOptions> = {}) => buildFixedSeqLenPrompts(opts(over));

/** Every prompt hits its drawn length exactly, and inputTokens is the true count of what is counted. */
function expectExact(prompts: FixedPrompt[], tok: TextTokenizer, counted = (p: FixedPrompt) => p.text): void {
  for (const p of prompts) {
    expect(p.inputTokens, `prompt ${p.index}`).toBe(p.targetInputTokens);
    expect(tok.encode(counted(p)).length, `prompt ${p.index}`).toBe(p.inputTokens);
  }
}

describe('fixed-seq-len prompt lengths', () => {
  it('case 11: ISL 8192, OSL 1024, ratio 0.8, no template', async () => {
    const o = opts({ isl: 8192, osl: 1024, randomRangeRatio: 0.8, numPrompts: 12 });
    expect(planFixedSeqLen(o)).toEqual({
      templateTokens: 0,
      effectiveIsl: 8192,
      inputRange: [6553, 8192],
      outputRange: [819, 1024],
    });
    const prompts = await buildFixedSeqLenPrompts(o);
    expect(prompts.map((p) => p.index)).toEqual([...Array(12).keys()]);
    for (const p of prompts) {
      expect(p.targetInputTokens).toBeGreaterThanOrEqual(6553);
      expect(p.targetInputTokens).toBeLessThanOrEqual(8192);
      expect(p.outputTokens).toBeGreaterThanOrEqual(819);
      expect(p.outputTokens).toBeLessThanOrEqual(1024);
    }
    expect(new Set(prompts.map((p) => p.targetInputTokens)).size).toBeGreaterThan(6);
    expectExact(prompts, builtin);
    expect(averageTokenMismatch(prompts)).toBe(0);
  });

  it.each([
    ['built-in', builtin],
    ['tiny HF', tiny],
  ])('hits every drawn length exactly at small ISL, covering both ends of the range (%s)', async (_, tok) => {
    const prompts = await build({ tokenizer: tok, isl: 10, osl: 6, numPrompts: 120 });
    expectExact(prompts, tok);
    const inputs = new Set(prompts.map((p) => p.targetInputTokens));
    const outputs = new Set(prompts.map((p) => p.outputTokens));
    expect([...inputs].sort((a, b) => a - b)).toEqual([5, 6, 7, 8, 9, 10]);
    expect([...outputs].sort((a, b) => a - b)).toEqual([3, 4, 5, 6]);
    const longer = await build({ tokenizer: tok, isl: 300, numPrompts: 10, seed: 3 });
    expectExact(longer, tok);
  });

  it('builds contiguous runs of ids (ratio 1 gives exactly ISL tokens every time)', async () => {
    const prompts = await build({ isl: 64, randomRangeRatio: 1, numPrompts: 4 });
    for (const p of prompts) expect(p.targetInputTokens).toBe(64);
    expectExact(prompts, builtin);
    expect(new Set(prompts.map((p) => p.text)).size).toBe(4);
  });

  it('allows an empty prompt when the range reaches 0', async () => {
    const prompts = await build({ isl: 1, randomRangeRatio: 0, numPrompts: 40 });
    expect(new Set(prompts.map((p) => p.targetInputTokens))).toEqual(new Set([0, 1]));
    expect(prompts.find((p) => p.targetInputTokens === 0)?.text).toBe('');
    expectExact(prompts, builtin);
  });
});

describe('fixed-seq-len determinism', () => {
  it('is the same for the same seed and different for another seed', async () => {
    const a = await build();
    expect(await build()).toEqual(a);
    const b = await build({ seed: 1 });
    expect(b.map((p) => p.text)).not.toEqual(a.map((p) => p.text));
  });

  it('makes prompt i independent of numPrompts', async () => {
    const few = await build({ numPrompts: 3 });
    const many = await build({ numPrompts: 9 });
    expect(many.slice(0, 3)).toEqual(few);
  });
});

describe('chat template budget', () => {
  it("'client' renders the template here and subtracts its tokens from the ISL", async () => {
    const o = opts({ tokenizer: tiny, chatTemplate: 'client', isl: 64, randomRangeRatio: 1, numPrompts: 6 });
    // template("a") = <|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\na<|eot_id|>… : 20 tokens
    expect(planFixedSeqLen(o)).toMatchObject({ templateTokens: 19, effectiveIsl: 45, inputRange: [45, 45] });
    const prompts = await buildFixedSeqLenPrompts(o);
    for (const p of prompts) {
      expect(p.text.startsWith('<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\n')).toBe(true);
      expect(p.text.endsWith('<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n')).toBe(true);
      expect(p.targetInputTokens).toBe(64);
    }
    expectExact(prompts, tiny);
  });

  it("'server' sends the raw message but budgets and counts the template the server adds", async () => {
    const base = { tokenizer: tiny, isl: 64, randomRangeRatio: 0.5, numPrompts: 6 };
    const server = await build({ ...base, chatTemplate: 'server' });
    const client = await build({ ...base, chatTemplate: 'client' });
    for (const [k, p] of server.entries()) {
      expect(p.text).not.toContain('<|begin_of_text|>');
      expect(tiny.applyChatTemplate(p.text)).toBe(client[k]?.text);
      expect(p.inputTokens).toBe(client[k]?.inputTokens);
      expect(tiny.encode(p.text).length).toBe(p.targetInputTokens - 19);
    }
    expectExact(server, tiny, (p) => tiny.applyChatTemplate(p.text) ?? '');
  });

  it("'none' ignores the template; 'server' without a template budgets nothing", async () => {
    expect(planFixedSeqLen(opts({ tokenizer: tiny, isl: 64 })).templateTokens).toBe(0);
    expect(planFixedSeqLen(opts({ chatTemplate: 'server' })).templateTokens).toBe(0);
    const plain = await build({ tokenizer: tiny, isl: 64, numPrompts: 3 });
    expectExact(plain, tiny);
  });

  it('rejects an ISL the template leaves no room in', () => {
    expect(() => planFixedSeqLen(opts({ tokenizer: tiny, chatTemplate: 'client', isl: 19 }))).toThrow(
      /ISL 19 leaves no room.*takes 19 tokens/,
    );
    expect(planFixedSeqLen(opts({ tokenizer: tiny, chatTemplate: 'client', isl: 20 })).effectiveIsl).toBe(1);
  });
});

describe('fixed-seq-len options', () => {
  it.each([
    [{ isl: 0 }, /isl must be a positive integer, got 0/],
    [{ isl: 1.5 }, /isl must be a positive integer/],
    [{ osl: -1 }, /osl must be a positive integer/],
    [{ numPrompts: 0 }, /numPrompts must be a positive integer/],
    [{ randomRangeRatio: -0.1 }, /randomRangeRatio must be a number in \[0, 1\], got -0.1/],
    [{ randomRangeRatio: 1.2 }, /randomRangeRatio/],
    [{ randomRangeRatio: Number.NaN }, /randomRangeRatio/],
    [{ seed: 0.5 }, /seed must be an integer/],
    [{ chatTemplate: 'both' as never }, /chatTemplate must be/],
    [{ chatTemplate: 'client' as const }, /needs a tokenizer with a chat template, and o200k_base has none/],
  ])('rejects %o', async (over, message) => {
    expect(() => planFixedSeqLen(opts(over))).toThrow(WorkloadError);
    await expect(build(over)).rejects.toThrow(message);
  });

  it('reports progress up to done = total', async () => {
    const seen: [number, number][] = [];
    await build({ numPrompts: 5, onProgress: (done, total) => seen.push([done, total]) });
    expect(seen).toEqual([1, 2, 3, 4, 5].map((d) => [d, 5]));
  });
});

describe('prompt cache', () => {
  function counting(tok: TextTokenizer) {
    const counter = { calls: 0, tokenizer: tok };
    counter.tokenizer = {
      ...tok,
      encode: (text: string) => {
        counter.calls++;
        return tok.encode(text);
      },
    };
    return counter;
  }

  it('reuses prompt sets, extends them by index, and is keyed by every option', async () => {
    const cacheDir = tmp();
    const c = counting(tiny);
    const base = { tokenizer: c.tokenizer, cacheDir, isl: 24, numPrompts: 70 }; // two chunks
    const first = await build(base);
    expect(c.calls).toBeGreaterThan(0);
    expect(first).toEqual(await build({ ...base, tokenizer: tiny, cacheDir: null }));

    c.calls = 0;
    expect(await build(base)).toEqual(first);
    expect(await build({ ...base, numPrompts: 10 })).toEqual(first.slice(0, 10));
    expect(c.calls).toBe(0);

    const more = await build({ ...base, numPrompts: 75 });
    expect(more.slice(0, 70)).toEqual(first);
    expect(c.calls).toBeGreaterThan(0);
    expect(c.calls).toBeLessThan(40); // only the 5 new prompts were built

    for (const change of [
      { seed: 1 },
      { isl: 25 },
      { osl: 17 },
      { randomRangeRatio: 0.6 },
      { chatTemplate: 'server' as const },
    ]) {
      c.calls = 0;
      const other = await build({ ...base, numPrompts: 2, ...change });
      expect(c.calls, JSON.stringify(change)).toBeGreaterThan(0);
      expect(other).toEqual(
        await build({ ...base, numPrompts: 2, ...change, tokenizer: tiny, cacheDir: null }),
      );
    }
  });

  it('rebuilds after a corrupt chunk, and never caches without a directory or a fingerprint', async () => {
    const cacheDir = tmp();
    const c = counting(builtin);
    const first = await build({ tokenizer: c.tokenizer, cacheDir });
    const [set] = readdirSync(cacheDir);
    writeFileSync(join(cacheDir, set!, '0.json'), '{"key": "truncated');
    c.calls = 0;
    expect(await build({ tokenizer: c.tokenizer, cacheDir })).toEqual(first);
    expect(c.calls).toBeGreaterThan(0);

    const anonymous: TextTokenizer = { ...builtin, fingerprint: undefined } as TextTokenizer;
    const emptyDir = tmp();
    await build({ tokenizer: anonymous, cacheDir: emptyDir });
    await build({ cacheDir: null });
    expect(readdirSync(emptyDir)).toEqual([]);
  });

  it('lives under INFX_CACHE_DIR or ~/.cache/infx and is off with INFX_NO_CACHE', () => {
    expect(defaultPromptCacheDir({ INFX_CACHE_DIR: '/c' })).toBe(join('/c', 'prompts'));
    expect(defaultPromptCacheDir({ XDG_CACHE_HOME: '/x' })).toBe(join('/x', 'infx', 'prompts'));
    expect(defaultPromptCacheDir({ INFX_NO_CACHE: '1', INFX_CACHE_DIR: '/c' })).toBeNull();
  });
});
