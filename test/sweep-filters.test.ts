import { describe, expect, it } from 'vitest';
import { runCli, tmpDir, writeYaml } from './helpers.ts';

/**
 * No silent flags: every filter `infx sweep` takes is applied, alone and combined, with and without
 * --config-keys, or refused with exit 2; a filter value that matches nothing warns with the closest values.
 * Planning only (--dry-run): no engine starts.
 */

const dir = tmpDir('infx-sweep-filters-');
const MODEL = 'meta-llama/Llama-3.1-8B-Instruct';
const single = (prefix: string, runner: string, precision: string, framework: string, fixed: unknown[]) => ({
  image: 'img:1',
  model: MODEL,
  'model-prefix': prefix,
  runner,
  precision,
  framework,
  multinode: false,
  scenarios: { 'fixed-seq-len': fixed },
});
const worker = (tp: number) => ({ 'num-worker': 1, tp, ep: 1, 'dp-attn': false });

const CONFIGS = writeYaml(dir, 'master.yaml', {
  'alpha-bf16-h100-vllm': single('alpha', 'h100', 'bf16', 'vllm', [
    {
      isl: 1024,
      osl: 1024,
      'search-space': [
        { tp: 1, 'conc-start': 1, 'conc-end': 16 },
        { tp: 2, ep: 2, 'conc-list': [4, 8, 32] },
      ],
    },
  ]),
  'beta-fp8-h200-sglang': single('beta', 'h200', 'fp8', 'sglang', [
    { isl: 1024, osl: 1024, 'search-space': [{ tp: 4, ep: 4, 'conc-start': 4, 'conc-end': 32 }] },
    { isl: 8192, osl: 1024, 'search-space': [{ tp: 1, 'conc-list': [2, 64] }] },
  ]),
  'gamma-fp8-h100-dynamo-sglang': {
    ...single('gamma', 'h100', 'fp8', 'dynamo-sglang', [
      {
        isl: 1024,
        osl: 1024,
        'search-space': [{ 'conc-list': [16, 64], prefill: worker(4), decode: worker(8) }],
      },
    ]),
    multinode: true,
    disagg: true,
    'kv-p2p-transfer': 'nixl',
  },
});
const RUNNERS = writeYaml(dir, 'runners.yaml', {
  labels: { h100: ['h100-a_0', 'h100-b_0'], h200: ['h200-a_0'] },
  hardware: {
    h100: { 'available-cpu-dram-mib': 2_000_000, 'gpus-per-node': 8 },
    h200: { 'available-cpu-dram-mib': 2_000_000, 'gpus-per-node': 8 },
  },
});
const SOURCE = ['--config-files', CONFIGS, '--runner-config', RUNNERS];

/** A point id in short: `alpha 1k1k tp2 ep2 c8`, `gamma 1k1k multi c16`, with `@node` when not a label. */
function short(id: string): string {
  const [prefix, seq] = id.split('_');
  const tail = /_conc(\d+)_(.+)$/.exec(id);
  const topo = /_tp(\d+)-pp\d+-dcp\d+-pcp\d+-ep(\d+)-dpa/.exec(id);
  const where = tail?.[2]?.includes('_') ? ` @${tail[2]}` : '';
  return `${prefix} ${seq} ${topo ? `tp${topo[1]} ep${topo[2]}` : 'multi'} c${tail?.[1]}${where}`;
}

async function plan(args: string[]) {
  const r = await runCli(['sweep', ...SOURCE, '--out', dir, '--dry-run', ...args]);
  const points = [...r.stdout.matchAll(/^\d+\. (\S+)$/gm)].map((m) => short(m[1]!));
  return { ...r, points };
}

