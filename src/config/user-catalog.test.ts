import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tmpDir } from '../../test/helpers.ts';
import { MY_GPU_ENTRY } from '../../test/user-catalog-fixture.ts';
import { accelerator, CatalogError, listAccelerators, model } from '../catalog/index.ts';
import { readUserCatalog, USER_CATALOG_DEFAULT, useUserCatalog } from './user-catalog.ts';

const GPU = `
accelerators:
${MY_GPU_ENTRY}  - id: h100
    vendor: nvidia
    name: H100 with a different price
    memoryGiB: 80
    memoryBandwidthTBs: 3.35
    denseTflops: { bf16: 989.4, fp8: 1978.9, fp4: null }
    scaleUp: { domainGpus: 8, bandwidthGBs: 450 }
    scaleOutGBs: 50
    powerW: 700
    pricePerGpuHour: 9.99
    sources: [{ url: 'https://example.com/h100' }]
    estimated: []
models:
  - id: acme/Tiny-1B
    aliases: [tiny1b]
    totalParamsB: 1
    activeParamsB: 1
    layers: 16
    hiddenSize: 2048
    attention: { kind: GQA, heads: 32, kvHeads: 8, headDim: 64 }
    kvLayers: 16
    stateBytesPerSeq: 0
    sparseAttentionTopK: null
    moe: null
    maxContext: 131072
    sources: [{ url: 'https://example.com/tiny' }]
    estimated: []
`;

describe('a user catalog', () => {
  it('adds accelerators and models, replaces a built-in id, and is passed on to child processes', () => {
    const dir = tmpDir('infx-catalog-');
    const file = join(dir, 'catalog.yaml');
    writeFileSync(file, GPU);
    expect(() => accelerator('my-gpu')).toThrow(CatalogError);
    const env: NodeJS.ProcessEnv = {};
    const got = useUserCatalog(file, env);
    expect(got).toMatchObject({
      accelerators: ['my-gpu', 'h100'],
      models: ['acme/Tiny-1B'],
      replaced: ['h100'],
    });
    expect(env.INFX_CATALOG).toBe(file);
    expect(accelerator('my-gpu').memoryGiB).toBe(64);
    expect(accelerator('h100').pricePerGpuHour).toBe(9.99);
    expect(model('tiny1b').id).toBe('acme/Tiny-1B');
    expect(listAccelerators().filter((a) => a.id === 'h100')).toHaveLength(1);
    expect(Object.isFrozen(accelerator('my-gpu'))).toBe(true);
    // The same file again changes nothing.
    expect(useUserCatalog(file, env)).toBe(got);
  });

  it('is found at .infx/catalog.yaml, else nothing is loaded', () => {
    const dir = tmpDir('infx-catalog-');
    mkdirSync(join(dir, '.infx'));
    expect(useUserCatalog(undefined, {}, () => false)).toBeNull();
    const seen: string[] = [];
    expect(() =>
      useUserCatalog(undefined, {}, (p) => {
        seen.push(p);
        return true;
      }),
    ).toThrow(/catalog file '.*\.infx\/catalog\.yaml' does not exist/);
    expect(seen).toEqual([USER_CATALOG_DEFAULT]);
  });

  it('names the file and the key of every problem, and refuses what is not a catalog file', () => {
    const dir = tmpDir('infx-catalog-');
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'accelerators:\n  - id: x\n    vendor: intel\n');
    expect(() => readUserCatalog(bad)).toThrow(/catalog file '.*bad\.yaml' is not a catalog/);
    expect(() => readUserCatalog(bad)).toThrow(/accelerators\[0\]\.vendor: /);
    expect(() => readUserCatalog(bad)).toThrow(/accelerators\[0\]\.memoryGiB: /);
    writeFileSync(bad, 'accelerators: [\n');
    expect(() => readUserCatalog(bad)).toThrow(/bad\.yaml/);
    writeFileSync(bad, 'gpus: []\n');
    expect(() => readUserCatalog(bad)).toThrow(/\(top level\): Unrecognized key/i);
    expect(() => readUserCatalog(dir)).toThrow(/is not a regular file/);
    expect(() => readUserCatalog(join(dir, 'none.yaml'))).toThrow(/does not exist/);
  });

  it('reads with the bounds of every input file: a FIFO or a device is refused at once, an alias bomb too', () => {
    const dir = tmpDir('infx-catalog-');
    const fifo = join(dir, 'catalog.fifo');
    execFileSync('mkfifo', [fifo]);
    // Nobody writes to it: opening it to read would wait forever.
    expect(() => readUserCatalog(fifo)).toThrow(/is not a regular file \(a FIFO \(named pipe\)\)/);
    expect(() => readUserCatalog('/dev/zero')).toThrow(/not a regular file/);
    const lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 12; i++)
      lines.push(
        `a${i}: &a${i} [${Array(10)
          .fill(`*a${i - 1}`)
          .join(', ')}]`,
      );
    const bomb = join(dir, 'bomb.yaml');
    writeFileSync(bomb, `${lines.join('\n')}\naccelerators: *a11\n`);
    expect(() => readUserCatalog(bomb)).toThrow(/bomb\.yaml.*(alias|nodes)/);
  });
});
