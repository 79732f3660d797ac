import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../src/config/diagnostics.ts';
import { loadMasterConfigs, loadRunnerConfig } from '../src/config/load.ts';
import { loadInputs } from '../src/matrix/build.ts';
import { expandRange } from '../src/matrix/concurrency.ts';
import { MatrixError } from '../src/matrix/errors.ts';
import { markAllEvalEntries, markEvalEntries } from '../src/matrix/evals.ts';
import {
  type FullSweepOptions,
  fullSweep,
  type TestConfigOptions,
  testConfig,
} from '../src/matrix/generate.ts';
import { expandConfigKeys } from '../src/matrix/keys.ts';
import type { Diagnostic } from '../src/schema/diagnostic.ts';
import { SingleNodeSearchSpaceSchema } from '../src/schema/master-config.ts';
import type { MatrixRow } from '../src/schema/matrix-row.ts';
import { runCli, tmpDir, writeYaml } from './helpers.ts';
import { agenticRow, fixedRow, multiAgenticRow, multiRow, rowWorker } from './rows.ts';

/**
 * matrix-spec §13, conformance cases 1–35: every bullet, with the spec's inputs and expected outputs.
 * The shared fixtures R (runners), S (single-node master) and M (multi-node master) are built here and
 * written to a temporary folder; variants are deep copies with edits.
 */

// biome-ignore lint/suspicious/noExplicitAny: fixtures and rows are free-form YAML/JSON documents edited in place
type Doc = any;

const clone = <T>(v: T): T => structuredClone(v);

// ---------------------------------------------------------------------------------------------------------
// Shared fixtures

const R: Doc = {
  labels: {
    mi300x: ['mi300x-amd_0', 'mi300x-amd_1', 'mi300x-cr_0'],
    h200: ['h200-cw_0', 'h200-cw_1', 'h200-nb_0', 'h200-nb_1'],
    gb200: ['gb200-nv_0'],
    'cluster:b300-nv': ['b300-nv_0', 'b300-nv_1'],
  },
  hardware: {
    'cluster:b300-nv': { 'available-cpu-dram-mib': 2964436, 'gpus-per-node': 8 },
    'cluster:mi355x-amds': { 'available-cpu-dram-mib': 3095781, 'gpus-per-node': 8 },
    'cluster:gb200-nv': { 'available-cpu-dram-mib': 860160, 'gpus-per-node': 4 },
  },
};

const S_KEY = 'dsr1-fp8-mi300x-sglang';
const S_ENTRY: Doc = {
  image: 'lmsysorg/sglang:v0.4.9-rocm630',
  model: 'deepseek-ai/DeepSeek-R1-0528',
  'model-prefix': 'dsr1',
  precision: 'fp8',
  framework: 'sglang',
  runner: 'mi300x',
  multinode: false,
  scenarios: {
    'fixed-seq-len': [
      { isl: 1024, osl: 1024, 'search-space': [{ tp: 8, 'conc-start': 4, 'conc-end': 64 }] },
      { isl: 8192, osl: 1024, 'search-space': [{ tp: 8, 'conc-start': 4, 'conc-end': 64 }] },
    ],
  },
};
const S: Doc = { [S_KEY]: S_ENTRY };

const M_KEY = 'dsr1-fp4-gb200-dynamo-trt';
const M_PREFILL: Doc = {
  hardware: 'gb200',
  'num-worker': 5,
  tp: 4,
  ep: 4,
  'dp-attn': true,
  'additional-settings': ['PREFILL_MAX_NUM_TOKENS=4608', 'PREFILL_MAX_BATCH_SIZE=4'],
};
const M_DECODE: Doc = { hardware: 'h100', 'num-worker': 1, tp: 8, ep: 8, 'dp-attn': true };
const M_ENTRY: Doc = {
  image: 'nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:0.5.1',
  model: 'deepseek-ai/DeepSeek-R1-0528-FP4',
  'model-prefix': 'dsr1',
  precision: 'fp4',
  framework: 'dynamo-trt',
  runner: 'gb200',
  multinode: true,
  disagg: true,
  'kv-p2p-transfer': 'nixl',
  scenarios: {
    'fixed-seq-len': [
      {
        isl: 1024,
        osl: 1024,
        'search-space': [{ 'conc-list': [2150], prefill: M_PREFILL, decode: M_DECODE }],
      },
    ],
  },
};
const M: Doc = { [M_KEY]: M_ENTRY };

/** S with one fixed-seq-len item holding the given search-space entries. */
function sWith(entries: Doc[], isl = 1024, osl = 1024): Doc {
  const doc = clone(S);
  doc[S_KEY].scenarios['fixed-seq-len'] = [{ isl, osl, 'search-space': entries }];
  return doc;
}

/** M with its single fixed item's search-space replaced (entries are merged over a copy of M's entry). */
function mWith(entries: Doc[], top: Doc = {}, isl = 1024, osl = 1024): Doc {
  const doc = clone(M);
  Object.assign(doc[M_KEY], top);
  const base = M_ENTRY.scenarios['fixed-seq-len'][0]['search-space'][0];
  doc[M_KEY].scenarios['fixed-seq-len'] = [
    { isl, osl, 'search-space': entries.map((e) => ({ ...clone(base), ...e })) },
  ];
  return doc;
}

/** A single-node agentic master entry. */
function agenticSingle(runner: string, searchSpace: Doc[], item: Doc = {}, top: Doc = {}): Doc {
  return {
    image: 'lmsysorg/sglang:v0.5.2',
    model: 'Qwen/Qwen3.5-397B-A17B',
    'model-prefix': 'qwen3.5',
    precision: 'fp8',
    framework: 'sglang',
    runner,
    multinode: false,
    scenarios: { 'agentic-coding': [{ 'search-space': searchSpace, ...item }] },
    ...top,
  };
}

/** A multi-node agentic master entry. */
function agenticMulti(runner: string, searchSpace: Doc[], item: Doc = {}, top: Doc = {}): Doc {
  return {
    image: 'lmsysorg/sglang:v0.5.2',
    model: 'deepseek-ai/DeepSeek-V4',
    'model-prefix': 'dsv4',
    precision: 'fp4',
    framework: 'dynamo-sglang',
    runner,
    multinode: true,
    disagg: true,
    'kv-p2p-transfer': 'nixl',
    scenarios: { 'agentic-coding': [{ 'search-space': searchSpace, ...item }] },
    ...top,
  };
}

const worker = (n: number, tp: number, extra: Doc = {}): Doc => ({
  'num-worker': n,
  tp,
  ep: 1,
  'dp-attn': false,
  ...extra,
});

// ---------------------------------------------------------------------------------------------------------
// Helpers

let root = '';
let counter = 0;
beforeAll(() => {
  root = tmpDir('infx-conformance-');
});
afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

function write(doc: Doc | string, name = 'master'): string {
  counter += 1;
  return writeYaml(root, `${name}-${counter}.yaml`, doc);
}

async function errorsOf(doc: Doc): Promise<Diagnostic[]> {
  const { diagnostics } = await loadMasterConfigs([write(doc)]);
  return diagnostics.filter((d) => d.severity === 'error');
}

const matcher = (p: string | RegExp) =>
  typeof p === 'string' ? expect.stringContaining(p) : expect.stringMatching(p);

/** The master doc fails validation, and some error message contains/matches `pattern`. */
async function expectInvalid(doc: Doc, pattern: string | RegExp): Promise<Diagnostic[]> {
  const errors = await errorsOf(doc);
  expect(errors.length).toBeGreaterThan(0);
  expect(errors.map((e) => e.message)).toEqual(expect.arrayContaining([matcher(pattern)]));
  return errors;
}

async function expectValid(doc: Doc): Promise<void> {
  const errors = await errorsOf(doc);
  expect(errors.map((e) => `${e.path.join('.')}: ${e.message}`)).toEqual([]);
}

async function runnerErrorsOf(doc: Doc | string): Promise<Diagnostic[]> {
  const { diagnostics } = await loadRunnerConfig(write(doc, 'runners'));
  return diagnostics.filter((d) => d.severity === 'error');
}

async function expectRunnersInvalid(doc: Doc | string, pattern: string | RegExp): Promise<void> {
  const errors = await runnerErrorsOf(doc);
  expect(errors.length).toBeGreaterThan(0);
  expect(errors.map((e) => e.message)).toEqual(expect.arrayContaining([matcher(pattern)]));
}