const pts = (head: string, concs: number[], where = '') => concs.map((c) => `${head} c${c}${where}`);
const A1 = (c: number[], w = '') => pts('alpha 1k1k tp1 ep1', c, w);
const A2 = (c: number[], ep = 2, w = '') => pts(`alpha 1k1k tp2 ep${ep}`, c, w);
const B4 = (c: number[], ep = 4) => pts(`beta 1k1k tp4 ep${ep}`, c);
const B8 = (c: number[]) => pts('beta 8k1k tp1 ep1', c);
const G = (c: number[], w = '') => pts('gamma 1k1k multi', c, w);
const ALL_A = [...A1([1, 2, 4, 8, 16]), ...A2([4, 8, 32])];
const ALL_B = [...B4([4, 8, 16, 32]), ...B8([2, 64])];
const ALL_G = G([16, 64]);

/** Each filter alone and in pairs: the same points with and without --config-keys (all three configs). */
const FILTER_CASES: Array<[string, string[], string[]]> = [
  ['no filter', [], [...ALL_A, ...ALL_B, ...ALL_G]],
  ['--model-prefix', ['--model-prefix', 'beta'], ALL_B],
  ['--model-prefix, two values', ['--model-prefix', 'al', 'be'], [...ALL_A, ...ALL_B]],
  ['--precision', ['--precision', 'fp8'], [...ALL_B, ...ALL_G]],
  ['--framework', ['--framework', 'vllm', 'dynamo-sglang'], [...ALL_A, ...ALL_G]],
  ['--runner-type', ['--runner-type', 'h200'], ALL_B],
  [
    '--runner-node-filter',
    ['--runner-node-filter', 'b'],
    [...A1([1, 2, 4, 8, 16], ' @h100-b_0'), ...A2([4, 8, 32], 2, ' @h100-b_0'), ...G([16, 64], ' @h100-b_0')],
  ],
  ['--seq-lens', ['--seq-lens', '8k1k'], B8([2, 64])],
  ['--scenario-type', ['--scenario-type', 'fixed-seq-len'], [...ALL_A, ...ALL_B, ...ALL_G]],
  ['--single-node', ['--single-node'], [...ALL_A, ...ALL_B]],
  ['--multi-node', ['--multi-node'], ALL_G],
  ['--single-node --multi-node', ['--single-node', '--multi-node'], [...ALL_A, ...ALL_B, ...ALL_G]],
  ['--max-tp', ['--max-tp', '2'], [...ALL_A, ...B8([2, 64]), ...ALL_G]],
  [
    '--max-ep (clamps)',
    ['--max-ep', '2'],
    [...A1([1, 2, 4, 8, 16]), ...A2([4, 8, 32]), ...B4([4, 8, 16, 32], 2), ...B8([2, 64]), ...ALL_G],
  ],
  // Single-node ranges are clamped, lists filtered; multi-node lists filtered (the reference's rules).
  [
    '--min-conc',
    ['--min-conc', '8'],
    [...A1([8, 16]), ...A2([8, 32]), ...B4([8, 16, 32]), ...B8([64]), ...ALL_G],
  ],
  // An emptied list falls back to [max-conc] (the reference's rule): beta 8k1k keeps 2, gamma gets 8.
  [
    '--max-conc',
    ['--max-conc', '8'],
    [...A1([1, 2, 4, 8]), ...A2([4, 8]), ...B4([4, 8]), ...B8([2]), ...G([8])],
  ],
  [
    '--step-size',
    ['--step-size', '4'],
    [...A1([1, 4, 16]), ...A2([4, 8, 32]), ...B4([4, 16, 32]), ...B8([2, 64]), ...ALL_G],
  ],
  ['--conc', ['--conc', '8'], [...A1([8]), ...A2([8]), ...B4([8])]],
  [
    '--conc, two values',
    ['--conc', '4', '64'],
    [...A1([4]), ...A2([4]), ...B4([4]), ...B8([64]), ...G([64])],
  ],
  [
    '--min-conc --max-conc',
    ['--min-conc', '4', '--max-conc', '16'],
    [...A1([4, 8, 16]), ...A2([4, 8]), ...B4([4, 8, 16]), ...B8([16]), ...G([16])],
  ],
  ['--conc --max-conc', ['--conc', '4', '--max-conc', '8'], [...A1([4]), ...A2([4]), ...B4([4])]],
  ['--conc --min-conc', ['--conc', '16', '--min-conc', '8'], [...A1([16]), ...B4([16]), ...G([16])]],
  [
    '--conc at the --max-conc fallback',
    ['--conc', '8', '--max-conc', '8'],
    [...A1([8]), ...A2([8]), ...B4([8]), ...G([8])],
  ],
  ['--max-tp --precision', ['--max-tp', '1', '--precision', 'fp8'], [...B8([2, 64]), ...ALL_G]],
  [
    '--model-prefix --seq-lens --max-conc',
    ['--model-prefix', 'beta', '--seq-lens', '1k1k', '--max-conc', '16'],
    B4([4, 8, 16]),
  ],
  ['--multi-node --conc', ['--multi-node', '--conc', '64'], G([64])],
];

