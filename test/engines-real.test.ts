import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type WrapInput, wrapInContainer } from '../src/engines/container.ts';
import { assignDevices, gpuVendor, hostHfHome } from '../src/engines/devices.ts';
import { onPath, type PreflightPlan, runPreflight } from '../src/engines/preflight.ts';
import { renderRecipe } from '../src/engines/recipe.ts';
import { REFERENCE_BENCH } from '../src/schema/reference-client.ts';
import type { PointSpec } from '../src/schema/run-dir.ts';
import { GpuSlots, hostGpus } from '../src/sweep/executors/gpu-slots.ts';
import { pointJobScript } from '../src/sweep/executors/slurm.ts';
import { planPoints } from '../src/sweep/points.ts';
import { REPO_ROOT, tmpDir } from './helpers.ts';
import { fixedRow, multiRow, rowWorker } from './rows.ts';
import { infx } from './sweep-helpers.ts';

/**
 * Real engines on real GPUs, without either: the vendor's container flags, GPU pinning per point, the
 * Hugging Face cache and token, and the pre-flight checks, driven through fake `docker` executables that
 * record how they were called.
 */

const DEMO = join(REPO_ROOT, 'examples/demo.yaml');
const RUNNERS = join(REPO_ROOT, 'examples/runners.yaml');
const SECRET = 'hf_not_a_real_token_0123456789';

const input = (over: Partial<WrapInput> = {}): WrapInput => ({
  label: 'server 0',
  argv: ['vllm', 'serve', 'm'],
  env: { A: '1' },
  files: [],
  rankFlag: null,
  gpus: 2,
  nodes: 1,
  ...over,
});
const ctx = { image: 'vllm/vllm-openai:v0.11.0', workDir: '/work' };
const flagValues = (argv: string[], flag: string) =>
  argv.flatMap((a, i) => (a === flag ? [argv[i + 1]] : []));

/** A folder with a fake `docker` (and `podman`) whose answers the test sets; each call is appended to calls.log. */
function fakeRuntime(behaviour: { info?: string; inspect?: string; run?: string } = {}): {
  bin: string;
  calls: () => string[];
} {
  const bin = tmpDir('infx-fake-bin-');
  const log = join(bin, 'calls.log');
  const script = [
    '#!/bin/bash',
    `printf '%s\\n' "\${0##*/} $*" >> ${JSON.stringify(log)}`,
    'case "$1" in',
    `  info) ${behaviour.info ?? 'exit 0'} ;;`,
    `  image) ${behaviour.inspect ?? 'exit 0'} ;;`,
    `  run) ${behaviour.run ?? 'exit 1'} ;;`,
    'esac',
    '',
  ].join('\n');
  for (const name of ['docker', 'podman']) {
    writeFileSync(join(bin, name), script);
    chmodSync(join(bin, name), 0o755);
  }
  return {
    bin,
    calls: () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []),
  };
}

/** PATH of the fake runtimes plus what the recipes and the CLI need (bash, node, coreutils). */
const pathWith = (bin: string) => [bin, dirname(process.execPath), '/usr/bin', '/bin'].join(':');

