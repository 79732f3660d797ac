import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tmpDir, writeYaml } from '../../test/helpers.ts';
import { defaultCacheDir, openParseCache } from './cache.ts';
import { loadMasterConfigs } from './load.ts';

const MASTER = `x-fp8-h100-vllm:
  image: img
  model: m
  model-prefix: x
  precision: fp8
  framework: vllm
  runner: h100
  multinode: false
  scenarios:
    fixed-seq-len:
    - isl: 1024
      osl: 1024
      search-space:
      - { tp: 8, conc-start: 4, conc-end: 64 }
`;

describe('parse cache', () => {
  it('is keyed by content and build, and survives corrupt entries', () => {
    const cache = openParseCache(tmpDir(), 'build-a')!;
    cache.set('master', 'text', { a: 1 });
    expect(cache.get('master', 'text')).toEqual({ a: 1 });
    expect(cache.get('master', 'text2')).toBeUndefined();
    expect(cache.get('runners', 'text')).toBeUndefined();
    expect(openParseCache(join(tmpDir()), 'build-b')!.get('master', 'text')).toBeUndefined();
  });

  it('ignores unreadable entries and is off without a build id or with INFX_NO_CACHE', () => {
    const dir = tmpDir();
    const cache = openParseCache(dir, 'b')!;
    cache.set('master', 'x', { ok: true });
    const [file] = readdirSync(join(dir, 'parsed'));
    writeFileSync(join(dir, 'parsed', file!), '{not json');
    expect(cache.get('master', 'x')).toBeUndefined();
    expect(openParseCache(dir, undefined)).toBeUndefined();
    expect(defaultCacheDir({ INFX_NO_CACHE: '1' })).toBeUndefined();
    expect(defaultCacheDir({ INFX_CACHE_DIR: '/c' })).toBe('/c');
    expect(defaultCacheDir({ XDG_CACHE_HOME: '/x' })).toBe('/x/infx');
  });

  it('stores only files that validated, and a hit gives the same configs', async () => {
    const dir = tmpDir();
    const cacheDir = tmpDir();
    const cache = openParseCache(cacheDir, 'b');
    const good = writeYaml(dir, 'good.yaml', MASTER);
    const first = await loadMasterConfigs([good], { cache });
    expect(first.diagnostics).toEqual([]);
    expect(readdirSync(join(cacheDir, 'parsed'))).toHaveLength(1);
    const second = await loadMasterConfigs([good], { cache });
    expect(second.value.entries).toEqual(first.value.entries);

    const bad = writeYaml(dir, 'bad.yaml', MASTER.replace('conc-end: 64', 'conc-end: 2'));
    const broken = await loadMasterConfigs([bad], { cache });
    expect(broken.diagnostics.map((d) => d.rule)).toEqual(['conc.range-order']);
    expect(readdirSync(join(cacheDir, 'parsed'))).toHaveLength(1);
    expect((await loadMasterConfigs([bad], { cache })).diagnostics).toHaveLength(1);
  });

  it('keeps at most 64 entries', () => {
    const dir = tmpDir();
    const cache = openParseCache(dir, 'b')!;
    for (let i = 0; i < 70; i++) cache.set('master', `t${i}`, i);
    expect(readdirSync(join(dir, 'parsed')).length).toBeLessThanOrEqual(64);
  });
});