describe('infx sweep applies every filter', () => {
  it.each(FILTER_CASES)('%s', async (_name, args, expected) => {
    const plain = await plan(args);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.points).toEqual(expected);
    const keyed = await plan(['--config-keys', '*', ...args]);
    expect(keyed.code, keyed.stderr).toBe(0);
    expect(keyed.points).toEqual(expected);
  });

  it.each<[string, string[], string[]]>([
    [
      '--max-tp with one key',
      ['--config-keys', 'alpha-bf16-h100-vllm', '--max-tp', '1'],
      A1([1, 2, 4, 8, 16]),
    ],
    ['--conc with a glob', ['--config-keys', 'beta*', '--conc', '4', '64'], [...B4([4]), ...B8([64])]],
    ['--framework narrows the keys', ['--config-keys', '*-fp8-*', '--framework', 'sglang'], ALL_B],
    [
      '--min-conc --max-conc with a key',
      ['--config-keys', 'alpha*', '--min-conc', '8', '--max-conc', '16'],
      [...A1([8, 16]), ...A2([8])],
    ],
    [
      '--step-size with a key',
      ['--config-keys', 'beta-fp8-h200-sglang', '--step-size', '8'],
      [...B4([4, 32]), ...B8([2, 64])],
    ],
    [
      '--max-ep with a key',
      ['--config-keys', 'beta*', '--max-ep', '1', '--seq-lens', '1k1k'],
      B4([4, 8, 16, 32], 1),
    ],
  ])('with --config-keys: %s', async (_name, args, expected) => {
    const r = await plan(args);
    expect(r.code, r.stderr).toBe(0);
    expect(r.points).toEqual(expected);
  });

  it('says when --max-tp and --max-ep leave multi-node rows as they are', async () => {
    const r = await plan(['--max-tp', '2', '--max-ep', '1']);
    expect(r.stderr).toContain(
      'warning: --max-tp applies to single-node fixed-seq-len points only: 1 multi-node or agentic row(s) are kept as they are',
    );
    expect(r.stderr).toContain('warning: --max-ep applies to single-node fixed-seq-len points only');
    expect((await plan(['--max-tp', '2', '--single-node'])).stderr).not.toContain('applies to single-node');
  });

  it('warns when the --config-keys configs all fail the other filters, and plans nothing', async () => {
    const r = await plan(['--config-keys', 'alpha-bf16-h100-vllm', '--precision', 'fp8']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('warning: the --config-keys configs all fail the other config filters');
    expect(r.stderr).toContain('the selection produced no matrix rows');
    const multi = await plan(['--config-keys', 'gamma*', '--single-node']);
    expect(multi.code).toBe(1);
    expect(multi.points).toEqual([]);
  });
});