describe('container flags per vendor', () => {
  it('NVIDIA docker: the point GPUs as one quoted device list (docker splits --gpus as CSV), else all', () => {
    const pinned = wrapInContainer(input({ devices: ['0', '1'] }), {
      ...ctx,
      runtime: 'docker',
      vendor: 'nvidia',
    });
    expect(flagValues(pinned.argv, '--gpus')).toEqual(['"device=0,1"']);
    // Inside the container the GPUs are renumbered: host ids in CUDA_VISIBLE_DEVICES would be wrong there.
    expect(pinned.argv.join(' ')).not.toContain('CUDA_VISIBLE_DEVICES');
    expect(pinned.argv).not.toContain('/dev/kfd');
    const all = wrapInContainer(input(), { ...ctx, runtime: 'docker', vendor: 'nvidia' });
    expect(flagValues(all.argv, '--gpus')).toEqual(['all']);
  });

  it('NVIDIA podman: one CDI device per GPU', () => {
    const w = wrapInContainer(input({ devices: ['2', '3'] }), {
      ...ctx,
      runtime: 'podman',
      vendor: 'nvidia',
    });
    expect(flagValues(w.argv, '--device')).toEqual(['nvidia.com/gpu=2', 'nvidia.com/gpu=3']);
    expect(w.argv).not.toContain('--gpus');
  });

  it.each(['docker', 'podman'] as const)(
    'AMD %s: kfd and dri, video group, no seccomp; ROCR picks host GPUs',
    (runtime) => {
      const w = wrapInContainer(input({ devices: ['2', '3'] }), { ...ctx, runtime, vendor: 'amd' });
      expect(w.argv).not.toContain('--gpus');
      expect(flagValues(w.argv, '--device')).toEqual(['/dev/kfd', '/dev/dri']);
      expect(flagValues(w.argv, '--group-add')).toEqual(['video']);
      expect(flagValues(w.argv, '--security-opt')).toEqual(['seccomp=unconfined']);
      // HIP indexes into what ROCR left visible: 0,1, not the host's 2,3.
      expect(flagValues(w.argv, '-e')).toEqual(
        expect.arrayContaining([
          'ROCR_VISIBLE_DEVICES=2,3',
          'HIP_VISIBLE_DEVICES=0,1',
          'CUDA_VISIBLE_DEVICES=0,1',
        ]),
      );
      const unpinned = wrapInContainer(input(), { ...ctx, runtime, vendor: 'amd' });
      expect(unpinned.argv.join(' ')).not.toMatch(/VISIBLE_DEVICES/);
      expect(flagValues(unpinned.argv, '--device')).toEqual(['/dev/kfd', '/dev/dri']);
    },
  );

  it('a GPU-less router gets no device flags', () => {
    for (const vendor of ['nvidia', 'amd'] as const) {
      const w = wrapInContainer(input({ gpus: 0, devices: [] }), { ...ctx, runtime: 'docker', vendor });
      expect(w.argv).not.toContain('--gpus');
      expect(w.argv).not.toContain('--device');
    }
  });

  it('the vendor comes from the catalog for the runner, else the image', () => {
    expect(gpuVendor({ runner: 'mi355x', image: 'lmsysorg/sglang:v0.5.12-cu130' })).toBe('amd');
    expect(gpuVendor({ runner: 'h100-dgxc-slurm_03', image: 'rocm/whatever' })).toBe('nvidia');
    expect(gpuVendor({ runner: 'my-box', image: 'lmsysorg/sglang:v0.5.12-rocm700-mi35x' })).toBe('amd');
    expect(gpuVendor({ runner: 'my-box', image: 'vllm/vllm-openai:v0.11.0' })).toBe('nvidia');
  });

  it('renderRecipe: an MI355X row under docker gets ROCm devices, an H200 row --gpus', async () => {
    let port = 9000;
    const opts = {
      conc: 4,
      allocatePort: () => port++,
      workDir: '/work',
      container: 'docker' as const,
      hfHome: null,
    };
    const amd = await renderRecipe(
      fixedRow({ runner: 'mi355x', image: 'lmsysorg/sglang:v0.5.12-rocm700-mi35x' }),
      {
        ...opts,
        devices: ['4', '5', '6', '7', '8', '9', '10', '11'],
      },
    );
    const amdArgv = amd.processes[0]?.argv ?? [];
    expect(flagValues(amdArgv, '--device')).toEqual(['/dev/kfd', '/dev/dri']);
    expect(amdArgv).toContain('ROCR_VISIBLE_DEVICES=4,5,6,7,8,9,10,11');
    const nv = await renderRecipe(fixedRow({ runner: 'h200', framework: 'vllm', tp: 2 }), {
      ...opts,
      devices: ['6', '7'],
    });
    expect(flagValues(nv.processes[0]?.argv ?? [], '--gpus')).toEqual(['"device=6,7"']);
  });
});

