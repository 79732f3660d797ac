import { describe, expect, it } from 'vitest';
import { type CheckReport, CheckReportSchema } from '../src/schema/check-finding.ts';
import { runCli, tmpDir, writeYaml } from './helpers.ts';
import { fixedRow } from './rows.ts';

/**
 * The current-generation catalog entries (src/catalog/models-current.ts) through the two commands that read
 * them: `infx sim predict` on matrix rows and `infx check` on a master config.
 */

const qwenH200 = fixedRow({
  image: 'lmsysorg/sglang:v0.5.12-cu130',
  model: 'Qwen/Qwen3-235B-A22B-FP8',
  'model-prefix': 'qwen3-235b',
  precision: 'fp8',
  framework: 'sglang',
  runner: 'h200',
  isl: 1024,
  osl: 1024,
  tp: 8,
  conc: 64,
  'max-model-len': 2048,
  'exp-name': 'qwen3-235b_1k1k',
});

const gptossH100 = fixedRow({
  image: 'vllm/vllm-openai:v0.11.0',
  model: 'openai/gpt-oss-20b',
  'model-prefix': 'gptoss20b',
  precision: 'fp4',
  framework: 'vllm',
  runner: 'h100',
  isl: 1024,
  osl: 1024,
  tp: 1,
  conc: 64,
  'max-model-len': 2048,
  'exp-name': 'gptoss20b_1k1k',
});

interface Predicted {
  status: string;
  model: string;
  prediction: { gpus: number; throughputPerGpu: number; kvCapacityTokens: number } | null;
}

describe('infx sim predict on the new models', () => {
  it('predicts Qwen3-235B-A22B FP8 on 8xH200 and gpt-oss-20b on one H100', async () => {
    const r = await runCli(['sim', 'predict', '--format', 'json'], JSON.stringify([qwenH200, gptossH100]));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const [qwen, oss] = JSON.parse(r.stdout) as Predicted[];
    expect(qwen).toMatchObject({ status: 'ok', prediction: { gpus: 8 } });
    expect(oss).toMatchObject({ status: 'ok', prediction: { gpus: 1 } });
    expect(qwen!.prediction!.throughputPerGpu).toBeGreaterThan(0);
    expect(oss!.prediction!.throughputPerGpu).toBeGreaterThan(0);
    // A Qwen3-235B token costs one 128-wide KV head per rank over 94 layers (24,064 B at fp8, twice that at
    // bf16, whichever KV dtype the simulator picks); a gpt-oss-20b token 24,576 B at bf16 (12 full layers).
    // Both engines hold far more than the 64 x 2048 tokens these points run.
    expect(qwen!.prediction!.kvCapacityTokens).toBeGreaterThan(64 * 2048);
    expect(oss!.prediction!.kvCapacityTokens).toBeGreaterThan(64 * 2048);
  });
});

const MASTER = {
  'qwen3-235b-fp8-h200-sglang': {
    image: 'lmsysorg/sglang:v0.5.12-cu130',
    model: 'Qwen/Qwen3-235B-A22B-FP8',
    'model-prefix': 'qwen3-235b',
    runner: 'h200',
    precision: 'fp8',
    framework: 'sglang',
    multinode: false,
    scenarios: {
      'fixed-seq-len': [{ isl: 1024, osl: 1024, 'search-space': [{ tp: 8, ep: 1, 'conc-list': [4, 64] }] }],
    },
  },
  'gptoss20b-fp4-h100-vllm': {
    image: 'vllm/vllm-openai:v0.11.0',
    model: 'openai/gpt-oss-20b',
    'model-prefix': 'gptoss20b',
    runner: 'h100',
    precision: 'fp4',
    framework: 'vllm',
    multinode: false,
    scenarios: {
      'fixed-seq-len': [{ isl: 1024, osl: 1024, 'search-space': [{ tp: 1, ep: 1, 'conc-list': [4, 64] }] }],
    },
  },
  // 235B parameters at bf16 are 470 GB: 109.4 GiB per rank at TP4 does not fit 80 GiB x 0.9; TP8 does.
  'qwen3-235b-bf16-h100-vllm': {
    image: 'vllm/vllm-openai:v0.11.0',
    model: 'Qwen/Qwen3-235B-A22B',
    'model-prefix': 'qwen3-235b',
    runner: 'h100',
    precision: 'bf16',
    framework: 'vllm',
    multinode: false,
    scenarios: {
      'fixed-seq-len': [
        {
          isl: 1024,
          osl: 1024,
          'search-space': [
            { tp: 4, ep: 1, 'conc-list': [4] },
            { tp: 8, ep: 1, 'conc-list': [4] },
          ],
        },
      ],
    },
  },
};

describe('infx check on the new models', () => {
  it('finds the FP8 and MXFP4 points feasible and Qwen3-235B bf16 at TP4 on H100 not', async () => {
    const dir = tmpDir();
    const master = writeYaml(dir, 'master.yaml', MASTER);
    const runners = writeYaml(dir, 'runners.yaml', {
      labels: { h200: ['h200-dgxc_00'], h100: ['h100-cw_00'] },
    });
    const r = await runCli([
      'check',
      '--config-files',
      master,
      '--runner-config',
      runners,
      '--format',
      'json',
      '--no-cache',
    ]);
    const report: CheckReport = CheckReportSchema.parse(JSON.parse(r.stdout));
    expect(report.summary).toMatchObject({ configs: 3, points: 6, errors: 1, warnings: 0 });
    expect(r.code).toBe(1);
    const [error] = report.findings;
    expect(error).toMatchObject({
      severity: 'error',
      rule: 'memory.weights',
      configKey: 'qwen3-235b-bf16-h100-vllm',
      point: 'tp=4 ep=1 conc=4 isl=1024 osl=1024',
    });
    expect(error!.numbers).toMatchObject({ weightsGiB: 109.4 });
    for (const key of ['qwen3-235b-fp8-h200-sglang', 'gptoss20b-fp4-h100-vllm'])
      expect(report.findings.filter((f) => f.configKey === key)).toEqual([]);
  });
});
