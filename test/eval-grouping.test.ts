import { describe, expect, it } from 'vitest';
import { parallelismKey } from '../src/matrix/evals.ts';
import { FIXTURES_SKIP_REASON, fixture, fixturesAvailable, runCli, tmpDir, writeYaml } from './helpers.ts';

/**
 * `--eval-grouping topology`: the reference groups single-node agentic evals by (model, runner, framework,
 * precision) only, so two topologies of one config collapse and one silently loses its eval; the
 * topology grouping gives every curve its own. `reference` (the default) keeps golden parity.
 */

const dir = tmpDir();
const runners = writeYaml(dir, 'runners.yaml', {
  labels: { 'cluster:b300-nv': ['b300-nv_0'], h100: ['h100_0'] },
  hardware: { 'cluster:b300-nv': { 'available-cpu-dram-mib': 2964436, 'gpus-per-node': 8 } },
});
const master = writeYaml(dir, 'master.yaml', {
  'q-fp4-b300-vllm-agentic': {
    image: 'img',
    model: 'm',
    'model-prefix': 'q',
    precision: 'fp4',
    framework: 'vllm',
    runner: 'cluster:b300-nv',
    multinode: false,
    scenarios: {
      'agentic-coding': [
        {
          'search-space': [
            { tp: 4, 'kv-offloading': 'none', 'conc-list': [16, 64] },
            { tp: 8, 'kv-offloading': 'none', 'conc-list': [8, 32] },
          ],
        },
      ],
    },
  },
  'q-fp8-h100-vllm': {
    image: 'img',
    model: 'm',
    'model-prefix': 'q',
    precision: 'fp8',
    framework: 'vllm',
    runner: 'h100',
    multinode: false,
    scenarios: {
      'fixed-seq-len': [
        {
          isl: 8192,
          osl: 1024,
          'search-space': [
            { tp: 4, 'conc-list': [16, 32, 64, 128] },
            { tp: 8, 'conc-list': [8, 64, 256] },
          ],
        },
      ],
    },
  },
});

async function evalRows(grouping: string) {
  const out = await runCli([
    'matrix',
    'full-sweep',
    '--config-files',
    master,
    '--runner-config',
    runners,
    '--evals-only',
    '--eval-grouping',
    grouping,
  ]);
  expect(out.code).toBe(0);
  return (JSON.parse(out.stdout) as Record<string, unknown>[]).map(
    (r) => `${String(r.precision)} tp${String(r.tp)}@${String(r.conc)}`,
  );
}

describe('eval grouping', () => {
  it('reference: one agentic eval per config, fixed targets shared across TPs', async () => {
    expect(await evalRows('reference')).toEqual(['fp4 tp4@64', 'fp8 tp4@64', 'fp8 tp8@64', 'fp8 tp8@256']);
  });

  it('topology: every curve gets its own eval', async () => {
    expect(await evalRows('topology')).toEqual([
      'fp4 tp4@64',
      'fp4 tp8@32',
      'fp8 tp4@64',
      'fp8 tp4@128',
      'fp8 tp8@256',
    ]);
  });

  it('rejects an unknown grouping as a usage error', async () => {
    const out = await runCli([
      'matrix',
      'full-sweep',
      '--config-files',
      master,
      '--runner-config',
      runners,
      '--eval-grouping',
      'x',
    ]);
    expect(out.code).toBe(2);
  });
});

describe.skipIf(!fixturesAvailable)(
  `eval grouping on the reference configs${fixturesAvailable ? '' : ` (${FIXTURES_SKIP_REASON})`}`,
  () => {
    const args = (extra: string[]) => [
      'matrix',
      'full-sweep',
      '--config-files',
      fixture('configs/amd-master.yaml'),
      fixture('configs/nvidia-master.yaml'),
      '--runner-config',
      fixture('configs/runners.yaml'),
      '--scenario-type',
      'agentic-coding',
      '--single-node',
      ...extra,
    ];
    const rows = async (extra: string[]) =>
      JSON.parse((await runCli(args(extra))).stdout) as Record<string, unknown>[];

    it('topology gives exactly one eval to every single-node agentic curve; reference leaves some without', async () => {
      const curves = new Set((await rows(['--no-evals'])).map((r) => parallelismKey(r)));
      const key = (r: Record<string, unknown>) => {
        const { 'eval-only': _e, 'run-eval': _r, ...rest } = r;
        return parallelismKey(rest);
      };
      const topology = (await rows(['--evals-only', '--eval-grouping', 'topology'])).map(key);
      expect(new Set(topology)).toEqual(curves);
      expect(topology).toHaveLength(curves.size);
      const reference = new Set((await rows(['--evals-only'])).map(key));
      expect(reference.size).toBeLessThan(curves.size);
    });
  },
);
