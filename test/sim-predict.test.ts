import { describe, expect, it } from 'vitest';
import { runCli } from './helpers.ts';
import { dsr1H200Row } from './rows.ts';

/** `infx sim predict` through the CLI: stdin or a file in, a line or JSON per point out. */

const row = dsr1H200Row();

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

  it('--exact runs the full co-simulation: the same figures without spec decoding; --fast conflicts with it', async () => {
    const rows = JSON.stringify([{ ...row, conc: [1, 64] }]);
    const fast = await cli(['--format', 'json'], rows);
    const exact = await cli(['--format', 'json', '--exact'], rows);
    expect(exact.code).toBe(0);
    const figures = (text: string) =>
      (JSON.parse(text) as { prediction: { throughputPerGpu: number; ttftMs: unknown } }[]).map((o) => [
        o.prediction.throughputPerGpu,
        o.prediction.ttftMs,
      ]);
    expect(figures(fast.stdout)).toEqual(figures(exact.stdout));
    const both = await cli(['--exact', '--fast'], rows);
    expect(both.code).not.toBe(0);
    expect(both.stderr).toMatch(/--exact.*cannot be used with.*--fast|--fast.*cannot be used with.*--exact/);
  });
});