async function load(doc: Doc, runners: Doc = R) {
  return loadInputs([write(doc)], write(runners, 'runners'));
}

async function sweep(doc: Doc, opts: FullSweepOptions = {}, runners: Doc = R): Promise<Doc[]> {
  const { configs, runners: rc } = await load(doc, runners);
  return fullSweep(configs, rc, opts) as Doc[];
}

async function testCfg(doc: Doc, opts: TestConfigOptions, runners: Doc = R): Promise<Doc[]> {
  const { configs, runners: rc } = await load(doc, runners);
  return testConfig(configs, rc, opts) as Doc[];
}

/** The MatrixError a generator call throws (fails the test if it throws nothing or something else). */
function matrixErrorOf(fn: () => unknown): MatrixError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(MatrixError);
    return err as MatrixError;
  }
  throw new Error('expected a MatrixError, but nothing was thrown');
}

const concs = (rows: Doc[]) => rows.map((r) => r.conc);
const asRows = (rows: Doc[]) => rows as unknown as MatrixRow[];

// ---------------------------------------------------------------------------------------------------------

describe('Validation', () => {
  it('0: the shared fixtures S, M and R are valid', async () => {
    await expectValid(S);
    await expectValid(M);
    expect(await runnerErrorsOf(R)).toEqual([]);
  });

  it('1: both range and list fails with "Cannot specify both"', async () => {
    await expectInvalid(
      sWith([{ tp: 8, 'conc-start': 4, 'conc-end': 64, 'conc-list': [4, 8] }]),
      'Cannot specify both',
    );
  });

  it('1: {tp: 8} alone fails with "Must specify either"', async () => {
    await expectInvalid(sWith([{ tp: 8 }]), 'Must specify either');
  });

  it('1: conc-start 64 / conc-end 4 fails with "must be <="', async () => {
    await expectInvalid(sWith([{ tp: 8, 'conc-start': 64, 'conc-end': 4 }]), 'must be <=');
  });

  it.each([
    [0, 4],
    [-1, 4],
    [1, 0],
  ])('1: range (%i, %i) fails with "must be greater than 0"', async (start, end) => {
    await expectInvalid(sWith([{ tp: 8, 'conc-start': start, 'conc-end': end }]), 'must be greater than 0');
  });

  it('1: conc-list [4, 0, 16] fails with "must be greater than 0"', async () => {
    await expectInvalid(sWith([{ tp: 8, 'conc-list': [4, 0, 16] }]), 'must be greater than 0');
  });

  it('2: {tp: 8, dcp-size: 3, conc-list: [4]} fails with "must be divisible"', async () => {
    await expectInvalid(sWith([{ tp: 8, 'dcp-size': 3, 'conc-list': [4] }]), 'must be divisible');
  });

  it('2: {tp: 4, pp: 0} fails with "greater than 0"', async () => {
    await expectInvalid(sWith([{ tp: 4, pp: 0, 'conc-list': [4] }]), 'greater than 0');
  });

  it.each(['pp', 'dcp-size', 'pcp-size'])(
    '2: a worker with %s = 0 fails with "greater than 0"',
    async (field) => {
      const doc = mWith([{ prefill: { ...M_PREFILL, [field]: 0 } }]);
      await expectInvalid(doc, 'greater than 0');
    },
  );

  it('2: a worker with tp 4 and dcp-size 3 fails with "must be divisible"', async () => {
    await expectInvalid(mWith([{ prefill: { ...M_PREFILL, tp: 4, 'dcp-size': 3 } }]), 'must be divisible');
  });

  it('3: {tp: 8, conc-list: [4, 8]} validates with ep null, dp-attn null, spec-decoding none, pp 1', async () => {
    const doc = sWith([{ tp: 8, 'conc-list': [4, 8] }]);
    await expectValid(doc);
    const parsed = SingleNodeSearchSpaceSchema.parse({ tp: 8, 'conc-list': [4, 8] });
    expect(parsed.ep ?? null).toBeNull();
    expect(parsed['dp-attn'] ?? null).toBeNull();
    expect(parsed['spec-decoding']).toBe('none');
    expect(parsed.pp).toBe(1);
    // The generator emits the absent ep as 1 and the absent dp-attn as false (§2.3).
    const rows = await sweep(doc);
    expect(rows.map((r) => [r.ep, r['dp-attn'], r['spec-decoding'], r.pp])).toEqual([
      [1, false, 'none', 1],
      [1, false, 'none', 1],
    ]);
  });

  it('3: spec-decoding "invalid" fails', async () => {
    await expectInvalid(sWith([{ tp: 8, 'conc-list': [4, 8], 'spec-decoding': 'invalid' }]), 'spec-decoding');
  });

  it('4: M without top-level kv-p2p-transfer fails with "disagg=true requires kv-p2p-transfer"', async () => {
    const doc = clone(M);
    delete doc[M_KEY]['kv-p2p-transfer'];
    await expectInvalid(doc, 'disagg=true requires kv-p2p-transfer');
  });

  it('4: M without the top-level value but with it on every search-space entry (two entries) passes', async () => {
    const doc = mWith([{ 'kv-p2p-transfer': 'nixl' }, { 'kv-p2p-transfer': 'nixl', 'conc-list': [512] }]);
    delete doc[M_KEY]['kv-p2p-transfer'];
    await expectValid(doc);
  });

  it('4: the value on only one of two entries fails with "disagg=true requires kv-p2p-transfer"', async () => {
    const doc = mWith([{ 'kv-p2p-transfer': 'nixl' }, { 'conc-list': [512] }]);
    delete doc[M_KEY]['kv-p2p-transfer'];
    await expectInvalid(doc, 'disagg=true requires kv-p2p-transfer');
  });

  it('5: router both at the top level and in search-space fails with "router must be declared either"', async () => {
    const router = { name: 'dynamo-router', version: '0.5.1' };
    await expectInvalid(mWith([{ router }], { router }), 'router must be declared either');
  });

  it('5: kv-p2p-transfer both at the top level and in search-space fails with "kv-p2p-transfer must be declared either"', async () => {
    await expectInvalid(mWith([{ 'kv-p2p-transfer': 'nixl' }]), 'kv-p2p-transfer must be declared either');
  });

  it('5: a top-level router with search-space kv-p2p-transfer passes', async () => {
    const doc = mWith([{ 'kv-p2p-transfer': 'nixl' }], {
      router: { name: 'dynamo-router', version: '0.5.1' },
    });
    delete doc[M_KEY]['kv-p2p-transfer'];
    await expectValid(doc);
  });

  it('5: two entries with different transfer values (nixl, mooncake) pass', async () => {
    const doc = mWith([{ 'kv-p2p-transfer': 'nixl' }, { 'kv-p2p-transfer': 'mooncake', 'conc-list': [512] }]);
    delete doc[M_KEY]['kv-p2p-transfer'];
    await expectValid(doc);
  });

  it('6: S with disagg: true fails, mentioning disagg', async () => {
    const doc = clone(S);
    doc[S_KEY].disagg = true;
    await expectInvalid(doc, 'disagg');
  });

  it('6: S with kv-p2p-transfer: nixl fails, mentioning kv-p2p-transfer', async () => {
    const doc = clone(S);
    doc[S_KEY]['kv-p2p-transfer'] = 'nixl';
    await expectInvalid(doc, 'kv-p2p-transfer');
  });

  it('6: M with disagg: false and a top-level kv-p2p-transfer passes', async () => {
    const doc = clone(M);
    doc[M_KEY].disagg = false;
    await expectValid(doc);
  });

  it('7: M with decode.hardware removed fails with /both.*prefill.*decode/', async () => {
    const decode = clone(M_DECODE);
    delete decode.hardware;
    await expectInvalid(mWith([{ decode }]), /both.*prefill.*decode/);
  });

  it('7: M with both hardware fields removed passes, and both become null', async () => {
    const prefill = clone(M_PREFILL);
    const decode = clone(M_DECODE);
    delete prefill.hardware;
    delete decode.hardware;
    const doc = mWith([{ prefill, decode }]);
    await expectValid(doc);
    const rows = await sweep(doc);
    expect(rows).toHaveLength(1);
    expect(rows[0].prefill.hardware ?? null).toBeNull();
    expect(rows[0].decode.hardware ?? null).toBeNull();
  });

  it('8: an agentic S-style master with runner b200 fails with "Agentic master configs must use"', async () => {
    const entry = { tp: 8, 'conc-list': [1], 'kv-offloading': 'none' };
    await expectInvalid(
      { 'qwen-agentic': agenticSingle('b200', [entry]) },
      'Agentic master configs must use',
    );
  });

  it('8: the same with runner cluster:b200-dgxc passes', async () => {
    const entry = { tp: 8, 'conc-list': [1], 'kv-offloading': 'none' };
    await expectValid({ 'qwen-agentic': agenticSingle('cluster:b200-dgxc', [entry]) });
  });

  it('8: the multi-node analogue: runner gb200 fails, cluster:gb200-nv passes', async () => {
    const entry = { prefill: worker(1, 8), decode: worker(1, 8), 'conc-list': [1], 'kv-offloading': 'none' };
    await expectInvalid(
      { 'dsv4-agentic': agenticMulti('gb200', [entry]) },
      'Agentic master configs must use',
    );
    await expectValid({ 'dsv4-agentic': agenticMulti('cluster:gb200-nv', [entry]) });
  });

  describe('9: agentic search-space entries', () => {
    const one = (entry: Doc, item: Doc = {}) => ({
      'qwen-agentic': agenticSingle('cluster:b300-nv', [entry], item),
    });

    it('9: {tp: 8, conc-list: [1, 2]} fails, mentioning kv-offloading', async () => {
      await expectInvalid(one({ tp: 8, 'conc-list': [1, 2] }), 'kv-offloading');
    });

    it('9: kv-offloading none with backend {name: lmcache} fails, mentioning kv-offload-backend', async () => {
      const entry = {
        tp: 8,
        'conc-list': [1, 2],
        'kv-offloading': 'none',
        'kv-offload-backend': { name: 'lmcache' },
      };
      await expectInvalid(one(entry), 'kv-offload-backend');
    });

    it('9: kv-offloading dram without a backend fails, mentioning kv-offload-backend', async () => {
      const entry = { tp: 8, 'conc-list': [1, 2], 'kv-offloading': 'dram' };
      await expectInvalid(one(entry, { 'dram-utilization': 0.8 }), 'kv-offload-backend');
    });

    it('9: backend {name: lmcache, mode: cpu} fails', async () => {
      const entry = {
        tp: 8,
        'conc-list': [1, 2],
        'kv-offloading': 'dram',
        'kv-offload-backend': { name: 'lmcache', mode: 'cpu' },
      };
      await expectInvalid(one(entry, { 'dram-utilization': 0.8 }), 'mode');
    });

    it('9: backend version image:vllm/... fails with "not an image reference"', async () => {
      const entry = {
        tp: 8,
        'conc-list': [1, 2],
        'kv-offloading': 'dram',
        'kv-offload-backend': { name: 'lmcache', version: 'image:vllm/vllm-openai:v0.11.0' },
      };
      await expectInvalid(one(entry, { 'dram-utilization': 0.8 }), 'not an image reference');
    });

    it('9: backend {name: lmcache, version: "0.5.1"} passes', async () => {
      const entry = {
        tp: 8,
        'conc-list': [1, 2],
        'kv-offloading': 'dram',
        'kv-offload-backend': { name: 'lmcache', version: '0.5.1' },
      };
      await expectValid(one(entry, { 'dram-utilization': 0.8 }));
    });

    const base = { tp: 8, 'conc-list': [1, 2], 'kv-offloading': 'none' };

    it('9: (control) a complete router {name, version} passes', async () => {
      await expectValid(one({ ...base, router: { name: 'vllm-router', version: '0.1.9' } }));
    });

    it.each([
      ['{name: vllm-router}', { name: 'vllm-router' }],
      ['{version: x}', { version: 'x' }],
      ['an empty name', { name: '', version: '0.1.9' }],
      ['an empty version', { name: 'vllm-router', version: '' }],
      ['an extra key', { name: 'vllm-router', version: '0.1.9', url: 'http://x' }],
    ])('9: router %s fails', async (_label, router) => {
      const errors = await errorsOf(one({ ...base, router }));
      expect(errors.length).toBeGreaterThan(0);
      expect(errors.some((e) => e.path.includes('router'))).toBe(true);
    });
  });

  describe('10: AgenticCodingConfig', () => {
    const dramEntry = {
      tp: 8,
      'conc-list': [4],
      'kv-offloading': 'dram',
      'kv-offload-backend': { name: 'hicache' },
    };
    const one = (entry: Doc, item: Doc = {}) => ({
      'qwen-agentic': agenticSingle('cluster:b300-nv', [entry], item),
    });

    it('10: a dram entry without dram-utilization fails with "dram-utilization"', async () => {
      await expectInvalid(one(dramEntry), 'dram-utilization');
    });

    it('10: dram-utilization 0.80 passes', async () => {
      await expectValid(one(dramEntry, { 'dram-utilization': 0.8 }));
    });

    it.each([
      ['gpus-per-node', 8],
      ['available-cpu-dram-mib', 2964436],
      ['duration', 1200],
    ])('10: the extra item key %s fails and the message names it', async (key, value) => {
      await expectInvalid(one(dramEntry, { 'dram-utilization': 0.8, [key]: value }), key);
    });

    it('10: total-cpu-dram-gb inside a search-space entry fails and the message names it', async () => {
      await expectInvalid(
        one({ ...dramEntry, 'total-cpu-dram-gb': 2399 }, { 'dram-utilization': 0.8 }),
        'total-cpu-dram-gb',
      );
    });
  });

  describe('11: runners', () => {
    it('11: labels {h100: "h100-cr_0"} fails with "must be a list"', async () => {
      await expectRunnersInvalid({ labels: { h100: 'h100-cr_0' } }, 'must be a list');
    });

    it('11: [h100-cr_0, 123] fails with "must contain only strings"', async () => {
      await expectRunnersInvalid({ labels: { h100: ['h100-cr_0', 123] } }, 'must contain only strings');
    });

    it('11: mi355x: [] fails with "cannot be an empty list"', async () => {
      await expectRunnersInvalid({ labels: { mi355x: [] } }, 'cannot be an empty list');
    });

    it('11: a flat {h100: [...]} file fails with "labels mapping"', async () => {
      await expectRunnersInvalid({ h100: ['h100-cr_0', 'h100-cr_1'] }, 'labels mapping');
    });

    it.each(['available-cpu-dram-mib', 'gpus-per-node'])(
      '11: hardware with %s: 0 fails and the message names the field',
      async (field) => {
        const doc = clone(R);
        doc.hardware['cluster:b300-nv'][field] = 0;
        await expectRunnersInvalid(doc, field);
      },
    );
  });

  describe('12: loading', () => {
    it('12: duplicate keys across two files give "Duplicate configuration keys"', async () => {
      const first = write(S);
      const second = write(S);
      const { diagnostics } = await loadMasterConfigs([first, second]);
      expect(diagnostics.map((d) => d.message)).toEqual(
        expect.arrayContaining([
          expect.stringContaining(`Duplicate configuration keys found in '${second}': ${S_KEY}`),
        ]),
      );
      await expect(loadInputs([first, second], write(R, 'runners'))).rejects.toThrow(ConfigError);
    });

    it('12: a missing master file gives "does not exist"', async () => {
      const missing = `${root}/no-such-master.yaml`;
      const { diagnostics } = await loadMasterConfigs([missing]);
      expect(diagnostics.map((d) => d.message)).toEqual([`Input file '${missing}' does not exist.`]);
    });

    it('12: a missing runner file gives "does not exist"', async () => {
      const missing = `${root}/no-such-runners.yaml`;
      const { diagnostics } = await loadRunnerConfig(missing);
      expect(diagnostics.map((d) => d.message)).toEqual([`Runner config file '${missing}' does not exist.`]);
    });

    it('12: an entry without model gives "failed validation" plus the key name', async () => {
      const doc = clone(S);
      delete doc[S_KEY].model;
      const err = await loadInputs([write(doc)], write(R, 'runners')).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).message).toContain('failed validation');
      expect((err as ConfigError).message).toContain(S_KEY);
      expect((err as ConfigError).diagnostics.map((d) => d.path)).toContainEqual([S_KEY, 'model']);
    });

    it('12: a key containing * is rejected', async () => {
      const doc = { 'dsr1-*': clone(S_ENTRY) };
      await expectInvalid(doc, "Wildcard '*' is not allowed in master config keys: 'dsr1-*'");
    });
  });
});

