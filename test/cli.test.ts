import { describe, expect, it } from 'vitest';
import { FIXTURES_SKIP_REASON, fixture, fixturesAvailable, runCli, tmpDir, writeYaml } from './helpers.ts';

const dir = tmpDir();
const runners = writeYaml(dir, 'runners.yaml', { labels: { mi300x: ['mi300x-amd_0'] } });
const master = writeYaml(dir, 'master.yaml', {
  'dsr1-fp8-mi300x-sglang': {
    image: 'img',
    model: 'm',
    'model-prefix': 'dsr1',
    precision: 'fp8',
    framework: 'sglang',
    runner: 'mi300x',
    multinode: false,
    scenarios: {
      'fixed-seq-len': [
        { isl: 1024, osl: 1024, 'search-space': [{ tp: 8, 'conc-start': 4, 'conc-end': 64 }] },
      ],
    },
  },
});
const sweep = ['matrix', 'full-sweep', '--config-files', master, '--runner-config', runners];

describe('command line', () => {
  it.each([
    [[]],
    [['validate']],
    [['matrix']],
    [['matrix', 'full-sweep']],
    [['matrix', 'test-config']],
    [['matrix', 'plan']],
    [['matrix', 'priority']],
    [['schema']],
    [['demo']],
  ])('%j --help prints usage and exits 0', async (cmd) => {
    const out = await runCli([...cmd, '--help']);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^Usage: infx/);
  });

  it.each([
    [
      '--no-evals with --all-evals',
      [...sweep, '--no-evals', '--all-evals'],
      '--all-evals cannot be combined with --no-evals',
    ],
    [
      '--no-evals with --evals-only',
      [...sweep, '--no-evals', '--evals-only'],
      'not allowed with argument --no-evals',
    ],
    ['step size 1', [...sweep, '--step-size', '1'], '--step-size must be greater than 1'],
    ['min > max', [...sweep, '--min-conc', '16', '--max-conc', '8'], 'less than or equal to --max-conc'],
    ['a non-integer', [...sweep, '--max-conc', 'ten'], "invalid int value: 'ten'"],
    ['an unknown option', [...sweep, '--frobnicate'], "unknown option '--frobnicate'"],
    ['a bad choice', [...sweep, '--seq-lens', '2k1k'], 'Allowed choices are 1k1k, 8k1k'],
    [
      'missing --config-files',
      ['matrix', 'full-sweep'],
      "required option '--config-files <files...>' not specified",
    ],
    ['an unknown command', ['frobnicate'], "unknown command 'frobnicate'"],
  ])('usage error (%s) exits 2 with a message', async (_name, argv, message) => {
    const out = await runCli(argv);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain(message);
    expect(out.stdout).toBe('');
  });

  it('an unknown config key or runner type exits 1', async () => {
    const key = await runCli([
      'matrix',
      'test-config',
      '--config-files',
      master,
      '--runner-config',
      runners,
      '--config-keys',
      'nope',
    ]);
    expect(key.code).toBe(1);
    expect(key.stderr).toContain('Config key(s) not found: nope.\nAvailable keys: dsr1-fp8-mi300x-sglang');
    const rt = await runCli([...sweep, '--runner-type', 'b200']);
    expect(rt.code).toBe(1);
    expect(rt.stderr).toContain("Invalid runner type(s): {'b200'}. Valid runner types are: mi300x");
  });

  it('infx schema lists and exports JSON Schemas', async () => {
    const list = await runCli(['schema']);
    expect(list.stdout).toContain('master-config');
    for (const name of [
      'master-config',
      'master-entry',
      'runners',
      'ci-priority',
      'changelog-entry',
      'matrix-row',
      'matrix',
      'sweep-plan',
      'eval-results',
      'eval-sample',
      'eval-response',
      'eval-thresholds',
      'eval-validate-report',
      'diagnostic',
    ]) {
      const out = await runCli(['schema', name]);
      expect(out.code).toBe(0);
      const schema = JSON.parse(out.stdout) as Record<string, unknown>;
      expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    }
    const entry = JSON.stringify(JSON.parse((await runCli(['schema', 'master-entry'])).stdout));
    for (const key of ['scenarios', 'conc-list', 'kv-offload-backend', 'additional-settings'])
      expect(entry).toContain(`"${key}"`);
    expect((await runCli(['schema', 'nope'])).code).toBe(2);
  });

  it('infx validate prints a per-key summary', async () => {
    const out = await runCli(['validate', '--config-files', master, '--runner-config', runners]);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/dsr1-fp8-mi300x-sglang\s+single-node\s+mi300x\s+1k1k\s+5\s+5\s+8\s+40/);
    expect(out.stdout).toContain('1 config keys, 5 jobs, 5 points, 40 GPU-points');
    const json = await runCli([
      'validate',
      '--config-files',
      master,
      '--runner-config',
      runners,
      '--format',
      'json',
    ]);
    expect(JSON.parse(json.stdout)).toMatchObject({
      valid: true,
      summary: { jobs: 5, points: 5, gpuPoints: 40 },
    });
  });

  it('infx validate exits 1 with every diagnostic', async () => {
    const bad = writeYaml(dir, 'bad.yaml', {
      a: {
        image: 'i',
        model: 'm',
        'model-prefix': 'a',
        precision: 'fp8',
        framework: 'f',
        runner: 'mi300x',
        multinode: false,
        scenarios: {},
      },
      b: {
        image: 'i',
        model: 'm',
        'model-prefix': 'b',
        precision: 'fp8',
        runner: 'mi300x',
        multinode: false,
        scenarios: { 'fixed-seq-len': [{ isl: 1, osl: 1, 'search-space': [{ tp: 8 }] }] },
      },
    });
    const out = await runCli(['validate', '--config-files', bad, '--runner-config', runners]);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain('[scenarios.none] a.scenarios:');
    expect(out.stderr).toContain("[key.required] b.framework: required key 'framework' is missing");
    expect(out.stderr).toContain('[conc.neither] b.scenarios.fixed-seq-len[0].search-space[0]:');
    expect(out.stderr).toMatch(/error: 3 errors, 0 warnings: fix the errors above/);
  });

  it('warns about runners that are not labels and model prefixes with underscores', async () => {
    const odd = writeYaml(dir, 'odd.yaml', {
      'my_model-fp8-x': {
        image: 'i',
        model: 'm',
        'model-prefix': 'my_model',
        precision: 'fp8',
        framework: 'f',
        runner: 'b300-elsewhere',
        multinode: false,
        scenarios: {
          'fixed-seq-len': [{ isl: 1024, osl: 1024, 'search-space': [{ tp: 8, 'conc-list': [4] }] }],
        },
      },
    });
    const out = await runCli(['validate', '--config-files', odd, '--runner-config', runners]);
    expect(out.code).toBe(0);
    expect(out.stderr).toContain('warning [runner.unknown-label]');
    expect(out.stderr).toContain('warning [naming.model-prefix-underscore]');
  });
});

describe.skipIf(!fixturesAvailable)(
  `infx validate on the reference configs${fixturesAvailable ? '' : ` (${FIXTURES_SKIP_REASON})`}`,
  () => {
    it('passes and summarises both master configs', async () => {
      const out = await runCli([
        'validate',
        '--config-files',
        fixture('configs/amd-master.yaml'),
        fixture('configs/nvidia-master.yaml'),
        '--runner-config',
        fixture('configs/runners.yaml'),
      ]);
      expect(out.code).toBe(0);
      expect(out.stdout).toContain('208 config keys, 1820 jobs');
      expect(out.stderr).toContain('ok: 2 files valid');
      expect(out.stderr).not.toMatch(/\berror\b/);
    });
  },
);
