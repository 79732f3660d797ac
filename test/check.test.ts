import { join } from 'node:path';
import { Command, CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { GIB, model, weightBytesPerRank } from '../src/catalog/index.ts';
import { registerCheck } from '../src/cli/check.ts';
import type { CliIO } from '../src/cli/io.ts';
import { type CheckFinding, type CheckReport, CheckReportSchema } from '../src/schema/check-finding.ts';
import { FIXTURES_SKIP_REASON, fixture, fixturesAvailable, REPO_ROOT } from './helpers.ts';

const DATA = join(REPO_ROOT, 'test/data/check');
const MASTER = join(DATA, 'master.yaml');
const UNKNOWN = join(DATA, 'unknown.yaml');
const RUNNERS = join(DATA, 'runners.yaml');

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** `infx check …` in-process, wired the way src/cli/main.ts wires every command. */
async function check(args: string[]): Promise<Result> {
  let stdout = '';
  let stderr = '';
  let code = 0;
  const io: CliIO = {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    readStdin: async () => '',
    isTTY: false,
  };
  const program = new Command()
    .name('infx')
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
  registerCheck(program, io, (c) => {
    code = c;
  });
  for (const cmd of program.commands)
    cmd.exitOverride().configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
  try {
    await program.parseAsync(['check', ...args], { from: 'user' });
  } catch (err) {
    if (!(err instanceof CommanderError)) throw err;
    code = 2;
  }
  return { code, stdout, stderr };
}

async function json(args: string[]): Promise<{ code: number; report: CheckReport }> {
  const r = await check([...args, '--format', 'json']);
  return { code: r.code, report: CheckReportSchema.parse(JSON.parse(r.stdout)) };
}

const ofKey = (report: CheckReport, key: string) => report.findings.filter((f) => f.configKey === key);
const errorsOf = (fs: CheckFinding[]) => fs.filter((f) => f.severity === 'error');
const gib1 = (bytes: number) => (bytes / GIB).toFixed(1);

describe('infx check: the reviewed TP=2 case (DeepSeek-V4 on MI355X, 288 GB, 0.9)', () => {
  const KEY = 'dsv4-fp4-mi355x-vllm-agentic-review';
  const tp2Weights = gib1(weightBytesPerRank(model('dsv4'), 'fp4', { tp: 2, pp: 1, ep: 1, dpAttn: false }));
  const tp4Weights = gib1(weightBytesPerRank(model('dsv4'), 'fp4', { tp: 4, pp: 1, ep: 1, dpAttn: false }));

  it('flags every TP=2 point with memory.weights, in GiB against 288 GiB × 0.9, and passes TP=4', async () => {
    const { code, report } = await json([
      '--config-files',
      MASTER,
      '--runner-config',
      RUNNERS,
      '--config-keys',
      KEY,
    ]);
    expect(code).toBe(1);
    const fs = ofKey(report, KEY);
    const tp2 = errorsOf(fs).filter((f) => f.topology === 'tp=2 ep=1 kv=none');
    expect(tp2.map((f) => f.conc)).toEqual([1, 2, 4, 8, 16, 32, 64, 128]);
    for (const f of tp2) {
      expect(f.rule).toBe('memory.weights');
      expect(f.point).toBe(`tp=2 ep=1 conc=${f.conc} kv=none`);
      expect(f.hardware).toBe('mi355x');
      expect(f.file).toBe(MASTER);
      expect(f.message).toContain(
        `needs ${tp2Weights} GiB of weights per rank; budget 259.2 GiB (288 GiB × 0.9); nothing left for KV`,
      );
      // One 1M-token sequence: the engine runs agentic points at the model's native context.
      expect(f.message).toMatch(/needs ≥ \d+\.\d GiB for one 1048576-token sequence/);
      expect(f.fix).toContain(`raise tp: tp=4 needs ${tp4Weights} GiB of weights per rank`);
      expect(f.numbers.budgetGiB).toBe(259.2);
      expect(f.numbers.weightsGiB).toBeGreaterThan(259.2);
    }
    // TP=4 fits: no errors (fan-out warnings at high concurrency are allowed).
    expect(errorsOf(fs).filter((f) => f.topology?.startsWith('tp=4'))).toEqual([]);
    expect(report.summary.pointsWithErrors).toBe(8);
    expect(report.configs).toEqual([{ configKey: KEY, file: MASTER, points: 16 }]);
  });

  it('prints the finding once per topology with the other concurrencies, then a summary', async () => {
    const r = await check(['--config-files', MASTER, '--runner-config', RUNNERS, '--config-keys', KEY]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`${KEY} (${MASTER}): 16 points: 8 errors`);
    expect(r.stdout).toContain('  error   memory.weights  tp=2 ep=1 conc=1 kv=none  [mi355x]\n');
    expect(r.stdout).toContain('same at conc=2, 4, 8, 16, 32, 64, 128');
    expect(r.stdout).toMatch(
      /summary: 1 config \(0 without findings\), 16 points at gpu-memory-utilization 0\.9: 8 errors \(8 points in 1 config\)/,
    );
    expect(r.stdout.indexOf('error   memory.weights')).toBeLessThan(r.stdout.indexOf('note    '));
  });

  it('states the fan-out requirement as a note when no row sets max-num-seqs', async () => {
    const { report } = await json([
      '--config-files',
      MASTER,
      '--runner-config',
      RUNNERS,
      '--config-keys',
      KEY,
    ]);
    const notes = ofKey(report, KEY).filter((f) => f.severity === 'note');
    expect(notes).toHaveLength(1);
    expect(notes[0]!.rule).toBe('agentic.max-num-seqs');
    expect(notes[0]!.message).toContain('max-num-seqs ≥ 256 (2 × conc 128');
  });

  it('a larger budget does not rescue TP=2 and is reported as used', async () => {
    const { report } = await json([
      '--config-files',
      MASTER,
      '--runner-config',
      RUNNERS,
      '--config-keys',
      KEY,
      '--gpu-memory-utilization',
      '0.95',
    ]);
    expect(report.gpuMemoryUtilization).toBe(0.95);
    expect(errorsOf(ofKey(report, KEY))[0]!.message).toContain('budget 273.6 GiB (288 GiB × 0.95)');
  });
});

describe('infx check: fixed-seq-len, multi-node and fan-out', () => {
  it('8k1k at conc 64: TP=2 cannot hold the weights (KV need 64×9216 tokens), TP=4 fits', async () => {
    const KEY = 'dsv4-fp4-mi355x-vllm-8k1k';
    const { report } = await json([
      '--config-files',
      MASTER,
      '--runner-config',
      RUNNERS,
      '--config-keys',
      KEY,
    ]);
    const errors = errorsOf(ofKey(report, KEY));
    expect(errors).toHaveLength(1);
    expect(errors[0]!.point).toBe('tp=2 ep=1 conc=64 isl=8192 osl=1024');
    expect(errors[0]!.message).toMatch(/nothing left for KV \(needs ≥ \d+\.\d GiB for 64×9216 tokens\)/);
  });

  it('MiniMax-M3 TP=2 on B200 cannot hold one 1M-token sequence (bf16 KV); TP=4 starts', async () => {
    const KEY = 'minimaxm3-fp4-b200-vllm-agentic';
    const args = ['--config-files', MASTER, '--runner-config', RUNNERS, '--config-keys', KEY];
    const auto = ofKey((await json(args)).report, KEY).filter((f) => f.rule === 'memory.kv-context');
    expect(auto.map((f) => [f.severity, f.point])).toEqual([
      ['warning', 'tp=2 ep=1 conc=1 kv=none'],
      ['warning', 'tp=2 ep=1 conc=2 kv=none'],
    ]);
    expect(auto[0]!.message).toContain('with bf16 KV the engine refuses to start; with fp8 KV it needs');
    expect(auto[0]!.fix).toContain('--kv-cache-dtype fp8');
    // With the KV dtype pinned to what the engine ran, the failure is certain.
    const pinned = await json([...args, '--kv-cache-dtype', 'bf16']);
    expect(pinned.code).toBe(1);
    const errors = errorsOf(ofKey(pinned.report, KEY));
    expect(errors.map((f) => f.point)).toEqual(['tp=2 ep=1 conc=1 kv=none', 'tp=2 ep=1 conc=2 kv=none']);
    expect(errors[0]!.message).toContain('one 1048576-token sequence');
    expect(errors[0]!.message).toContain('the engine refuses to start');
  });

  it('checks prefill and decode pools with their own parallelism', async () => {
    const { report } = await json([
      '--config-files',
      MASTER,
      '--runner-config',
      RUNNERS,
      '--config-keys',
      'dsr1-fp4-mi355x-sglang-disagg*',
    ]);
    expect(report.configs.map((c) => [c.configKey, c.points])).toEqual([
      ['dsr1-fp4-mi355x-sglang-disagg', 2],
      ['dsr1-fp4-mi355x-sglang-disagg-agentic', 1],
    ]);
    expect(ofKey(report, 'dsr1-fp4-mi355x-sglang-disagg')).toEqual([]);
    const [f] = ofKey(report, 'dsr1-fp4-mi355x-sglang-disagg-agentic');
    expect(f).toMatchObject({
      severity: 'warning',
      rule: 'agentic.max-num-seqs',
      worker: 'decode',
      point: 'prefill 1×(tp=8 ep=1) decode 1×(tp=8 ep=1) conc=48 kv=none',
      numbers: { requiredMaxNumSeqs: 96, statedMaxNumSeqs: 64 },
    });
  });
});

describe('infx check: images', () => {
  const args = ['--config-files', MASTER, '--runner-config', RUNNERS, '--config-keys', 'llama8b-*'];

  it('errors on :latest and on no tag; a release tag and a digest pass', async () => {
    const { code, report } = await json(args);
    expect(code).toBe(1);
    const byKey = (k: string) => ofKey(report, k).map((f) => [f.severity, f.rule]);
    expect(byKey('llama8b-h100-latest')).toEqual([['error', 'image.unpinned']]);
    expect(byKey('llama8b-h100-untagged')).toEqual([['error', 'image.unpinned']]);
    expect(byKey('llama8b-h100-release')).toEqual([]);
    expect(byKey('llama8b-h100-digest')).toEqual([]);
    const [latest] = ofKey(report, 'llama8b-h100-latest');
    expect(latest!.point).toBeNull();
    expect(latest!.message).toContain('vllm/vllm-openai:latest');
    expect(latest!.fix).toContain('@sha256:');
  });

  it('passes when only pinned images are checked', async () => {
    const r = await check([...args.slice(0, -1), 'llama8b-h100-release', 'llama8b-h100-digest']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('summary: 2 configs (2 without findings), 2 points');
    expect(r.stdout).toContain('0 errors');
  });
});

describe('infx check: catalog and usage errors', () => {
  it('an unknown model or accelerator is an error naming the catalog file to extend', async () => {
    const { code, report } = await json(['--config-files', UNKNOWN, '--runner-config', RUNNERS]);
    expect(code).toBe(1);
    const [m] = ofKey(report, 'acme-fp8-h100-vllm');
    expect(m).toMatchObject({ severity: 'error', rule: 'catalog.unknown-model', file: UNKNOWN });
    expect(m!.message).toContain("unknown model 'acme/Nonexistent-1T'");
    expect(m!.message).toContain('src/catalog/models.ts');
    const [h] = ofKey(report, 'llama8b-tpu-vllm');
    expect(h).toMatchObject({ severity: 'error', rule: 'catalog.unknown-hardware' });
    expect(h!.message).toContain("unknown accelerator 'tpu-v5e'");
    expect(h!.message).toContain('src/catalog/accelerators.ts');
    const text = await check(['--config-files', UNKNOWN, '--runner-config', RUNNERS]);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain('catalog.unknown-model');
    expect(text.stdout).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('an unknown config key exits 1; a bad flag exits 2', async () => {
    const missing = await check([
      '--config-files',
      MASTER,
      '--runner-config',
      RUNNERS,
      '--config-keys',
      'nope',
    ]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('Config key(s) not found: nope');
    const bad = await check(['--config-files', MASTER, '--gpu-memory-utilization', '1.5']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('must be a number in (0, 1]');
  });

  it('a config that fails validation exits 1 with its diagnostics', async () => {
    const r = await check(['--config-files', join(DATA, 'does-not-exist.yaml'), '--runner-config', RUNNERS]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error:');
  });
});

describe.skipIf(!fixturesAvailable)(
  `infx check on the reference master configs${fixturesAvailable ? '' : ` (${FIXTURES_SKIP_REASON})`}`,
  () => {
    it('checks every point and prints a summary; the JSON report validates', async () => {
      const args = [
        '--config-files',
        fixture('configs/nvidia-master.yaml'),
        fixture('configs/amd-master.yaml'),
        '--runner-config',
        fixture('configs/runners.yaml'),
      ];
      const text = await check(args);
      expect([0, 1]).toContain(text.code);
      expect(text.stdout).toMatch(
        /summary: \d+ configs \(\d+ without findings\), \d+ points at gpu-memory-utilization 0\.9: /,
      );
      const { code, report } = await json(args);
      expect(code).toBe(text.code);
      expect(report.summary.configs).toBeGreaterThan(100);
      expect(report.summary.points).toBeGreaterThan(1000);
      expect(report.ok).toBe(report.summary.errors === 0);
    });
  },
);