// ---------------------------------------------------------------------------------------------------------

describe('Expansion and filters', () => {
  it('13: full-sweep of S gives 10 rows with the expected concurrencies, names and lengths', async () => {
    const rows = await sweep(S, { stepSize: 2 });
    expect(rows).toHaveLength(10);
    expect(rows.map((r) => [r.isl, r.conc, r['exp-name'], r['max-model-len']])).toEqual([
      ...[4, 8, 16, 32, 64].map((c) => [1024, c, 'dsr1_1k1k', 2304]),
      ...[4, 8, 16, 32, 64].map((c) => [8192, c, 'dsr1_8k1k', 9472]),
    ]);
    for (const r of rows) {
      expect([r.pp, r['dcp-size'], r['pcp-size']]).toEqual([1, 1, 1]);
      expect([r.ep, r['dp-attn'], r.disagg]).toEqual([1, false, false]);
    }
    expect(rows[0]).toEqual({
      image: S_ENTRY.image,
      model: S_ENTRY.model,
      'model-prefix': 'dsr1',
      precision: 'fp8',
      framework: 'sglang',
      runner: 'mi300x',
      isl: 1024,
      osl: 1024,
      tp: 8,
      pp: 1,
      'dcp-size': 1,
      'pcp-size': 1,
      conc: 4,
      'max-model-len': 2304,
      ep: 1,
      'dp-attn': false,
      'spec-decoding': 'none',
      'exp-name': 'dsr1_1k1k',
      disagg: false,
      'run-eval': false,
    });
    // §6.1 emission order.
    expect(Object.keys(rows[0])).toEqual([
      'image',
      'model',
      'model-prefix',
      'precision',
      'framework',
      'runner',
      'isl',
      'osl',
      'tp',
      'pp',
      'dcp-size',
      'pcp-size',
      'conc',
      'max-model-len',
      'ep',
      'dp-attn',
      'spec-decoding',
      'exp-name',
      'disagg',
      'run-eval',
    ]);
  });

  it('13: with pp, dcp-size and pcp-size = 2 on every entry, every row has (2, 2, 2)', async () => {
    const doc = clone(S);
    for (const item of doc[S_KEY].scenarios['fixed-seq-len'])
      for (const e of item['search-space']) Object.assign(e, { pp: 2, 'dcp-size': 2, 'pcp-size': 2 });
    const rows = await sweep(doc);
    expect(rows).toHaveLength(10);
    expect(rows.map((r) => [r.pp, r['dcp-size'], r['pcp-size']])).toEqual(Array(10).fill([2, 2, 2]));
  });

  it('14: --seq-lens 1k1k gives 5 rows, all isl 1024', async () => {
    const rows = await sweep(S, { seqLens: ['1k1k'] });
    expect(rows).toHaveLength(5);
    expect(rows.map((r) => r.isl)).toEqual([1024, 1024, 1024, 1024, 1024]);
    expect(concs(rows)).toEqual([4, 8, 16, 32, 64]);
  });

  it('14: adding --max-conc 16 gives [4, 8, 16]', async () => {
    expect(concs(await sweep(S, { seqLens: ['1k1k'], maxConc: 16 }))).toEqual([4, 8, 16]);
  });

  it('14: --max-conc 1 gives 1 row with conc 1', async () => {
    const rows = await sweep(S, { seqLens: ['1k1k'], maxConc: 1 });
    expect(concs(rows)).toEqual([1]);
  });

  it.each([0, -1, -100])('14: --max-conc %i gives 0 rows', async (maxConc) => {
    expect(await sweep(S, { seqLens: ['1k1k'], maxConc })).toEqual([]);
    expect(await sweep(S, { maxConc })).toEqual([]);
  });

  it('15: --step-size 4 with --seq-lens 1k1k gives [4, 16, 64]', async () => {
    expect(concs(await sweep(S, { stepSize: 4, seqLens: ['1k1k'] }))).toEqual([4, 16, 64]);
  });

  it('15: --step-size 1 is an error ("greater than 1")', async () => {
    const { configs, runners } = await load(S);
    const err = matrixErrorOf(() => fullSweep(configs, runners, { stepSize: 1 }));
    expect(err.message).toContain('greater than 1');
    expect(err.usage).toBe(true);
    const cli = await runCli([
      'matrix',
      'full-sweep',
      '--no-cache',
      '--config-files',
      write(S),
      '--runner-config',
      write(R, 'runners'),
      '--step-size',
      '1',
    ]);
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain('--step-size must be greater than 1');
  });

  it('15: --min-conc 16 --max-conc 8 is an error ("less than or equal")', async () => {
    const { configs, runners } = await load(S);
    const err = matrixErrorOf(() => fullSweep(configs, runners, { minConc: 16, maxConc: 8 }));
    expect(err.message).toContain('less than or equal');
    expect(err.usage).toBe(true);
  });

  it('16: step 2 on (1, 100) gives [1, 2, 4, 8, 16, 32, 64, 100]', async () => {
    expect(expandRange(1, 100, 2)).toEqual([1, 2, 4, 8, 16, 32, 64, 100]);
    const rows = await sweep(sWith([{ tp: 8, 'conc-start': 1, 'conc-end': 100 }]), { stepSize: 2 });
    expect(concs(rows)).toEqual([1, 2, 4, 8, 16, 32, 64, 100]);
  });

  it('16: step 3 on (2, 20) gives [2, 6, 18, 20]', async () => {
    expect(expandRange(2, 20, 3)).toEqual([2, 6, 18, 20]);
    const rows = await sweep(sWith([{ tp: 8, 'conc-start': 2, 'conc-end': 20 }]), { stepSize: 3 });
    expect(concs(rows)).toEqual([2, 6, 18, 20]);
  });

  it('16: --min-conc 10 on (4, 64) gives [10, 20, 40, 64]', async () => {
    expect(concs(await sweep(S, { seqLens: ['1k1k'], minConc: 10 }))).toEqual([10, 20, 40, 64]);
  });

  it('16: --max-conc 50 on (4, 64) gives [4, 8, 16, 32, 50]', async () => {
    expect(concs(await sweep(S, { seqLens: ['1k1k'], maxConc: 50 }))).toEqual([4, 8, 16, 32, 50]);
  });

  it('16: --min-conc 100 on (4, 64) gives no rows', async () => {
    expect(await sweep(S, { seqLens: ['1k1k'], minConc: 100 })).toEqual([]);
  });

  it('16: --min-conc 5 --max-conc 5 on (4, 64) gives [5]', async () => {
    expect(concs(await sweep(S, { seqLens: ['1k1k'], minConc: 5, maxConc: 5 }))).toEqual([5]);
  });

  it('17: conc-list [4, 16, 64] gives rows in that order', async () => {
    const doc = sWith([{ tp: 8, 'conc-list': [4, 16, 64] }]);
    expect(concs(await sweep(doc))).toEqual([4, 16, 64]);
  });

  it('17: conc-list [4, 16, 64] with min 8 and max 32 gives [16]', async () => {
    const doc = sWith([{ tp: 8, 'conc-list': [4, 16, 64] }]);
    expect(concs(await sweep(doc, { minConc: 8, maxConc: 32 }))).toEqual([16]);
  });

  it('17: conc-list [4, 16, 64] with max 3 gives [3]', async () => {
    const doc = sWith([{ tp: 8, 'conc-list': [4, 16, 64] }]);
    expect(concs(await sweep(doc, { maxConc: 3 }))).toEqual([3]);
  });

  it('18: --max-tp 4 on tp4 (4..64) and tp8 (4..64) at 1k1k gives 5 rows, all tp 4', async () => {
    const doc = sWith([
      { tp: 4, 'conc-start': 4, 'conc-end': 64 },
      { tp: 8, 'conc-start': 4, 'conc-end': 64 },
    ]);
    const rows = await sweep(doc, { maxTp: 4 });
    expect(rows).toHaveLength(5);
    expect(rows.map((r) => r.tp)).toEqual([4, 4, 4, 4, 4]);
    expect(concs(rows)).toEqual([4, 8, 16, 32, 64]);
  });

  it('18: --max-tp 2 on S gives 0 rows', async () => {
    expect(await sweep(S, { maxTp: 2 })).toEqual([]);
  });

  it('18: --max-ep 2 on {tp: 8, ep: 8, conc 4..4} gives 1 row with ep 2', async () => {
    const doc = sWith([{ tp: 8, ep: 8, 'conc-start': 4, 'conc-end': 4 }]);
    const rows = await sweep(doc, { maxEp: 2 });
    expect(rows.map((r) => [r.tp, r.ep, r.conc])).toEqual([[8, 2, 4]]);
  });

  it.each([0, -1])('18: --max-ep %i gives 0 rows', async (maxEp) => {
    const doc = sWith([{ tp: 8, ep: 8, 'conc-start': 4, 'conc-end': 4 }]);
    expect(await sweep(doc, { maxEp })).toEqual([]);
  });

  it('18: max-tp 2, max-ep 1 and max-conc 1 together give exactly one row: tp 2, ep 1, conc 1', async () => {
    const doc = sWith([
      { tp: 8, ep: 8, 'conc-start': 100, 'conc-end': 200 },
      { tp: 2, ep: 8, 'conc-start': 100, 'conc-end': 200 },
    ]);
    const rows = await sweep(doc, { maxTp: 2, maxEp: 1, maxConc: 1 });
    expect(rows.map((r) => [r.tp, r.ep, r.conc])).toEqual([[2, 1, 1]]);
  });

  it('19: runner-type mi300x, filter amd, 1k1k, max-conc 4 gives 2 rows on mi300x-amd_0 and _1', async () => {
    const opts: FullSweepOptions = { runnerNodeFilter: 'amd', seqLens: ['1k1k'], maxConc: 4 };
    const withType = await sweep(S, { ...opts, runnerType: ['mi300x'] });
    expect(withType.map((r) => [r.runner, r.conc])).toEqual([
      ['mi300x-amd_0', 4],
      ['mi300x-amd_1', 4],
    ]);
    const withoutType = await sweep(S, opts);
    expect(withoutType.map((r) => [r.runner, r.conc])).toEqual([
      ['mi300x-amd_0', 4],
      ['mi300x-amd_1', 4],
    ]);
  });

  it('19: filter "nonexistent" gives 0 rows', async () => {
    expect(await sweep(S, { runnerNodeFilter: 'nonexistent', seqLens: ['1k1k'], maxConc: 4 })).toEqual([]);
  });

  it('19: a multinode config on h200 with filter cw gives 2 rows (h200-cw_0, h200-cw_1)', async () => {
    const doc = clone(M);
    doc[M_KEY].runner = 'h200';
    const rows = await sweep(doc, { runnerNodeFilter: 'cw' });
    expect(rows.map((r) => r.runner)).toEqual(['h200-cw_0', 'h200-cw_1']);
    expect(rows.every((r) => r.prefill !== undefined)).toBe(true);
  });

  it('19: --runner-type invalid_runner raises "Invalid runner type"', async () => {
    const { configs, runners } = await load(S);
    const err = matrixErrorOf(() => fullSweep(configs, runners, { runnerType: ['invalid_runner'] }));
    expect(err.message).toContain('Invalid runner type');
  });

  it('20: full-sweep of M gives 1 row with conc [2150], disagg true and the workers filled in', async () => {
    const rows = await sweep(M);
    expect(rows).toHaveLength(1);
    const row = rows[0];
    expect(row.conc).toEqual([2150]);
    expect(row.disagg).toBe(true);
    expect(row.prefill['num-worker']).toBe(5);
    expect(row.decode['num-worker']).toBe(1);
    expect([row.prefill.hardware, row.decode.hardware]).toEqual(['gb200', 'h100']);
    for (const w of [row.prefill, row.decode])
      expect([w.pp, w['dcp-size'], w['pcp-size']]).toEqual([1, 1, 1]);
    expect(row).toEqual({
      image: M_ENTRY.image,
      model: M_ENTRY.model,
      'model-prefix': 'dsr1',
      precision: 'fp4',
      framework: 'dynamo-trt',
      runner: 'gb200',
      isl: 1024,
      osl: 1024,
      'spec-decoding': 'none',
      prefill: { ...M_PREFILL, pp: 1, 'dcp-size': 1, 'pcp-size': 1 },
      decode: { ...M_DECODE, pp: 1, 'dcp-size': 1, 'pcp-size': 1 },
      conc: [2150],
      'max-model-len': 2304,
      'exp-name': 'dsr1_1k1k',
      disagg: true,
      'run-eval': false,
      'kv-p2p-transfer': 'nixl',
    });
  });

  it('20: a multi-node range 1..8 becomes one row with conc [1, 2, 4, 8]', async () => {
    const doc = mWith([{ 'conc-list': undefined, 'conc-start': 1, 'conc-end': 8 }]);
    delete doc[M_KEY].scenarios['fixed-seq-len'][0]['search-space'][0]['conc-list'];
    expect(concs(await sweep(doc))).toEqual([[1, 2, 4, 8]]);
  });

  it('20: multi-node conc-list [100, 200, 400] with max-conc 1 gives [1]', async () => {
    const doc = mWith([{ 'conc-list': [100, 200, 400] }]);
    expect(concs(await sweep(doc, { maxConc: 1 }))).toEqual([[1]]);
  });

  it.each([0, -1])('20: multi-node with max-conc %i gives 0 rows', async (maxConc) => {
    expect(await sweep(M, { maxConc })).toEqual([]);
    expect(await sweep(mWith([{ 'conc-list': [100, 200, 400] }]), { maxConc })).toEqual([]);
  });

  it('20: --single-node on M gives 0 rows', async () => {
    expect(await sweep(M, { singleNode: true })).toEqual([]);
  });

  it('21: the mixed S+M config with both flags gives both kinds; each flag gives only its kind', async () => {
    const doc = { ...clone(S), ...clone(M) };
    const both = await sweep(doc, { singleNode: true, multiNode: true });
    expect(both).toHaveLength(11);
    expect(both.filter((r) => 'prefill' in r)).toHaveLength(1);
    expect(both.filter((r) => !('prefill' in r))).toHaveLength(10);
    const single = await sweep(doc, { singleNode: true });
    expect(single).toHaveLength(10);
    expect(single.every((r) => !('prefill' in r))).toBe(true);
    const multi = await sweep(doc, { multiNode: true });
    expect(multi).toHaveLength(1);
    expect(multi.every((r) => 'prefill' in r)).toBe(true);
  });

  it('21: agentic configs are split the same way, keeping pp and worker parallelism', async () => {
    const prefill = worker(1, 4, { pp: 2, 'dcp-size': 2, 'pcp-size': 1, ep: 4, 'dp-attn': true });
    const decode = worker(2, 8, { pp: 1, 'dcp-size': 4, 'pcp-size': 2, ep: 8 });
    const doc = {
      'qwen-agentic': agenticSingle('cluster:b300-nv', [
        { tp: 4, pp: 2, 'kv-offloading': 'none', 'conc-list': [16] },
      ]),
      'dsv4-agentic': agenticMulti('cluster:gb200-nv', [
        { prefill, decode, 'kv-offloading': 'none', 'conc-list': [16] },
      ]),
    };
    const single = await sweep(doc, { singleNode: true });
    expect(single).toHaveLength(1);
    expect(single[0]).toMatchObject({ tp: 4, pp: 2, conc: 16, 'scenario-type': 'agentic-coding' });
    expect('prefill' in single[0]).toBe(false);
    const multi = await sweep(doc, { multiNode: true });
    expect(multi).toHaveLength(1);
    expect(multi[0]['scenario-type']).toBe('agentic-coding');
    expect(multi[0].prefill).toEqual(prefill);
    expect(multi[0].decode).toEqual(decode);
    expect(multi[0].conc).toEqual([16]);
    expect(await sweep(doc)).toHaveLength(2);
  });

  it('22: test-config of S with --seq-lens 1k1k --conc 4 gives exactly 1 row with (1, 1, 1)', async () => {
    const rows = await testCfg(S, { configKeys: [S_KEY], seqLens: ['1k1k'], conc: [4] });
    expect(rows).toHaveLength(1);
    expect([rows[0].isl, rows[0].conc, rows[0].runner]).toEqual([1024, 4, 'mi300x']);
    expect([rows[0].pp, rows[0]['dcp-size'], rows[0]['pcp-size']]).toEqual([1, 1, 1]);
  });

  it('22: test-config of M with filter gb200-nv_0 gives 1 row on gb200-nv_0; gb300-nv_0 gives []', async () => {
    const rows = await testCfg(M, { configKeys: [M_KEY], runnerNodeFilter: 'gb200-nv_0' });
    expect(rows.map((r) => r.runner)).toEqual(['gb200-nv_0']);
    expect(await testCfg(M, { configKeys: [M_KEY], runnerNodeFilter: 'gb300-nv_0' })).toEqual([]);
  });

  describe('23: expand_config_keys', () => {
    const keys = [
      'dsr1-fp4-b200-sglang',
      'dsr1-fp8-mi300x-sglang',
      'dsr1-fp8-h200-trt',
      'gptoss-fp4-b200-vllm',
      'gptoss-fp8-b200-sglang',
    ];

    it('23: *-sglang gives the three -sglang keys in order', () => {
      expect(expandConfigKeys(['*-sglang'], keys)).toEqual([
        'dsr1-fp4-b200-sglang',
        'dsr1-fp8-mi300x-sglang',
        'gptoss-fp8-b200-sglang',
      ]);
    });

    it('23: ?sr1-fp8-mi300x-sglang gives that one key', () => {
      expect(expandConfigKeys(['?sr1-fp8-mi300x-sglang'], keys)).toEqual(['dsr1-fp8-mi300x-sglang']);
    });

    it('23: *-b300 is an error ("matched no config keys")', () => {
      expect(() => expandConfigKeys(['*-b300'], keys)).toThrow(/matched no config keys/);
    });

    it('23: nonexistent-key is an error ("Config key(s) not found")', () => {
      expect(() => expandConfigKeys(['nonexistent-key'], keys)).toThrow('Config key(s) not found');
    });

    it('23: [dsr1-fp8-h200-trt, gptoss*] gives the exact key then the gptoss keys', () => {
      expect(expandConfigKeys(['dsr1-fp8-h200-trt', 'gptoss*'], keys)).toEqual([
        'dsr1-fp8-h200-trt',
        'gptoss-fp4-b200-vllm',
        'gptoss-fp8-b200-sglang',
      ]);
    });
  });
});

