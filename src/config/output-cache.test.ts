import { readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tmpDir } from '../../test/helpers.ts';
import { lookupOutput, outputKey, storeOutput } from './output-cache.ts';

const key = (over: Partial<Parameters<typeof outputKey>[0]> = {}) =>
  outputKey({
    buildId: 'b1',
    argv: ['matrix', 'full-sweep'],
    cwd: '/w',
    env: { INFX_CATALOG: undefined },
    ...over,
  });

const out = { stdout: '[1, "é"]\n', stderr: 'warning: w\n' };
const text = (hit: ReturnType<typeof lookupOutput>) => hit && { ...hit, stdout: hit.stdout.toString('utf8') };
const past = () => Date.now() + 1000; // inputs written by the test are older than this "start"

/** A cache folder and two input files (one absent), stored once. */
function stored() {
  const dir = tmpDir();
  const work = tmpDir();
  writeFileSync(join(work, 'a.yaml'), 'a: 1\n');
  const k = key();
  storeOutput(dir, k, work, ['a.yaml', 'absent.yaml'], out, past());
  return { dir, work, k, entry: () => join(dir, 'output', readdirSync(join(dir, 'output'))[0]!) };
}

describe('output cache', () => {
  it('is keyed by build, command line, folder and environment', () => {
    const k = key();
    expect(key()).toBe(k);
    expect(key({ buildId: 'b2' })).not.toBe(k);
    expect(key({ argv: ['matrix', 'full-sweep', '--max-tp', '4'] })).not.toBe(k);
    expect(key({ cwd: '/v' })).not.toBe(k);
    expect(key({ env: { INFX_CATALOG: 'c.yaml' } })).not.toBe(k);
  });

  it('replays what was stored while every input has the same bytes', () => {
    const { dir, k } = stored();
    expect(text(lookupOutput(dir, k))).toEqual(out);
    expect(lookupOutput(dir, key({ buildId: 'b2' }))).toBeNull();
  });

  it('misses when one byte of an input changes, or an absent input appears', () => {
    const a = stored();
    writeFileSync(join(a.work, 'a.yaml'), 'a: 2\n');
    expect(lookupOutput(a.dir, a.k)).toBeNull();
    const b = stored();
    writeFileSync(join(b.work, 'absent.yaml'), '');
    expect(lookupOutput(b.dir, b.k)).toBeNull();
    const c = stored();
    rmSync(join(c.work, 'a.yaml'));
    expect(lookupOutput(c.dir, c.k)).toBeNull();
  });

  it('treats a corrupt or foreign entry as a miss', () => {
    const a = stored();
    writeFileSync(a.entry(), '{"format": 1, "key": "x", "stdo');
    expect(lookupOutput(a.dir, a.k)).toBeNull();
    const b = stored();
    const [line, body] = readFileSync(b.entry(), 'utf8').split(/\n(.*)/s) as [string, string];
    const header = JSON.parse(line);
    expect(body).toBe(out.stdout);
    const write = (h: unknown, rest = body) => writeFileSync(b.entry(), `${JSON.stringify(h)}\n${rest}`);
    write(header);
    expect(text(lookupOutput(b.dir, b.k))).toEqual(out);
    write({ ...header, key: 'another' });
    expect(lookupOutput(b.dir, b.k)).toBeNull();
    write({ ...header, stderr: 42 });
    expect(lookupOutput(b.dir, b.k)).toBeNull();
    write(header, body.slice(1)); // cut short
    expect(lookupOutput(b.dir, b.k)).toBeNull();
    write(null);
    expect(lookupOutput(b.dir, b.k)).toBeNull();
    writeFileSync(b.entry(), JSON.stringify(header));
    expect(lookupOutput(b.dir, b.k)).toBeNull();
  });

  it('stores nothing when an input changed after the run started, or is not a regular file', () => {
    const dir = tmpDir();
    const work = tmpDir();
    writeFileSync(join(work, 'a.yaml'), 'a: 1\n');
    const start = Date.now() - 60_000;
    storeOutput(dir, key(), work, ['a.yaml'], out, start);
    expect(lookupOutput(dir, key())).toBeNull();
    utimesSync(join(work, 'a.yaml'), new Date(start - 1000), new Date(start - 1000));
    storeOutput(dir, key(), work, ['a.yaml'], out, start);
    expect(text(lookupOutput(dir, key()))).toEqual(out);
    storeOutput(dir, key({ cwd: '/x' }), work, ['.'], out, past());
    expect(lookupOutput(dir, key({ cwd: '/x' }))).toBeNull();
  });

  it('keeps a bounded number of entries', () => {
    const dir = tmpDir();
    for (let i = 0; i < 20; i++) storeOutput(dir, key({ argv: [String(i)] }), dir, [], out, past());
    expect(readdirSync(join(dir, 'output')).length).toBe(16);
  });
});
