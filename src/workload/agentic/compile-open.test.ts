import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadTokenizer } from '../tokenizers.ts';
import { compileCorpus } from './compile.ts';
import { openCompiledCorpus } from './compile-open.ts';
import type { CompiledTrace } from './compile-types.ts';
import { loadCorpus } from './corpus.ts';
import { TraceCorpusError } from './errors.ts';
import { traceContext } from './max-context.ts';
import { synthTrace } from './synth.ts';

const tokenizer = await loadTokenizer();
const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'infx-open-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const line = (i: number) => JSON.stringify(synthTrace(5, i, 131_072));
const write = (dir: string, lines: string[]) => {
  const file = join(dir, 'traces.jsonl');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
};
const plain = (t: CompiledTrace | undefined) =>
  t && {
    ...t,
    calls: t.calls.map((c) => ({
      ...c,
      hashIds: [...c.hashIds],
      messages: c.messages.map((m) => [m.role, [...m.ids]]),
    })),
  };
const thrown = (f: () => unknown): TraceCorpusError => {
  try {
    f();
  } catch (err) {
    return err as TraceCorpusError;
  }
  throw new Error('expected an error');
};

describe('openCompiledCorpus', () => {
  it('gives each trace as compileCorpus compiles it, cold and then warm from the cache it writes', async () => {
    const dir = tmp();
    // A blank line in between: skipped, as the streaming reader does.
    const file = write(dir, [line(0), '  ', line(1), line(2)]);
    const cacheDir = join(dir, 'cache');
    const whole = await compileCorpus([file], { tokenizer, seed: 1, cacheDir: null });
    const { traces: raw } = await loadCorpus([file]);
    const cold = await openCompiledCorpus([file], { tokenizer, seed: 1, cacheDir });
    expect(cold.fromCache).toBe(false);
    expect(cold.lines).toBe(3);
    expect(plain(await cold.whenCompiled(1))).toEqual(plain(whole.traces[1]));
    expect(plain(cold.getCompiled(0))).toEqual(plain(whole.traces[0]));
    expect(cold.getTrace(2)).toEqual(raw[2]);
    expect(cold.getCompiled(3)).toBeUndefined();
    const all = await cold.complete();
    expect(all.traces.length).toBe(3);
    const warm = await openCompiledCorpus([file], { tokenizer, seed: 1, cacheDir });
    expect(warm.fromCache).toBe(true);
    expect(warm.key).toBe(cold.key);
    expect(plain(warm.getCompiled(2))).toEqual(plain(whole.traces[2]));
    expect(plain(await warm.whenCompiled(1))).toEqual(plain(whole.traces[1]));
    expect(warm.getTrace(0)).toEqual(raw[0]);
    expect(warm.getCompiled(3)).toBeUndefined();
    expect((await warm.complete()).traces.map(plain)).toEqual(whole.traces.map(plain));
  });

  it('starts before a bad line is reached, then names its file:line and field wherever it is reached, every time', async () => {
    const dir = tmp();
    const bad = JSON.stringify({ ...JSON.parse(line(1)), block_size: 0 });
    const file = write(dir, [line(0), bad, line(2)]);
    const corpus = await openCompiledCorpus([file], { tokenizer, seed: 1, cacheDir: join(dir, 'cache') });
    expect(corpus.getCompiled(0)?.calls.length).toBeGreaterThan(0);
    const message = new RegExp(`^${file}:2: trace .*: block_size: `);
    const err = thrown(() => corpus.getCompiled(1));
    expect(err).toBeInstanceOf(TraceCorpusError);
    expect(err.message).toMatch(message);
    expect(thrown(() => corpus.getCompiled(0)).message).toMatch(message);
    await expect(corpus.complete()).rejects.toThrow(message);
    await expect(corpus.whenCompiled(2)).rejects.toThrow(message);
    // Nothing was cached: the next open is cold and meets the same line.
    const again = await openCompiledCorpus([file], { tokenizer, seed: 1, cacheDir: join(dir, 'cache') });
    expect(again.fromCache).toBe(false);
    await expect(again.complete()).rejects.toThrow(message);
  });

  it('drops traces over maxContext in file order, and says when none is left', async () => {
    const dir = tmp();
    const small = JSON.stringify({
      id: 'small',
      block_size: 64,
      tool_tokens: 0,
      system_tokens: 0,
      requests: [{ type: 'n', t: 0, in: 64, out: 1, hash_ids: [0] }],
    });
    const file = write(dir, [line(0), small]);
    const corpus = await openCompiledCorpus([file], { tokenizer, seed: 1, cacheDir: null, maxContext: 1000 });
    expect(corpus.getCompiled(0)?.id).toBe('small');
    const all = await corpus.complete();
    expect(all.dropped).toEqual([expect.objectContaining({ file, line: 1 })]);
    const none = await openCompiledCorpus([write(tmp(), [line(0)])], {
      tokenizer,
      seed: 1,
      cacheDir: null,
      maxContext: 1000,
    });
    expect(thrown(() => none.getCompiled(0)).message).toMatch(/needs more context than --max-context 1000/);
    const empty = await openCompiledCorpus([write(tmp(), [''])], { tokenizer, seed: 1, cacheDir: null });
    expect(empty.lines).toBe(0);
    await expect(empty.complete()).rejects.toThrow(/the corpus is empty/);
  });

  it('refuses a missing file and a line over the bound as the streaming reader does', async () => {
    const dir = tmp();
    await expect(openCompiledCorpus([join(dir, 'nope.jsonl')], { tokenizer, seed: 1 })).rejects.toThrow(
      /nope.jsonl: no such file/,
    );
    const file = write(dir, [line(0)]);
    await expect(
      openCompiledCorpus([file], { tokenizer, seed: 1, cacheDir: join(dir, 'c'), maxLineBytes: 100 }),
    ).rejects.toThrow(new RegExp(`^${file}:1: line longer than 100 bytes`));
  });

  it('compiles a trace ahead of the file order when nothing is dropped; the corpus stays in file order', async () => {
    const dir = tmp();
    const file = write(dir, [line(0), line(1), line(2)]);
    const whole = await compileCorpus([file], { tokenizer, seed: 1, cacheDir: null });
    const cold = await openCompiledCorpus([file], { tokenizer, seed: 1, cacheDir: join(dir, 'cache') });
    expect(plain(cold.getCompiled(2))).toEqual(plain(whole.traces[2]));
    expect(cold.getTrace(2)?.id).toBe(whole.traces[2]?.id);
    const all = await cold.complete();
    expect(all.traces.map(plain)).toEqual(whole.traces.map(plain));
    const sha = createHash('sha256').update(readFileSync(file)).digest('hex');
    expect(cold.fileHashes).toEqual([sha]);
  });

  it('a line of only non-ASCII spaces before a trace read ahead is an error naming it, not a shifted index', async () => {
    const dir = tmp();
    const file = write(dir, [line(0), '\u00a0', line(1)]);
    const cold = await openCompiledCorpus([file], { tokenizer, seed: 1, cacheDir: null });
    cold.getCompiled(2);
    const err = await cold.complete().then(
      () => null,
      (e: unknown) => e as TraceCorpusError,
    );
    expect(err).toBeInstanceOf(TraceCorpusError);
    expect(err?.message).toContain(`${file}:2`);
  });

  it('counts the same lines cold and warm when --max-context drops traces (a replay orders over them)', async () => {
    const dir = tmp();
    const traces = [0, 1, 2].map((i) => synthTrace(5, i, 131_072));
    const file = write(
      dir,
      traces.map((t) => JSON.stringify(t)),
    );
    const maxContext = Math.min(...traces.map(traceContext));
    const o = { tokenizer, seed: 1, cacheDir: join(dir, 'cache'), maxContext };
    const cold = await openCompiledCorpus([file], o);
    const whole = await cold.complete();
    expect(whole.dropped.length).toBeGreaterThan(0);
    const warm = await openCompiledCorpus([file], o);
    expect(warm.fromCache).toBe(true);
    expect(warm.lines).toBe(cold.lines);
    expect(warm.getCompiled(whole.traces.length)).toBeUndefined();
    expect(warm.getTrace(whole.traces.length)).toBeUndefined();
  });
});
