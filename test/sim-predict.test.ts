import { describe, expect, it } from 'vitest';
import { runCli } from './helpers.ts';

/** `infx sim predict` through the CLI: stdin or a file in, a line or JSON per point out. */

const row = {
  image: 'lmsysorg/sglang:v0.5.12-cu130',
  model: 'deepseek-ai/DeepSeek-R1-0528',
  'model-prefix': 'dsr1',
  precision: 'fp8',
  framework: 'sglang',
  runner: 'h200-dgxc',
  isl: 1024,
  osl: 256,
  tp: 8,
  pp: 1,
  'dcp-size': 1,
  'pcp-size': 1,
  conc: 4,
  'max-model-len': 2048,
  ep: 1,
  'dp-attn': false,
  'spec-decoding': 'none',
  'exp-name': 'dsr1_1k1k',
  disagg: false,
  'run-eval': false,
};

const cli = (args: string[], stdin = '') => runCli(['sim', 'predict', ...args], stdin);

describe('infx sim predict', () => {
  it('prints one line per point from stdin, or JSON with --format json', async () => {
    const text = await cli([], JSON.stringify([{ ...row, conc: [1, 4] }]));
    expect(text.code).toBe(0);
    expect(text.stdout.trim().split('\n')).toHaveLength(2);
    const json = await cli(['--format', 'json'], JSON.stringify([row]));
    const parsed = JSON.parse(json.stdout);
    expect(parsed[0]).toMatchObject({ status: 'ok', conc: 4, prediction: { gpus: 8 } });
  });

  it('exits 1 with the catalog message for an unknown model, and on bad input', async () => {
    const bad = await cli([], JSON.stringify([{ ...row, model: 'acme/Nope-1T', 'model-prefix': 'nope' }]));
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^error: .*unknown model 'acme\/Nope-1T'/);
    expect((await cli([], '')).code).toBe(1);
    expect((await cli([], '{not json')).stderr).toMatch(/not valid JSON/);
    expect((await cli(['/nonexistent/rows.json'])).stderr).toMatch(/does not exist/);
  });
});
