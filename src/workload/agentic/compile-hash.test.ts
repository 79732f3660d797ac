import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { corpusHash } from './compile-hash.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
/** The hash of files with these contents, as corpusHash frames them. */
const expected = (...contents: string[]) => sha(contents.map((c) => `${sha(c)}\0`).join(''));

describe('corpusHash', () => {
  it('is a hash of the files in order, and of each byte', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'infx-hash-'));
    dirs.push(dir);
    const [a, b] = [join(dir, 'a'), join(dir, 'b')];
    writeFileSync(a, 'abc');
    writeFileSync(b, 'de');
    expect(await corpusHash([a, b])).toBe(expected('abc', 'de'));
    expect(await corpusHash([b, a])).toBe(expected('de', 'abc'));
    writeFileSync(b, 'df');
    expect(await corpusHash([a, b])).toBe(expected('abc', 'df'));
    expect(await corpusHash([join(dir, 'missing')])).toBe('');
  });

  it('remembers a settled file by its stamp, never a freshly written one, and sees a rewrite', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'infx-hash-'));
    dirs.push(dir);
    const file = join(dir, 'traces.jsonl');
    const memoFile = join(dir, 'agentic-file-hashes.json');
    writeFileSync(file, 'one');
    // Just written: hashed, not remembered (a rewrite in the same timestamp tick would go unseen).
    expect(await corpusHash([file], dir)).toBe(expected('one'));
    expect(() => readFileSync(memoFile)).toThrow();
    const past = new Date(Date.now() - 60_000);
    utimesSync(file, past, past);
    expect(await corpusHash([file], dir)).toBe(expected('one'));
    // Remembered: a forged memo entry proves the next call reads the memo, not the file.
    const memo = JSON.parse(readFileSync(memoFile, 'utf8')) as Record<string, { sha256: string }>;
    const [path] = Object.keys(memo);
    (memo[path as string] as { sha256: string }).sha256 = sha('forged');
    writeFileSync(memoFile, JSON.stringify(memo));
    expect(await corpusHash([file], dir)).toBe(sha(`${sha('forged')}\0`));
    // Same size, one byte changed: the stamp moves, the file is hashed again.
    writeFileSync(file, 'onf');
    expect(await corpusHash([file], dir)).toBe(expected('onf'));
    // A garbled memo is ignored.
    writeFileSync(memoFile, '{not json');
    expect(await corpusHash([file], dir)).toBe(expected('onf'));
  });
});