// ---------------------------------------------------------------------------------------------------------

describe('Naming, agentic, DRAM', () => {
  it('24: test-config of a single-node agentic config on b300-nv_1 gives the dram row (2399 GB, 3600 s)', async () => {
    const doc = {
      'qwen-agentic': agenticSingle(
        'cluster:b300-nv',
        [
          {
            tp: 8,
            ep: 1,
            'kv-offloading': 'dram',
            'kv-offload-backend': { name: 'hicache' },
            'conc-list': [64],
          },
        ],
        { 'dram-utilization': 0.8 },
      ),
    };
    const rows = await testCfg(doc, { configKeys: ['qwen-agentic'], runnerNodeFilter: 'b300-nv_1' });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      runner: 'b300-nv_1',
      'scenario-type': 'agentic-coding',
      'total-cpu-dram-gb': 2399,
      duration: 3600,
    });
    expect(rows[0]).toEqual({
      image: 'lmsysorg/sglang:v0.5.2',
      model: 'Qwen/Qwen3.5-397B-A17B',
      'model-prefix': 'qwen3.5',
      precision: 'fp8',
      framework: 'sglang',
      runner: 'b300-nv_1',
      tp: 8,
      pp: 1,
      'dcp-size': 1,
      'pcp-size': 1,
      ep: 1,
      'dp-attn': false,
      'spec-decoding': 'none',
      conc: 64,
      'kv-offloading': 'dram',
      'total-cpu-dram-gb': 2399,
      duration: 3600,
      'exp-name': 'qwen3.5_tp8_conc64_kvdram-hicache',
      'scenario-type': 'agentic-coding',
      'kv-offload-backend': { name: 'hicache' },
    });
  });

  describe('25: DRAM budget on cluster:b300-nv, util 0.80, tp 4, native dram', () => {
    const entry = (pp: number, dcp: number, pcp: number) => ({
      tp: 4,
      pp,
      'dcp-size': dcp,
      'pcp-size': pcp,
      'kv-offloading': 'dram',
      'kv-offload-backend': { name: 'native' },
      'conc-list': [1],
    });
    const doc = (entries: Doc[]) => ({
      'qwen-agentic': agenticSingle('cluster:b300-nv', entries, { 'dram-utilization': 0.8 }),
    });

    it.each([
      [1, 1, 1, 1199],
      [1, 2, 1, 1199],
      [1, 1, 2, 2399],
      [2, 1, 1, 2399],
    ])('25: (pp, dcp, pcp) = (%i, %i, %i) gives %i', async (pp, dcp, pcp, gb) => {
      const rows = await testCfg(doc([entry(pp, dcp, pcp)]), { configKeys: ['qwen-agentic'] });
      expect(rows.map((r) => r['total-cpu-dram-gb'])).toEqual([gb]);
    });

    it('25: with gpus-per-node 2, tp 4 raises "exceeds gpus-per-node"', async () => {
      const runners = clone(R);
      runners.hardware['cluster:b300-nv']['gpus-per-node'] = 2;
      const { configs, runners: rc } = await load(doc([entry(1, 1, 1)]), runners);
      const err = matrixErrorOf(() => testConfig(configs, rc, { configKeys: ['qwen-agentic'] }));
      expect(err.message).toContain(
        "tp=4 with pp=1 and pcp-size=1 requires 4 GPUs and exceeds gpus-per-node=2 for runner 'cluster:b300-nv'",
      );
    });
  });

  describe('26: multi-node agentic on cluster:mi355x-amds, util 0.80, dram hicache, conc [16]', () => {
    const doc = (prefillTp: number, decodeTp: number) => ({
      'dsv4-agentic': agenticMulti(
        'cluster:mi355x-amds',
        [
          {
            prefill: worker(1, prefillTp),
            decode: worker(1, decodeTp),
            'kv-offloading': 'dram',
            'kv-offload-backend': { name: 'hicache' },
            'conc-list': [16],
          },
        ],
        { 'dram-utilization': 0.8 },
      ),
    });

    it('26: prefill 1×tp8, decode 1×tp8 give dsv4_p1x8_d1x8_conc16_kvdram-hicache and 2399', async () => {
      const rows = await sweep(doc(8, 8));
      expect(rows).toHaveLength(1);
      expect(rows[0]['exp-name']).toBe('dsv4_p1x8_d1x8_conc16_kvdram-hicache');
      expect(rows[0]['total-cpu-dram-gb']).toBe(2399);
      expect(rows[0]['kv-offloading']).toBe('dram');
      expect(rows[0]['kv-offload-backend']).toEqual({ name: 'hicache' });
      expect(rows[0].conc).toEqual([16]);
    });

    it('26: a decode tp of 4 still gives 2399 (only prefill counts)', async () => {
      const rows = await sweep(doc(8, 4));
      expect(rows.map((r) => r['total-cpu-dram-gb'])).toEqual([2399]);
    });

    it('26: a prefill tp of 6 raises "does not divide"', async () => {
      const { configs, runners } = await load(doc(6, 8));
      const err = matrixErrorOf(() => fullSweep(configs, runners, {}));
      expect(err.message).toContain('worker tp*pp*pcp-size=6 does not divide gpus-per-node=8 evenly');
    });
  });

  it('27: multi-node agentic chunking: 5 rows with one concurrency each, workers keep pp/dcp/pcp', async () => {
    const prefill = { 'num-worker': 2, tp: 4, pp: 2, 'dcp-size': 2, 'pcp-size': 2, ep: 4, 'dp-attn': false };
    const decode = { 'num-worker': 1, tp: 4, pp: 2, 'dcp-size': 2, 'pcp-size': 1, ep: 1, 'dp-attn': false };
    const doc = {
      'dsv4-agentic': agenticMulti('cluster:gb200-nv', [
        { prefill, decode, 'kv-offloading': 'none', 'conc-list': [16, 32, 64, 128, 256] },
      ]),
    };
    const rows = await sweep(doc);
    expect(concs(rows)).toEqual([[16], [32], [64], [128], [256]]);
    expect(rows.map((r) => r['exp-name'])).toEqual([
      'dsv4_p2x4ep4_d1x4_conc16',
      'dsv4_p2x4ep4_d1x4_conc32',
      'dsv4_p2x4ep4_d1x4_conc64',
      'dsv4_p2x4ep4_d1x4_conc128',
      'dsv4_p2x4ep4_d1x4_conc256',
    ]);
    for (const r of rows) {
      expect(r.prefill).toEqual(prefill);
      expect(r.decode).toEqual(decode);
    }
  });

  it('28: single-node agentic exp-names carry tp, conc, kv and a _spec- suffix unless none', async () => {
    const doc = {
      'p-b300': agenticSingle(
        'cluster:b300-nv',
        [
          { tp: 8, 'kv-offloading': 'none', 'spec-decoding': 'mtp', 'conc-list': [1] },
          {
            tp: 8,
            'kv-offloading': 'dram',
            'kv-offload-backend': { name: 'hicache' },
            'spec-decoding': 'mtp',
            'conc-list': [8],
          },
        ],
        { 'dram-utilization': 0.8 },
        { 'model-prefix': 'p' },
      ),
      'p-gb200': agenticSingle(
        'cluster:gb200-nv',
        [{ tp: 2, 'kv-offloading': 'dram', 'kv-offload-backend': { name: 'native' }, 'conc-list': [1] }],
        { 'dram-utilization': 0.5 },
        { 'model-prefix': 'p' },
      ),
    };
    const rows = await sweep(doc);
    expect(rows.map((r) => r['exp-name'])).toEqual([
      'p_tp8_conc1_kvnone_spec-mtp',
      'p_tp8_conc8_kvdram-hicache_spec-mtp',
      'p_tp2_conc1_kvdram-native',
    ]);
    // gb200-nv: 860160 MiB, 4 GPUs per node, util 0.5, tp 2 → 225.
    expect(rows[2]['total-cpu-dram-gb']).toBe(225);
  });

  it('29: kv dram on a runner without hardware metadata raises the exact message', async () => {
    const runners = {
      labels: { 'cluster:x': ['x_0'] },
      hardware: { 'cluster:y': { 'available-cpu-dram-mib': 2964436, 'gpus-per-node': 8 } },
    };
    const doc = {
      'x-agentic': agenticSingle(
        'cluster:x',
        [{ tp: 8, 'kv-offloading': 'dram', 'kv-offload-backend': { name: 'hicache' }, 'conc-list': [4] }],
        { 'dram-utilization': 0.8 },
      ),
    };
    const { configs, runners: rc } = await load(doc, runners);
    const err = matrixErrorOf(() => testConfig(configs, rc, { configKeys: ['x-agentic'] }));
    expect(err.message).toContain(
      "Runner 'cluster:x' requires 'available-cpu-dram-mib' in runner hardware metadata. Available hardware keys: cluster:y",
    );
  });

  it('29: kv-offloading none never consults hardware and gives total-cpu-dram-gb 0', async () => {
    const runners = { labels: { 'cluster:x': ['x_0'] } };
    const doc = {
      'x-agentic': agenticSingle('cluster:x', [{ tp: 8, 'kv-offloading': 'none', 'conc-list': [4] }]),
    };
    const rows = await testCfg(doc, { configKeys: ['x-agentic'] }, runners);
    expect(rows.map((r) => [r.conc, r['kv-offloading'], r['total-cpu-dram-gb']])).toEqual([[4, 'none', 0]]);
  });
});