describe('infx sweep refuses what it cannot apply (exit 2)', () => {
  it.each<[string, string[], string]>([
    [
      '--min-conc above --max-conc',
      ['--min-conc', '16', '--max-conc', '8'],
      '--min-conc must be less than or equal to --max-conc',
    ],
    [
      '--conc above --max-conc',
      ['--conc', '4', '16', '--max-conc', '8'],
      '--conc 16 is above --max-conc 8, so no point can have it',
    ],
    ['--conc below --min-conc', ['--conc', '2', '--min-conc', '4'], '--conc 2 is below --min-conc 4'],
    ['--step-size 1', ['--step-size', '1'], '--step-size must be greater than 1'],
  ])('%s', async (_name, args, message) => {
    for (const keys of [[], ['--config-keys', '*']]) {
      const r = await plan([...keys, ...args]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(message);
      expect(r.points).toEqual([]);
    }
  });

  it('refuses config filters with --matrix, naming each flag', async () => {
    const matrix = writeYaml(dir, 'rows.json', '[]');
    const base = ['sweep', '--matrix', matrix, '--out', dir, '--dry-run'];
    const one = await runCli([...base, '--precision', 'fp8']);
    expect(one.code).toBe(2);
    expect(one.stderr).toContain(`--precision selects rows from master configs, but --matrix ${matrix}`);
    const many = await runCli([
      ...base,
      '--config-keys',
      'x',
      '--conc',
      '4',
      '--max-tp',
      '2',
      '--runner-config',
      RUNNERS,
    ]);
    expect(many.code).toBe(2);
    expect(many.stderr).toMatch(
      /error: (?=.*--config-keys)(?=.*--conc)(?=.*--max-tp)(?=.*--runner-config).* select rows/,
    );
    // --step-size has a default: only an explicit one is refused.
    expect((await runCli([...base, '--step-size', '4'])).stderr).toContain('--step-size selects rows');
  });

  it('refuses flags --resume would ignore, before looking for the run', async () => {
    const r = await runCli(['sweep', '--resume', 'nope', '--out', dir, '--max-tp', '2', '--dry-run']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--max-tp, --dry-run would be ignored');
    // How points run is recorded with the run too: a new time scale or client setting would be ignored.
    const how = await runCli([
      'sweep',
      '--resume',
      'nope',
      '--out',
      dir,
      '--sim-time-scale',
      '20',
      '--parallel',
      '2',
    ]);
    expect(how.code).toBe(2);
    expect(how.stderr).toContain('--parallel, --sim-time-scale would be ignored');
    // --out and --retries apply: the error is then about the missing run.
    const plain = await runCli(['sweep', '--resume', 'nope', '--out', dir, '--retries', '1']);
    expect(plain.code).toBe(2);
    expect(plain.stderr).toContain('no run nope');
  });

  it('infx matrix test-config has no full-sweep filters: an unknown option, exit 2', async () => {
    const r = await runCli(['matrix', 'test-config', ...SOURCE, '--config-keys', '*', '--max-tp', '2']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown option '--max-tp'");
  });
});

describe('did you mean', () => {
  it.each<[string, string[], string]>([
    ['--precision', ['--precision', 'fp9'], '--precision fp9 matches no config; did you mean fp8?'],
    [
      '--model-prefix (a swap)',
      ['--model-prefix', 'alpah'],
      '--model-prefix alpah matches no config key; did you mean alpha?',
    ],
    ['--framework', ['--framework', 'sglnag'], '--framework sglnag matches no config; did you mean sglang?'],
    [
      '--runner-node-filter',
      ['--runner-node-filter', 'h300'],
      '--runner-node-filter h300 matches no runner node; did you mean h100 or h200?',
    ],
    [
      '--conc',
      ['--conc', '3'],
      '--conc 3 matches no concurrency of the selected configs; did you mean 2 or 4?',
    ],
    [
      '--max-tp',
      ['--single-node', '--max-tp', '0'],
      '--max-tp 0 drops every single-node point (the smallest tp is 1)',
    ],
    [
      'filters that match apart but not together',
      ['--model-prefix', 'alpha', '--seq-lens', '8k1k'],
      'the selected configs have no point that passes all the filters together: no rows; loosen one',
    ],
    [
      '--scenario-type',
      ['--scenario-type', 'agentic-coding'],
      '--scenario-type agentic-coding matches no config (the configs have fixed-seq-len)',
    ],
    [
      'no close value',
      ['--precision', 'int4'],
      '--precision int4 matches no config (the configs have bf16, fp8)',
    ],
  ])('%s: a warning, and exit 1 when nothing is left', async (_name, args, warning) => {
    for (const keys of [[], ['--config-keys', '*']]) {
      const r = await plan([...keys, ...args]);
      expect(r.stderr).toContain(`warning: ${warning}\n`);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('the selection produced no matrix rows');
    }
  });

  it('warns for one bad value and runs the good ones', async () => {
    const r = await plan(['--precision', 'fp8', 'fp88']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('warning: --precision fp88 matches no config; did you mean fp8?\n');
    expect(r.points).toEqual([...ALL_B, ...ALL_G]);
    expect((await plan(['--precision', 'fp8'])).stderr).toBe('');
  });

  it('names the closest runner label and config key in the errors (exit 1)', async () => {
    const rt = await plan(['--runner-type', 'h10']);
    expect(rt.code).toBe(1);
    expect(rt.stderr).toContain(
      "Invalid runner type(s): {'h10'}. Valid runner types are: h100, h200\n'h10': did you mean h100?",
    );
    const key = await plan(['--config-keys', 'alpha-bf16-h100-vlm']);
    expect(key.code).toBe(1);
    expect(key.stderr).toContain("'alpha-bf16-h100-vlm': did you mean alpha-bf16-h100-vllm?");
    const glob = await plan(['--config-keys', 'zeta*']);
    expect(glob.stderr).toContain("Pattern 'zeta*' matched no config keys.");
  });

  it('infx matrix warns on stderr only; stdout stays the JSON', async () => {
    const r = await runCli(['matrix', 'full-sweep', ...SOURCE, '--framework', 'vlm']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('[]\n');
    expect(r.stderr).toBe('warning: --framework vlm matches no config; did you mean vllm?\n');
    const tc = await runCli(['matrix', 'test-config', ...SOURCE, '--config-keys', 'beta*', '--conc', '5']);
    expect(tc.stdout).toBe('[]\n');
    expect(tc.stderr).toContain(
      'warning: --conc 5 matches no concurrency of the selected configs; did you mean 4?',
    );
  });

  it('says when a config runner that is no label hides from --runner-node-filter', async () => {
    const configs = writeYaml(dir, 'stray.yaml', {
      'delta-bf16-h200-vllm': single('delta', 'h200-dgxc', 'bf16', 'vllm', [
        { isl: 1024, osl: 1024, 'search-space': [{ tp: 1, 'conc-list': [1] }] },
      ]),
    });
    const r = await runCli([
      'matrix',
      'full-sweep',
      '--config-files',
      configs,
      '--runner-config',
      RUNNERS,
      '--runner-node-filter',
      'h200',
    ]);
    expect(r.stderr).toContain(
      "warning: config 'delta-bf16-h200-vllm': runner 'h200-dgxc' is not a label of the runner config, so --runner-node-filter h200 never selects it",
    );
  });

  it('names the sweep label a PR label nearly is (infx matrix plan)', async () => {
    const r = await runCli(['matrix', 'plan', '--labels', 'full-sweep-enable', 'bug'], '[]');
    expect(r.stdout).toContain(
      "warning: label 'full-sweep-enable' is not a sweep label and does nothing; did you mean full-sweep-enabled?",
    );
    expect(r.stdout).not.toContain("label 'bug'");
  });

  it('names the priority label a PR label nearly is (infx matrix priority)', async () => {
    const rows = '[{"runner": "h100", "framework": "vllm", "precision": "bf16"}]';
    const args = ['matrix', 'priority', '--labels', 'skip-queue', 'ci-patchwrok', 'docs', '--pr-number', '7'];
    const r = await runCli(args, rows);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      "label 'skip-queue' is not a label the CI priority policy knows; did you mean skip_queue?",
    );
    expect(r.stderr).toContain(
      "label 'ci-patchwrok' is not a label the CI priority policy knows; did you mean ci-patchwork?",
    );
    expect(r.stderr).not.toContain("'docs'");
    // The typo changed nothing: no skip-queue-pr, as without the label.
    expect(r.stdout).not.toContain('skip-queue-pr');
    const right = await runCli(['matrix', 'priority', '--labels', 'skip_queue', '--pr-number', '7'], rows);
    expect(right.stderr).toBe('');
    expect(right.stdout).toContain('"skip-queue-pr": 7');
  });
});
