import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { droppedNote, loadCorpus } from './corpus.ts';
import { TraceCorpusError, TraceUsageError } from './errors.ts';
import { CORPUS_1M, CORPUS_256K, corpusForModelPrefix, findPublicCorpus } from './hf-corpus.ts';
import { parseMaxContext } from './max-context.ts';

const dir = mkdtempSync(join(tmpdir(), 'infx-corpus-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const trace = (id: string, blocks: number, out = 10) =>
  JSON.stringify({
    id,
    block_size: 64,
    tool_tokens: 0,
    system_tokens: 0,
    requests: [
      { type: 'n', t: 0, in: 64, out: 1, hash_ids: [0] },
      {
        type: 'subagent',
        t: 1,
        agent_id: 'x',
        requests: [
          { type: 's', t: 1, in: blocks * 64, out, hash_ids: Array.from({ length: blocks }, (_, i) => i) },
        ],
      },
    ],
  });
let n = 0;
const file = (text: string) => {
  const path = join(dir, `traces-${n++}.jsonl`);
  writeFileSync(path, text);
  return path;
};
const failure = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (err) {
    return err as TraceCorpusError;
  }
  throw new Error('expected an error');
};

describe('loadCorpus', () => {
  it('reads every line of every file, skipping blank ones, in order', async () => {
    const a = file(`${trace('a', 2)}\n\n${trace('b', 3)}\n`);
    const b = file(trace('c', 1)); // no final newline
    const { traces, report } = await loadCorpus([a, b]);
    expect(traces.map((t) => t.id)).toEqual(['a', 'b', 'c']);
    expect(report).toMatchObject({ traces: 3, dropped: [] });
  });

  it('names file:line, the trace and the field of a malformed line, with how to fix it', async () => {
    const bad = trace('b', 2).replace('"out":10', '"out":"ten"');
    const path = file(`${trace('a', 2)}\n${bad}\n`);
    const err = await failure(loadCorpus([path]));
    expect(err).toBeInstanceOf(TraceCorpusError);
    expect(err.exitCode).toBe(1);
    expect(err.message).toBe(
      `${path}:2: trace b: requests.1.requests.0.out: expected number, received string`,
    );
    expect(err.hint).toMatch(/Weka kv-cache-tester format/);
  });

  it('says a line that is not JSON is not, and a wrong type marker what it may be', async () => {
    const notJson = file(`${trace('a', 1)}\n{"id": \n`);
    expect((await failure(loadCorpus([notJson]))).message).toMatch(new RegExp(`^${notJson}:2: not JSON`));
    const kind = file(trace('a', 1).replace('"type":"n"', '"type":"q"'));
    expect((await failure(loadCorpus([kind]))).message).toBe(
      `${kind}:1: trace a: requests.0.type: must be one of "n", "s", "subagent"`,
    );
  });

  it('refuses a FIFO and a folder at once (a FIFO would be read until its writer stops), and never echoes binary', async () => {
    const fifo = join(dir, 'fifo.jsonl');
    execFileSync('mkfifo', [fifo]);
    expect((await failure(loadCorpus([fifo]))).message).toBe(
      `${fifo}: not a regular file (a folder, a FIFO or a device)`,
    );
    expect((await failure(loadCorpus([dir]))).message).toBe(
      `${dir}: not a regular file (a folder, a FIFO or a device)`,
    );
    const binary = join(dir, 'binary.jsonl');
    writeFileSync(binary, Buffer.from([0x7b, 0x01, 0x02, 0xff, 0xfe, 0x1b, 0x5b, 0x32, 0x4a]));
    const message = (await failure(loadCorpus([binary]))).message;
    expect(message).toMatch(new RegExp(`^${binary}:1: not JSON`));
    // biome-ignore lint/suspicious/noControlCharactersInRegex: that no control character is left is the test
    expect(message).not.toMatch(/[\u0000-\u001f\u007f-\u009f\ufffd]/);
  });

  it('refuses an empty corpus, a missing file and a line past the bound', async () => {
    const empty = file('\n\n');
    expect((await failure(loadCorpus([empty]))).message).toBe(`the corpus is empty: no trace in ${empty}`);
    expect((await failure(loadCorpus([join(dir, 'nope.jsonl')]))).message).toMatch(
      /nope\.jsonl: no such file/,
    );
    const long = file(`${trace('a', 1)}\n${trace('b', 200)}\n`);
    expect((await failure(loadCorpus([long], { maxLineBytes: 500 }))).message).toBe(
      `${long}:2: line longer than 500 bytes`,
    );
    await expect(loadCorpus([])).rejects.toThrow(/no trace files/);
  });

  it('drops whole traces whose max(in + out) passes --max-context, counted, subagent calls included', async () => {
    // a: 2 blocks + 10 = 138; b: 4 blocks + 10 = 266 (inside its subagent); c: 1 block + 200 = 264.
    const path = file([trace('a', 2), trace('b', 4), trace('c', 1, 200)].join('\n'));
    const { traces, report } = await loadCorpus([path], { maxContext: 264 });
    expect(traces.map((t) => t.id)).toEqual(['a', 'c']);
    expect(report.dropped).toEqual([{ file: path, line: 2, id: 'b', context: 266 }]);
    expect(droppedNote(report)).toBe('1 trace over --max-context 264 dropped (the longest needs 266 tokens)');
    const none = await failure(loadCorpus([path], { maxContext: 100 }));
    expect(none.message).toMatch(/3 dropped, none left/);
    expect(none.hint).toMatch(/smallest trace needs 138 tokens/);
  });
});

describe('parseMaxContext', () => {
  it('reads 1M, 256k and token counts', () => {
    expect(parseMaxContext('1M')).toBe(1_048_576);
    expect(parseMaxContext('256k')).toBe(256_000);
    expect(parseMaxContext('256K')).toBe(256_000);
    expect(parseMaxContext('131072')).toBe(131_072);
    expect(() => parseMaxContext('12q')).toThrow(TraceUsageError);
    expect(() => parseMaxContext('0')).toThrow(/positive token count/);
  });
});

describe('the public corpora in the local Hugging Face cache', () => {
  it('are chosen by model prefix as resolve_trace_source does', () => {
    for (const p of ['dsv4', 'dsv4-fp8', 'glm5.2', 'minimaxm3', 'kimik3.1'])
      expect(corpusForModelPrefix(p)).toBe(CORPUS_1M);
    for (const p of ['dsr1', 'gptoss', 'glm5', 'kimik2.5', 'qwen3.5'])
      expect(corpusForModelPrefix(p)).toBe(CORPUS_256K);
  });

  it('are found under HF_HOME: the snapshot refs/main names, else the newest with traces', () => {
    const home = join(dir, 'hf');
    const repo = join(home, 'hub', 'datasets--semianalysisai--cc-traces-weka-062126');
    mkdirSync(join(repo, 'snapshots', 'abc1234', 'data'), { recursive: true });
    mkdirSync(join(repo, 'snapshots', 'fff0000'), { recursive: true });
    mkdirSync(join(repo, 'refs'), { recursive: true });
    writeFileSync(join(repo, 'snapshots', 'abc1234', 'data', 'traces.jsonl'), trace('a', 1));
    writeFileSync(join(repo, 'snapshots', 'fff0000', 'traces.jsonl'), trace('b', 1));
    writeFileSync(join(repo, 'refs', 'main'), 'abc1234\n');
    expect(findPublicCorpus(CORPUS_1M, { HF_HOME: home })).toEqual([
      join(repo, 'snapshots', 'abc1234', 'data', 'traces.jsonl'),
    ]);
    rmSync(join(repo, 'refs'), { recursive: true });
    expect(findPublicCorpus(CORPUS_1M, { HF_HUB_CACHE: join(home, 'hub') })).toHaveLength(1);
  });

  it('absent: an error that says where it looked, never a download', () => {
    const err = (() => {
      try {
        findPublicCorpus(CORPUS_256K, { HF_HOME: join(dir, 'empty-hf') });
      } catch (e) {
        return e as TraceCorpusError;
      }
      throw new Error('expected an error');
    })();
    expect(err).toBeInstanceOf(TraceCorpusError);
    expect(err.message).toContain(
      join(dir, 'empty-hf', 'hub', 'datasets--semianalysisai--cc-traces-weka-062126-256k', 'snapshots'),
    );
    expect(err.hint).toMatch(/never downloads/);
  });
});
