import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeUtf8, firstInvalidUtf8, readInputBytes, readInputText } from './read.ts';

const dir = mkdtempSync(join(tmpdir(), 'infx-read-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const diag = (r: ReturnType<typeof readInputText>) => ('diagnostic' in r ? r.diagnostic : undefined);

describe('firstInvalidUtf8', () => {
  it.each([
    [[0x61, 0xff], 1, /0xFF never occurs/],
    [[0x80], 0, /continuation byte/],
    [[0x61, 0xc3], 1, /cuts off/],
    [[0xc3, 0x28], 0, /0x28 does not continue/],
    [[0xc0, 0xaf], 0, /never occurs/],
    [[0xe0, 0x80, 0xaf], 0, /overlong/],
    [[0xed, 0xa0, 0x80], 0, /surrogate/],
    [[0xf4, 0x90, 0x80, 0x80], 0, /beyond U\+10FFFF/],
  ])('%j: offset %d', (bytes, offset, why) => {
    const bad = firstInvalidUtf8(Uint8Array.from(bytes));
    expect(bad?.offset).toBe(offset);
    expect(bad?.why).toMatch(why);
  });

  it('accepts valid text of every length', () => {
    expect(firstInvalidUtf8(Buffer.from('a é — 𝄞'))).toBeUndefined();
  });
});

describe('decodeUtf8', () => {
  it('drops a UTF-8 byte-order mark and keeps multibyte text', () => {
    const r = decodeUtf8('f', Buffer.from('\ufeffa: — é\n'));
    expect(r).toEqual({ text: 'a: — é\n' });
  });

  it('names line, column and byte of invalid UTF-8', () => {
    const bytes = Buffer.concat([Buffer.from('a: 1\nbé: '), Buffer.from([0xff]), Buffer.from('\n')]);
    const d = diag(decodeUtf8('f.yaml', bytes));
    expect(d).toMatchObject({ rule: 'file.encoding', line: 2, column: 5 });
    expect(d?.message).toMatch(/invalid UTF-8 at line 2, column 5 \(byte offset 10\): byte 0xFF/);
  });

  it('says UTF-16 (with or without a byte-order mark) and UTF-32', () => {
    expect(diag(decodeUtf8('f', Buffer.from('\ufeffa: 1', 'utf16le')))?.message).toMatch(
      /UTF-16 \(little-endian/,
    );
    expect(diag(decodeUtf8('f', Buffer.from('a: 1\n', 'utf16le')))?.message).toMatch(
      /UTF-16.*no byte-order mark/,
    );
    expect(diag(decodeUtf8('f', Buffer.from([0xff, 0xfe, 0, 0, 0x61, 0, 0, 0])))?.message).toMatch(/UTF-32/);
  });

  it('refuses a NUL byte at its position', () => {
    expect(diag(decodeUtf8('f', Buffer.from('a: 1\nb: \u0000\n')))).toMatchObject({ line: 2, column: 4 });
  });
});

describe('readInputBytes', () => {
  it('keeps the caller’s wording for a missing file', () => {
    const r = readInputBytes(join(dir, 'nope.yaml'), { missingMessage: "Input file 'x' does not exist." });
    expect('diagnostic' in r && r.diagnostic).toMatchObject({
      rule: 'file.missing',
      message: "Input file 'x' does not exist.",
    });
  });

  it('refuses a directory, a FIFO and a device without reading them', () => {
    const sub = join(dir, 'sub');
    mkdirSync(sub);
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    for (const [path, kind] of [
      [sub, /directory/],
      [fifo, /FIFO/],
      ['/dev/zero', /character device/],
    ] as const) {
      const r = readInputBytes(path);
      expect('diagnostic' in r && r.diagnostic.rule).toBe('file.not-regular');
      expect('diagnostic' in r && r.diagnostic.message).toMatch(kind);
    }
  });

  it('refuses a file over the size bound', () => {
    const path = join(dir, 'big.yaml');
    writeFileSync(path, 'x'.repeat(2048));
    const r = readInputBytes(path, { maxBytes: 1024 });
    expect('diagnostic' in r && r.diagnostic).toMatchObject({ rule: 'file.too-large' });
    expect(readInputBytes(path, { maxBytes: 4096 })).toHaveProperty('bytes');
  });

  it('reads a FIFO to its end when allowed (a matrix from process substitution)', async () => {
    const fifo = join(dir, 'matrix.fifo');
    execFileSync('mkfifo', [fifo]);
    const writer = spawn('sh', ['-c', `printf '[1, 2]' > '${fifo}'`]);
    const r = readInputText(fifo, { allowFifo: true });
    await new Promise((resolve) => writer.on('exit', resolve));
    expect(r).toEqual({ text: '[1, 2]' });
  });
});
