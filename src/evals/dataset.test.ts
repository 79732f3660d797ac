import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tmpDir } from '../../test/helpers.ts';
import { hubCacheDir, loadGsm8k, readGsmFromHfCache, readGsmJsonl } from './dataset.ts';

const line = (i: number) => JSON.stringify({ question: `Q${i}?`, answer: `#### ${i}` });

/** A Hugging Face hub cache with openai/gsm8k at commit `rev`, main/ holding `files`. */
function hub(files: Record<string, string>, rev = 'abc123'): string {
  const root = tmpDir();
  const repo = join(root, 'datasets--openai--gsm8k');
  mkdirSync(join(repo, 'refs'), { recursive: true });
  writeFileSync(join(repo, 'refs', 'main'), `${rev}\n`);
  mkdirSync(join(repo, 'snapshots', rev, 'main'), { recursive: true });
  for (const [name, text] of Object.entries(files))
    writeFileSync(join(repo, 'snapshots', rev, 'main', name), text);
  return root;
}

describe('GSM8K datasets from local files', () => {
  it('reads JSONL, skipping blank lines, and names file:line of a bad one', () => {
    const dir = tmpDir();
    const ok = join(dir, 'ok.jsonl');
    writeFileSync(ok, `${line(0)}\n\n${line(1)}\n`);
    expect(readGsmJsonl(ok)).toEqual([
      { question: 'Q0?', answer: '#### 0' },
      { question: 'Q1?', answer: '#### 1' },
    ]);
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, `${line(0)}\n{"question": "Q1?"\n`);
    expect(() => readGsmJsonl(bad)).toThrow(`${bad}:2: not JSON`);
    writeFileSync(bad, `${line(0)}\n${line(1)}\n{"question": "Q2?"}\n`);
    expect(() => readGsmJsonl(bad)).toThrow(
      `${bad}:3: answer: Invalid input: expected string, received undefined`,
    );
  });

  it('finds the cache as huggingface_hub does: $HF_HUB_CACHE, else $HF_HOME/hub', () => {
    expect(hubCacheDir({ HF_HUB_CACHE: '/a', HF_HOME: '/b' })).toBe('/a');
    expect(hubCacheDir({ HF_HOME: '/b' })).toBe(join('/b', 'hub'));
  });

  it('reads the splits of the snapshot refs/main names', () => {
    const root = hub({
      'test-00000-of-00001.jsonl': `${line(5)}\n`,
      'train-00000-of-00001.jsonl': `${line(0)}\n${line(1)}\n`,
    });
    const data = loadGsm8k({ dataset: null, fewshotDataset: null }, 2, { HF_HUB_CACHE: root });
    expect(data.test).toHaveLength(1);
    expect(data.train).toHaveLength(2);
    expect(() => loadGsm8k({ dataset: null, fewshotDataset: null }, 3, { HF_HUB_CACHE: root })).toThrow(
      /2 documents, fewer than --fewshot 3/,
    );
  });

  it('refuses a Parquet-only cache with the conversion to run', () => {
    const root = hub({ 'test-00000-of-00001.parquet': 'PAR1' });
    let hint = '';
    try {
      readGsmFromHfCache('test', { HF_HUB_CACHE: root });
    } catch (err) {
      hint = (err as { hint: string }).hint;
      expect((err as Error).message).toMatch(
        /test-00000-of-00001\.parquet: the cache holds GSM8K's test split as Parquet/,
      );
    }
    expect(hint).toContain("pandas.read_parquet('");
    expect(hint).toContain("test-00000-of-00001.jsonl', orient='records', lines=True");
  });
});