// ---------------------------------------------------------------------------------------------------------

// Row builders shared with the other suites (test/rows.ts), typed loosely here like the fixtures.
const sn = (o: Doc = {}): Doc => fixedRow(o);
const mn = (conc: number[], o: Doc = {}): Doc => multiRow(conc, o);
const sa = (tp: number, conc: number, o: Doc = {}): Doc => agenticRow(tp, conc, o);
const ma = (conc: number, o: Doc = {}): Doc => multiAgenticRow(conc, o);

const runEval = (rows: Doc[]) => rows.map((r) => r['run-eval']);

describe('Eval selection', () => {
  it('30: 8k1k rows at conc 8, 16, 32, 64 give run-eval [false, false, true, true]', () => {
    const rows = [8, 16, 32, 64].map((conc) => sn({ conc }));
    markEvalEntries(asRows(rows), false);
    expect(runEval(rows)).toEqual([false, false, true, true]);
  });

  it('30: rows at conc 32, 128, 512 give [false, true, true]', () => {
    const rows = [32, 128, 512].map((conc) => sn({ conc }));
    markEvalEntries(asRows(rows), false);
    expect(runEval(rows)).toEqual([false, true, true]);
  });

  it('30: a 1k1k row with conc 512 gives false', () => {
    const rows = [sn({ isl: 1024, conc: 512, 'max-model-len': 2304, 'exp-name': 'x_1k1k' })];
    markEvalEntries(asRows(rows), false);
    expect(runEval(rows)).toEqual([false]);
  });

  it('31: tp4 at 16/32/64/128 and tp8 at 8/64/256 in one group mark only tp4@64, tp8@64, tp8@256', () => {
    const rows = [
      ...[16, 32, 64, 128].map((conc) => sn({ tp: 4, conc })),
      ...[8, 64, 256].map((conc) => sn({ tp: 8, conc })),
    ];
    markEvalEntries(asRows(rows), false);
    expect(rows.filter((r) => r['run-eval']).map((r) => [r.tp, r.conc])).toEqual([
      [4, 64],
      [8, 64],
      [8, 256],
    ]);
    expect(runEval(rows)).toEqual([false, false, true, false, false, true, true]);
  });

  it('31: a dp-attn=true row (tp8@128) forms its own group and is marked', () => {
    const rows = [
      ...[16, 32, 64, 128].map((conc) => sn({ tp: 4, conc })),
      ...[8, 64, 256].map((conc) => sn({ tp: 8, conc })),
      sn({ tp: 8, conc: 128, 'dp-attn': true }),
    ];
    markEvalEntries(asRows(rows), false);
    expect(runEval(rows)).toEqual([false, false, true, false, false, true, true, true]);
  });

  it('31: the tp4 group {16, 32, 64, 128} alone marks 64 and 128', () => {
    const rows = [16, 32, 64, 128].map((conc) => sn({ tp: 4, conc }));
    markEvalEntries(asRows(rows), false);
    expect(runEval(rows)).toEqual([false, false, true, true]);
  });

  it('32: topologies [8, 16, 32] and [8, 16, 64] give (true, 32) and (true, 64)', () => {
    const rows = [mn([8, 16, 32]), mn([8, 16, 64], { prefill: rowWorker(2, 4) })];
    markEvalEntries(asRows(rows), false);
    expect(rows.map((r) => [r['run-eval'], r['eval-conc']])).toEqual([
      [true, 32],
      [true, 64],
    ]);
  });

  it('32: a topology with only [1] gives run-eval false and no eval-conc', () => {
    const rows = [mn([1])];
    markEvalEntries(asRows(rows), false);
    expect(rows[0]['run-eval']).toBe(false);
    expect('eval-conc' in rows[0]).toBe(false);
  });

  it('32: split rows [2, 4, 8, 16, 32] and [64, 128, 256] of one topology mark only the second (256)', () => {
    const rows = [mn([2, 4, 8, 16, 32]), mn([64, 128, 256])];
    markEvalEntries(asRows(rows), false);
    expect(rows.map((r) => [r['run-eval'], r['eval-conc'] ?? null])).toEqual([
      [false, null],
      [true, 256],
    ]);
  });

  it('32: worker counts (1, 1), (2, 1) and (1, 2) are three groups, each marked', () => {
    const rows = [
      mn([16, 32], { prefill: rowWorker(1, 4), decode: rowWorker(1, 8) }),
      mn([16, 32], { prefill: rowWorker(2, 4), decode: rowWorker(1, 8) }),
      mn([16, 32], { prefill: rowWorker(1, 4), decode: rowWorker(2, 8) }),
    ];
    markEvalEntries(asRows(rows), false);
    expect(rows.map((r) => [r['run-eval'], r['eval-conc']])).toEqual([
      [true, 32],
      [true, 32],
      [true, 32],
    ]);
  });

  it('33: in default mode no agentic row is marked', () => {
    const rows = [sa(8, 32), sa(8, 64), ma(16), ma(32)];
    markEvalEntries(asRows(rows), false);
    expect(runEval(rows)).toEqual([false, false, false, false]);
    expect(rows.some((r) => 'eval-conc' in r)).toBe(false);
  });

  it('33: with include_agentic, single-node rows at conc 32 and 64 mark only 64', () => {
    const rows = [sa(8, 32), sa(8, 64)];
    markEvalEntries(asRows(rows), true);
    expect(runEval(rows)).toEqual([false, true]);
  });

  it('33: rows tp4@64, tp8@64 and tp8@2 mark only the first (tie broken by the earlier row)', () => {
    const rows = [sa(4, 64), sa(8, 64), sa(8, 2)];
    markEvalEntries(asRows(rows), true);
    expect(runEval(rows)).toEqual([true, false, false]);
  });

  it('33: rows tp4@2 and tp8@4 mark tp8@4 (no >= 16 threshold)', () => {
    const rows = [sa(4, 2), sa(8, 4)];
    markEvalEntries(asRows(rows), true);
    expect(runEval(rows)).toEqual([false, true]);
  });

  it('33: multi-node agentic rows [8], [16], [32] of one topology mark only [32] with eval-conc 32', () => {
    const rows = [ma(8), ma(16), ma(32)];
    markEvalEntries(asRows(rows), true);
    expect(rows.map((r) => [r['run-eval'], r['eval-conc'] ?? null])).toEqual([
      [false, null],
      [false, null],
      [true, 32],
    ]);
  });

  it('33: two multi-node agentic topologies at (16, 32) and (64, 96) mark the 32 row and the 96 row', () => {
    const other = { prefill: rowWorker(2, 4) };
    const rows = [ma(16), ma(32), ma(64, other), ma(96, other)];
    markEvalEntries(asRows(rows), true);
    expect(rows.map((r) => [r['run-eval'], r['eval-conc'] ?? null])).toEqual([
      [false, null],
      [true, 32],
      [false, null],
      [true, 96],
    ]);
  });

  /** The all-evals pipeline: default marking with agentic included, then the expansion (§5.4, §7.2). */
  const allEvals = (rows: Doc[]): Doc[] => {
    markEvalEntries(asRows(rows), true);
    return markAllEvalEntries(asRows(rows)) as Doc[];
  };

  it('34: multi-node fixed rows [1, 4, 8, 16] (dp-attn false) and [32] (dp-attn true) give 2 eval-all-concs rows', () => {
    const dpa = {
      prefill: rowWorker(1, 4, { 'dp-attn': true }),
      decode: rowWorker(1, 8, { 'dp-attn': true }),
    };
    const out = allEvals([mn([1, 4, 8, 16]), mn([32], dpa)]);
    expect(out).toHaveLength(2);
    expect(out.map((r) => [r.conc, r['run-eval'], r['eval-all-concs']])).toEqual([
      [[1, 4, 8, 16], true, true],
      [[32], true, true],
    ]);
    expect(out.some((r) => 'eval-conc' in r)).toBe(false);
  });

  it('34: overlapping rows [4, 8, 16] and [16, 32] of one topology merge into [4, 8, 16, 32]', () => {
    const out = allEvals([mn([4, 8, 16]), mn([16, 32])]);
    expect(out).toHaveLength(1);
    expect(out[0].conc).toEqual([4, 8, 16, 32]);
    expect(out[0]['run-eval']).toBe(true);
    expect(out[0]['eval-all-concs']).toBe(true);
    expect('eval-conc' in out[0]).toBe(false);
  });

  it('34: a 1k1k multi-node row is unchanged (run-eval false, no eval-all-concs)', () => {
    const row = mn([16, 32, 64], { isl: 1024, 'max-model-len': 2304, 'exp-name': 'x_1k1k' });
    const before = clone(row);
    const out = allEvals([row]);
    expect(out).toHaveLength(1);
    expect(out[0]['run-eval']).toBe(false);
    expect('eval-all-concs' in out[0]).toBe(false);
    expect(out[0]).toEqual(before);
  });

  it('34: multi-node agentic rows [2], [16], [32] merge into [2, 16, 32] with eval-conc 32', () => {
    const out = allEvals([ma(2), ma(16), ma(32)]);
    expect(out).toHaveLength(1);
    expect(out[0].conc).toEqual([2, 16, 32]);
    expect(out[0]['run-eval']).toBe(true);
    expect(out[0]['eval-conc']).toBe(32);
    expect('eval-all-concs' in out[0]).toBe(false);
  });

  it('34: a single-node agentic row gets run-eval true and no eval-conc', () => {
    const out = allEvals([sa(8, 4)]);
    expect(out).toHaveLength(1);
    expect(out[0]['run-eval']).toBe(true);
    expect('eval-conc' in out[0]).toBe(false);
  });

  describe('35: CLI on S', () => {
    const cli = async (doc: Doc, key: string, extra: string[]) => {
      const result = await runCli([
        'matrix',
        'test-config',
        '--no-cache',
        '--config-files',
        write(doc),
        '--runner-config',
        write(R, 'runners'),
        '--config-keys',
        key,
        ...extra,
      ]);
      return { ...result, rows: result.code === 0 ? (JSON.parse(result.stdout) as Doc[]) : [] };
    };

    it('35: test-config in default mode gives 10 rows; only 8k1k conc 32 and 64 run evals', async () => {
      const { code, rows, stderr } = await cli(S, S_KEY, []);
      expect(stderr).toBe('');
      expect(code).toBe(0);
      expect(rows).toHaveLength(10);
      expect(rows.filter((r) => r['run-eval'] === true).map((r) => [r.isl, r.conc])).toEqual([
        [8192, 32],
        [8192, 64],
      ]);
      expect(rows.every((r) => typeof r['run-eval'] === 'boolean')).toBe(true);
      expect(rows.some((r) => 'eval-only' in r)).toBe(false);
    });

    it('35: --evals-only gives 2 rows (8k1k, conc 32 and 64) with eval-only true', async () => {
      const { code, rows } = await cli(S, S_KEY, ['--evals-only']);
      expect(code).toBe(0);
      expect(rows.map((r) => [r.isl, r.conc, r['run-eval'], r['eval-only']])).toEqual([
        [8192, 32, true, true],
        [8192, 64, true, true],
      ]);
    });

    it.each([[['--all-evals']], [['--all-evals', '--evals-only']]])(
      '35: %j gives 5 rows, all 8k1k from conc 4, run-eval and eval-only true',
      async (flags) => {
        const { code, rows } = await cli(S, S_KEY, flags);
        expect(code).toBe(0);
        expect(rows).toHaveLength(5);
        expect(rows.every((r) => r.isl === 8192 && r.osl === 1024)).toBe(true);
        expect(Math.min(...rows.map((r) => r.conc))).toBe(4);
        expect(concs(rows)).toEqual([4, 8, 16, 32, 64]);
        expect(rows.every((r) => r['run-eval'] === true && r['eval-only'] === true)).toBe(true);
      },
    );

    it('35: M at 8k1k with conc-list [4, 16, 64] and --all-evals gives 1 row with eval-all-concs', async () => {
      const doc = mWith([{ 'conc-list': [4, 16, 64] }], {}, 8192, 1024);
      const { code, rows } = await cli(doc, M_KEY, ['--all-evals']);
      expect(code).toBe(0);
      expect(rows).toHaveLength(1);
      expect(rows[0].conc).toEqual([4, 16, 64]);
      expect(rows[0]['eval-all-concs']).toBe(true);
      expect(rows[0]['run-eval']).toBe(true);
      expect(rows[0]['eval-only']).toBe(true);
      expect('eval-conc' in rows[0]).toBe(false);
    });

    it('35: --no-evals --all-evals exits with code 2', async () => {
      const { code, stderr, stdout } = await cli(S, S_KEY, ['--no-evals', '--all-evals']);
      expect(code).toBe(2);
      expect(stderr).toContain('--all-evals cannot be combined with --no-evals');
      expect(stdout).toBe('');
    });
  });
});
