import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, tmpDir } from './helpers.ts';
import { MY_GPU_ENTRY } from './user-catalog-fixture.ts';

// Each command runs as its own process: a user catalog is added to the process's catalog and exported in
// $INFX_CATALOG, which must not leak into other tests.
const BIN = join(REPO_ROOT, 'bin/infx.js');

const CATALOG = `
accelerators:
${MY_GPU_ENTRY}`;

const CONFIG = `
llama8b-bf16-mygpu-vllm:
  image: vllm/vllm-openai:v0.11.0
  model: meta-llama/Llama-3.1-8B-Instruct
  model-prefix: llama8b
  runner: my-gpu
  precision: bf16
  framework: vllm
  multinode: false
  scenarios:
    fixed-seq-len:
      - isl: 1024
        osl: 1024
        search-space:
          - { tp: 1, conc-start: 1, conc-end: 4 }
`;

const RUNNERS = `
labels:
  my-gpu: [my-gpu_00]
hardware:
  my-gpu: { available-cpu-dram-mib: 500_000, gpus-per-node: 4 }
`;

function setup() {
  const dir = tmpDir('infx-catalog-cli-');
  writeFileSync(join(dir, 'catalog.yaml'), CATALOG);
  writeFileSync(join(dir, 'master.yaml'), CONFIG);
  writeFileSync(join(dir, 'runners.yaml'), RUNNERS);
  return dir;
}

function infx(args: string[], cwd: string, env: Record<string, string> = {}) {
  const clean = { ...process.env, ...env };
  if (!('INFX_CATALOG' in env)) delete clean.INFX_CATALOG;
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    env: clean,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const CHECK = ['check', '--config-files', 'master.yaml', '--runner-config', 'runners.yaml', '--no-cache'];

describe('a user catalog on the command line', () => {
  it('an accelerator the built-in catalog lacks is an error that points at the user catalog', () => {
    const dir = setup();
    const r = infx(CHECK, dir);
    expect(r.code).toBe(1);
    expect(r.out + r.err).toMatch(/unknown accelerator 'my-gpu'/);
    expect(r.out + r.err).toMatch(/\.infx\/catalog\.yaml|--catalog/);
  });

  it('--catalog FILE adds it, before or after the command', () => {
    const dir = setup();
    const before = infx(['--catalog', 'catalog.yaml', ...CHECK], dir);
    expect(before.err).toBe('');
    expect(before.code).toBe(0);
    expect(before.out).toMatch(/1 config .*3 points/);
    const after = infx([...CHECK, '--catalog=catalog.yaml'], dir);
    expect(after.code).toBe(0);
    expect(after.out).toBe(before.out);
  });

  it('$INFX_CATALOG and .infx/catalog.yaml are found without the flag', () => {
    const dir = setup();
    expect(infx(CHECK, dir, { INFX_CATALOG: join(dir, 'catalog.yaml') }).code).toBe(0);
    mkdirSync(join(dir, '.infx'));
    writeFileSync(join(dir, '.infx/catalog.yaml'), CATALOG);
    expect(infx(CHECK, dir).code).toBe(0);
  });

  it('a catalog that is not one stops the command with the file and key named (exit 1)', () => {
    const dir = setup();
    writeFileSync(join(dir, 'bad.yaml'), 'accelerators:\n  - id: x\n    vendor: intel\n');
    const r = infx(['--catalog', 'bad.yaml', ...CHECK], dir);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/bad\.yaml/);
    expect(r.err).toMatch(/accelerators\[0\]\.vendor/);
    const missing = infx(['--catalog', 'nope.yaml', ...CHECK], dir);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/catalog file '.*nope\.yaml' does not exist/);
  });

  it('infx sim serve (its slim entry) serves an accelerator from the user catalog', async () => {
    const dir = setup();
    const bad = infx(
      ['sim', 'serve', '--catalog', 'nope.yaml', '--model', 'llama8b', '--hardware', 'my-gpu'],
      dir,
    );
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/nope\.yaml/);
    const env = { ...process.env };
    delete env.INFX_CATALOG;
    const child = spawn(
      process.execPath,
      [
        BIN,
        'sim',
        'serve',
        '--catalog',
        'catalog.yaml',
        '--model',
        'llama3.1-8b',
        '--hardware',
        'my-gpu',
        '--port',
        '0',
      ],
      { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let text = '';
        const timer = setTimeout(() => reject(new Error(`no listening line: ${text}`)), 30_000);
        const onData = (b: Buffer) => {
          text += b.toString();
          const m = /listening on (http:\/\/\S+)/.exec(text);
          if (m) {
            clearTimeout(timer);
            resolve(m[1] as string);
          }
        };
        child.stdout.on('data', onData);
        child.stderr.on('data', onData);
        child.on('exit', (code) => reject(new Error(`exited ${code}: ${text}`)));
      });
      const res = await fetch(`${url}/v1/models`);
      expect(res.status).toBe(200);
      expect(JSON.stringify(await res.json())).toMatch(/llama3.1-8b/);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