describe('GPU pinning', () => {
  it('process engines get the visibility variables of their vendor', async () => {
    let port = 9000;
    const opts = { conc: 4, allocatePort: () => port++, workDir: '/work', devices: ['2', '3'] };
    const nv = await renderRecipe(fixedRow({ runner: 'h100', framework: 'vllm', tp: 2 }), opts);
    expect(nv.processes[0]?.env).toMatchObject({ CUDA_VISIBLE_DEVICES: '2,3' });
    expect(nv.processes[0]?.argv[0]).toBe('vllm');
    const amd = await renderRecipe(fixedRow({ runner: 'mi300x', tp: 2 }), opts);
    expect(amd.processes[0]?.env).toMatchObject({
      ROCR_VISIBLE_DEVICES: '2,3',
      HIP_VISIBLE_DEVICES: '0,1',
    });
    // Unpinned (no slots, or a dry run): nothing is narrowed.
    const free = await renderRecipe(fixedRow({ runner: 'h100', framework: 'vllm', tp: 2 }), {
      ...opts,
      devices: null,
    });
    expect(JSON.stringify(free.processes[0]?.env)).not.toMatch(/VISIBLE_DEVICES/);
  });

  it('a point with several workers splits its GPUs among them in start order; the router gets none', async () => {
    let port = 9000;
    const row = multiRow([8], {
      framework: 'sglang-disagg',
      prefill: rowWorker(1, 2),
      decode: rowWorker(1, 4),
      runner: 'h200',
    });
    const launch = await renderRecipe(row, {
      conc: 8,
      allocatePort: () => port++,
      workDir: '/work',
      devices: ['0', '1', '2', '3', '4', '5'],
    });
    const byRole = Object.fromEntries(
      launch.processes.map((p) => [p.role, p.env.CUDA_VISIBLE_DEVICES ?? null]),
    );
    expect(byRole).toEqual({ prefill: '0,1', decode: '2,3,4,5', router: null });
  });

  it('assignDevices refuses to pin what the point was not given, and says so', () => {
    const r = assignDevices(
      [
        { label: 'prefill 0', gpus: 2, nodes: 1 },
        { label: 'decode 0', gpus: 4, nodes: 1 },
      ],
      ['0', '1', '2'],
    );
    expect(r.perProcess).toEqual([['0', '1'], null]);
    expect(r.warnings[0]).toMatch(/decode 0 needs 4 GPUs but only 1 of the point's 3/);
  });

  it('slots: two points of two GPUs on a four-GPU host never share one; a third waits for a release', async () => {
    const slots = new GpuSlots(['0', '1', '2', '3']);
    const a = slots.tryAcquire(2);
    const b = slots.tryAcquire(2);
    expect(a).toEqual(['0', '1']);
    expect(b).toEqual(['2', '3']);
    expect(slots.tryAcquire(1)).toBeNull();
    const c = slots.acquire(2);
    let got: string[] | null = null;
    void c.ids.then((ids) => {
      got = ids;
    });
    await new Promise((r) => setTimeout(r, 10));
    expect(got).toBeNull();
    slots.release(b as string[]);
    await new Promise((r) => setTimeout(r, 10));
    expect(got).toEqual(['2', '3']);
    slots.release(a as string[]);
    // First come, first served: a small request does not overtake a waiting big one.
    const big = slots.acquire(3);
    expect(slots.tryAcquire(1)).toBeNull();
    big.cancel();
    expect(slots.tryAcquire(1)).toEqual(['0']);
  });

  it('the host GPUs: INFX_GPUS, else the visibility list the sweep got, else the drivers', () => {
    const root = tmpDir();
    mkdirSync(join(root, 'proc/driver/nvidia/gpus/0000:01:00.0'), { recursive: true });
    mkdirSync(join(root, 'proc/driver/nvidia/gpus/0000:02:00.0'), { recursive: true });
    expect(hostGpus({}, root).ids).toEqual(['0', '1']);
    expect(hostGpus({ CUDA_VISIBLE_DEVICES: '4,5,6' }, root).ids).toEqual(['4', '5', '6']);
    expect(hostGpus({ CUDA_VISIBLE_DEVICES: '' }, root).ids).toEqual([]);
    expect(hostGpus({ INFX_GPUS: 'none', CUDA_VISIBLE_DEVICES: '4' }, root).ids).toEqual([]);
    expect(hostGpus({ INFX_GPUS: '1,3' }, root)).toEqual({ ids: ['1', '3'], source: 'INFX_GPUS' });
    const amd = tmpDir();
    for (const [node, id] of [
      ['0', '0'],
      ['1', '4660'],
      ['2', '8001'],
    ] as const) {
      mkdirSync(join(amd, 'sys/class/kfd/kfd/topology/nodes', node), { recursive: true });
      writeFileSync(join(amd, 'sys/class/kfd/kfd/topology/nodes', node, 'gpu_id'), `${id}\n`);
    }
    expect(hostGpus({}, amd).ids).toEqual(['0', '1']);
    expect(hostGpus({}, tmpDir()).ids).toEqual([]);
  });
});

describe('Hugging Face cache and token', () => {
  it('the host cache is mounted at /root/.cache/huggingface with HF_HOME set there; HF_TOKEN goes by name', () => {
    for (const runtime of ['docker', 'podman'] as const) {
      const w = wrapInContainer(input(), { ...ctx, runtime, hf: { home: '/data/hf', exists: false } });
      expect(flagValues(w.argv, '-v')).toEqual(['/data/hf:/root/.cache/huggingface', '/work:/work']);
      expect(flagValues(w.argv, '-e')).toEqual(['A=1', 'HF_TOKEN', 'HF_HOME=/root/.cache/huggingface']);
    }
  });

  it('srun mounts the cache only where it exists (a missing source fails the pyxis mount)', () => {
    const there = wrapInContainer(input(), {
      ...ctx,
      runtime: 'srun',
      hf: { home: '/data/hf', exists: true },
    });
    expect(flagValues(there.argv, '--container-mounts')).toEqual([
      '/work:/work,/data/hf:/root/.cache/huggingface',
    ]);
    expect(there.env.HF_HOME).toBe('/root/.cache/huggingface');
    expect(flagValues(there.argv, '--container-env')).toEqual(['A,HF_HOME']);
    const absent = wrapInContainer(input(), {
      ...ctx,
      runtime: 'srun',
      hf: { home: '/data/hf', exists: false },
    });
    expect(flagValues(absent.argv, '--container-mounts')).toEqual(['/work:/work']);
  });

  it('Slurm parity: the job script carries no token (sbatch exports the environment) and no local GPU slots', () => {
    const { points } = planPoints([fixedRow({ runner: 'h200', tp: 4 })], {
      runId: 'r1',
      canary: false,
      bench: { ...REFERENCE_BENCH, requestTimeoutS: 60 },
      engine: {
        kind: 'recipe',
        container: 'srun',
        simTimeScale: null,
        readyTimeoutS: 60,
        acceptance: 'golden',
      },
      faults: [],
    });
    const before = process.env.HF_TOKEN;
    process.env.HF_TOKEN = SECRET;
    try {
      const script = pointJobScript(
        {
          spec: points[0] as PointSpec,
          attempt: 1,
          dir: '/runs/r1/p/attempt-1',
          specFile: '/runs/r1/p/spec.json',
        },
        { runId: 'r1', runDir: '/runs/r1', gpuRequest: 'gres', gpusPerNode: 8, args: [], timeLimitMin: 60 },
      );
      expect(script).toContain('#SBATCH --gres=gpu:4');
      expect(script).not.toContain(SECRET);
      expect(script).not.toContain('INFX_POINT_GPUS');
    } finally {
      if (before === undefined) delete process.env.HF_TOKEN;
      else process.env.HF_TOKEN = before;
    }
  });

  it('HF_HOME wins, else ~/.cache/huggingface', () => {
    expect(hostHfHome({ HF_HOME: '/models/hf', HOME: '/home/u' })).toBe('/models/hf');
    expect(hostHfHome({ HOME: '/home/u' })).toBe('/home/u/.cache/huggingface');
  });
});

describe('pre-flight', () => {
  const plan = (over: Partial<PreflightPlan> = {}): PreflightPlan => ({
    binaries: [{ name: 'docker', why: '--container docker' }],
    daemons: ['docker'],
    images: [{ runtime: 'docker', image: 'vllm/vllm-openai:v0.11.0' }],
    hfHome: null,
    ...over,
  });

  it('all clear when the runtime answers and the image is there; creates the HF cache', async () => {
    const fake = fakeRuntime();
    const hf = join(tmpDir(), 'hf');
    expect(await runPreflight(plan({ hfHome: hf }), { env: { PATH: pathWith(fake.bin) } })).toEqual([]);
    expect(fake.calls()).toEqual(['docker info', 'docker image inspect vllm/vllm-openai:v0.11.0']);
    expect(statSync(hf).isDirectory()).toBe(true);
  });

  it('a missing engine binary or runtime is named, with how to get it', async () => {
    const empty = tmpDir();
    const problems = await runPreflight(
      plan({
        binaries: [
          { name: 'vllm', why: 'the vllm server (recipes/vllm.sh)' },
          { name: 'docker', why: '--container docker' },
        ],
      }),
      { env: { PATH: empty } },
    );
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(
      /^vllm is not on PATH \(the vllm server \(recipes\/vllm\.sh\)\): install the engine/,
    );
    expect(problems[1]).toMatch(/^docker is not on PATH.*install Docker.*--container none/);
  });

  it('a daemon that is down: its error, how to start it, and no image asked about', async () => {
    const fake = fakeRuntime({
      info: 'echo "Cannot connect to the Docker daemon at unix:///var/run/docker.sock." >&2; exit 1',
    });
    const problems = await runPreflight(plan(), { env: { PATH: pathWith(fake.bin) } });
    expect(problems).toEqual([
      expect.stringMatching(
        /^the Docker daemon is not reachable: `docker info` failed \(exit 1\): Cannot connect to the Docker daemon.*systemctl start docker/,
      ),
    ]);
    expect(fake.calls()).toEqual(['docker info']);
  });

  it('a daemon that hangs is given up on after the timeout', async () => {
    const fake = fakeRuntime({ info: 'sleep 5' });
    const t0 = Date.now();
    const problems = await runPreflight(plan(), { env: { PATH: pathWith(fake.bin) }, timeoutMs: 300 });
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(problems[0]).toMatch(/`docker info` did not answer within 300 ms/);
  });

  it('an image not pulled: which one and the pull command', async () => {
    const fake = fakeRuntime({ inspect: 'echo "Error: No such image" >&2; exit 1' });
    const problems = await runPreflight(
      plan({
        binaries: [{ name: 'podman', why: '--container podman' }],
        daemons: ['podman'],
        images: [{ runtime: 'podman', image: 'lmsysorg/sglang:v0.5.12-rocm700-mi35x' }],
      }),
      { env: { PATH: pathWith(fake.bin) } },
    );
    expect(problems).toEqual([
      'image lmsysorg/sglang:v0.5.12-rocm700-mi35x is not on this host (`podman image inspect` failed): pull it first: podman pull lmsysorg/sglang:v0.5.12-rocm700-mi35x',
    ]);
  });
});

describe('infx sweep --engine recipe', () => {
  const demo = [
    'sweep',
    '--config-files',
    DEMO,
    '--runner-config',
    RUNNERS,
    '--engine',
    'recipe',
    '--max-conc',
    '1',
  ];

  it('--dry-run works with the default relative --out, and lists the pre-flight checks it skipped', async () => {
    const cwd = tmpDir();
    const r = await infx([...demo, '--container', 'docker', '--dry-run'], { HF_HOME: '/data/hf' }, cwd);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('cannot render');
    const work = join(cwd, 'runs');
    expect(r.stdout).toContain(`-v ${work}/`);
    expect(r.stdout).toMatch(/--gpus all -e HF_TOKEN -v \/data\/hf:\/root\/\.cache\/huggingface/);
    expect(r.stderr).toContain('pre-flight (skipped in a dry run) would check:');
    expect(r.stderr).toContain('image vllm/vllm-openai:v0.11.0 present (docker image inspect)');
    // A dry run writes nothing.
    expect(readdirSync(cwd)).toEqual([]);
  });

  it.skipIf(onPath('vllm', { PATH: pathWith('/nonexistent') }) !== null)(
    'a process engine that is not installed stops the sweep before any point (exit 1)',
    async () => {
      const out = tmpDir();
      const fake = fakeRuntime();
      const r = await infx(
        [...demo, '--config-keys', 'llama70b-fp8-h100-vllm', '--out', out, '--run-id', 'nobin'],
        { PATH: pathWith(fake.bin) },
      );
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/pre-flight check failed, no point was started:\n {2}- vllm is not on PATH/);
      expect(r.stderr).toContain(`infx sweep retry ${join(out, 'nobin')}`);
      const points = join(out, 'nobin', 'points');
      const attempts = existsSync(points)
        ? readdirSync(points).flatMap((p) =>
            readdirSync(join(points, p)).filter((f) => f.startsWith('attempt-')),
          )
        : [];
      expect(attempts).toEqual([]);
    },
  );

  it('a Docker daemon that is down stops the sweep before any point', async () => {
    const out = tmpDir();
    const fake = fakeRuntime({ info: 'echo "Cannot connect to the Docker daemon" >&2; exit 1' });
    const r = await infx([...demo, '--container', 'docker', '--out', out, '--run-id', 'down'], {
      PATH: pathWith(fake.bin),
    });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('the Docker daemon is not reachable');
    expect(fake.calls().some((c) => c.startsWith('docker run'))).toBe(false);
  });

  it('points on two GPU slots each get their own GPUs; the cache is mounted and HF_TOKEN never written out', async () => {
    const out = tmpDir();
    const hf = join(tmpDir(), 'hf-home');
    // `docker run` records its argv and whether the token reached it, stays up a moment, then fails.
    const fake = fakeRuntime({
      run: `echo "token:\${HF_TOKEN:+set}" >> "\${0%/*}/runs.log"; sleep 1; exit 3`,
    });
    const r = await infx(
      [
        ...demo,
        '--container',
        'docker',
        '--parallel',
        '2',
        '--out',
        out,
        '--run-id',
        'pinned',
        '--ready-timeout',
        '20',
      ],
      { PATH: pathWith(fake.bin), INFX_GPUS: '0,1,2,3', HF_TOKEN: SECRET, HF_HOME: hf },
    );
    // Every point fails (the fake engine exits), after it was started.
    expect(r.code, r.stderr).toBe(1);
    expect(statSync(hf).isDirectory()).toBe(true);
    const runs = fake.calls().filter((c) => c.startsWith('docker run'));
    expect(runs).toHaveLength(3);
    const devicesOf = (call: string) => (/--gpus "device=([^"]+)"/.exec(call)?.[1] ?? '').split(',');
    for (const call of runs) {
      expect(call).toContain(' -e HF_TOKEN ');
      expect(call).toContain(`-v ${hf}:/root/.cache/huggingface -e HF_HOME=/root/.cache/huggingface`);
    }
    expect(readFileSync(join(fake.bin, 'runs.log'), 'utf8').trim().split('\n')).toEqual([
      'token:set',
      'token:set',
      'token:set',
    ]);
    // The run directory records each point's GPUs; the two tp2 points ran side by side on disjoint ones.
    const manifest = JSON.parse(readFileSync(join(out, 'pinned', 'manifest.json'), 'utf8')) as {
      points: { pointId: string; gpus: { total: number } }[];
    };
    const given = manifest.points.map((p) => {
      const point = JSON.parse(
        readFileSync(join(out, 'pinned', 'points', p.pointId, 'attempt-1', 'point.json'), 'utf8'),
      );
      const argv: string[] = point.launch.processes[0].argv;
      const ids = (flagValues(argv, '--gpus')[0] ?? '').replace(/^"device=|"$/g, '').split(',');
      expect(ids).toHaveLength(p.gpus.total);
      expect(runs.map(devicesOf)).toContainEqual(ids);
      const log = readFileSync(join(out, 'pinned', 'points', p.pointId, 'attempt-1', 'infx.log'), 'utf8');
      expect(log).toContain(`GPUs ${ids.join(',')} (of 0,1,2,3) for this point`);
      return ids;
    });
    const [first, second] = given as [string[], string[]];
    expect(first.filter((id) => second.includes(id))).toEqual([]);
    // The token's value is nowhere in what the sweep wrote.
    const files: string[] = [];
    const walk = (d: string) => {
      for (const e of readdirSync(d, { withFileTypes: true }))
        e.isDirectory() ? walk(join(d, e.name)) : files.push(join(d, e.name));
    };
    walk(out);
    expect(files.length).toBeGreaterThan(5);
    for (const f of files) expect(readFileSync(f, 'utf8'), f).not.toContain(SECRET);
    expect(r.stdout + r.stderr).not.toContain(SECRET);
  }, 60_000);
});
