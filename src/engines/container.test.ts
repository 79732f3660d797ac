import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { dockerImage, enrootImage, type WrapInput, wrapInContainer } from './container.ts';

const input = (over: Partial<WrapInput> = {}): WrapInput => ({
  label: 'server 0',
  argv: ['vllm', 'serve', 'm', '--speculative-config', '{"method": "mtp"}'],
  env: { A: 'x y', B: '{"k": 1}' },
  files: [{ path: '/work/f.yaml', content: 'a: 1\n' }],
  rankFlag: null,
  gpus: 8,
  nodes: 1,
  ...over,
});
const ctx = { image: 'nvcr.io#nvidia/tensorrt-llm/release:1.3.0rc24', workDir: '/work' };

describe('container runtimes', () => {
  it('none: the command and environment as the recipe gave them', () => {
    expect(wrapInContainer(input(), { ...ctx, runtime: 'none' })).toEqual({
      argv: input().argv,
      env: input().env,
      warnings: [],
    });
  });

  it('docker: host network and IPC, GPUs, env as -e, the work dir mounted, the entrypoint replaced', () => {
    const w = wrapInContainer(input(), { ...ctx, runtime: 'docker' });
    expect(w.env).toEqual({});
    expect(w.argv).toEqual([
      'docker',
      'run',
      '--rm',
      '--network',
      'host',
      '--ipc',
      'host',
      '--gpus',
      'all',
      '-e',
      'A=x y',
      '-e',
      'B={"k": 1}',
      '-e',
      'HF_TOKEN',
      '-v',
      '/work:/work',
      '--entrypoint',
      'vllm',
      'nvcr.io/nvidia/tensorrt-llm/release:1.3.0rc24',
      'serve',
      'm',
      '--speculative-config',
      '{"method": "mtp"}',
    ]);
  });

  it('podman: CDI devices; no GPUs for a router', () => {
    expect(wrapInContainer(input(), { ...ctx, runtime: 'podman' }).argv.slice(7, 9)).toEqual([
      '--device',
      'nvidia.com/gpu=all',
    ]);
    const router = wrapInContainer(input({ gpus: 0 }), { ...ctx, runtime: 'podman' }).argv;
    expect(router).not.toContain('--device');
  });

  it('srun: pyxis flags, env inherited and named in --container-env', () => {
    const w = wrapInContainer(input(), { ...ctx, runtime: 'srun' });
    expect(w.env).toEqual(input().env);
    expect(w.argv.slice(0, 15)).toEqual([
      'srun',
      '--nodes',
      '1',
      '--ntasks-per-node',
      '1',
      '--gpus-per-node',
      '8',
      '--container-image',
      'nvcr.io#nvidia/tensorrt-llm/release:1.3.0rc24',
      '--container-mounts',
      '/work:/work',
      '--container-env',
      'A,B',
      'vllm',
      'serve',
    ]);
  });

  it('srun: a worker over several nodes takes its rank from Slurm on each node', () => {
    const w = wrapInContainer(input({ nodes: 2, gpus: 16, rankFlag: '--node-rank' }), {
      ...ctx,
      runtime: 'srun',
    });
    const at = w.argv.indexOf('bash');
    expect(w.argv.slice(at, at + 4)).toEqual([
      'bash',
      '-c',
      'exec "$@" --node-rank "$SLURM_NODEID"',
      'infx-node',
    ]);
    // The wrapper passes the command through unchanged and appends the rank.
    const echoed = execFileSync(
      'bash',
      ['--norc', '-c', w.argv[at + 2] as string, 'infx-node', 'printf', '%s|'],
      {
        env: { PATH: process.env.PATH, SLURM_NODEID: '1' },
        encoding: 'utf8',
      },
    );
    expect(echoed).toBe('--node-rank|1|');
  });

  it('elsewhere, a multi-node worker is rendered as node 0 with a warning', () => {
    const w = wrapInContainer(input({ nodes: 2, rankFlag: '--node-rank' }), { ...ctx, runtime: 'none' });
    expect(w.argv.slice(-2)).toEqual(['--node-rank', '0']);
    expect(w.warnings[0]).toMatch(/server 0 spans 2 nodes.*--node-rank 1\.\.1/);
  });

  it('warns about files a container cannot see', () => {
    const w = wrapInContainer(input({ files: [{ path: '/tmp/x', content: '' }] }), {
      ...ctx,
      runtime: 'docker',
    });
    expect(w.warnings[0]).toMatch(/\/tmp\/x is outside the work directory \/work/);
  });

  it('spells images for each runtime', () => {
    expect(enrootImage('nvcr.io/nvidia/x:1')).toBe('nvcr.io#nvidia/x:1');
    expect(enrootImage('localhost:5000/x')).toBe('localhost:5000#x');
    expect(enrootImage('lmsysorg/sglang:v0.5.8')).toBe('lmsysorg/sglang:v0.5.8');
    expect(enrootImage('ubuntu')).toBe('ubuntu');
    expect(enrootImage('ghcr.io#a/b')).toBe('ghcr.io#a/b');
    expect(dockerImage('ghcr.io#a/b:c')).toBe('ghcr.io/a/b:c');
    expect(dockerImage('vllm/vllm-openai:v0.20.1')).toBe('vllm/vllm-openai:v0.20.1');
  });
});
