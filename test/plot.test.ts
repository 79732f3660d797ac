import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { inkedPixels } from '../src/analysis/png.ts';
import { PointResultSchema } from '../src/schema/point-result.ts';
import { HAND_SET_LABEL, handSetRun, resultFiles, smallSweep, syntheticRun } from './analysis-helpers.ts';
import { runCli, tmpDir } from './helpers.ts';
import { syntheticRow, writeSyntheticRun } from './support/synthetic.ts';

/** `infx plot` writes an SVG and a PNG chart of a real run directory (a small simulated sweep). */

let runDir: string;
let validPoints: number;
beforeAll(async () => {
  runDir = await smallSweep('plotted');
  validPoints = [...resultFiles(runDir).values()].filter(
    (f) => PointResultSchema.parse(JSON.parse(readFileSync(f, 'utf8'))).valid,
  ).length;
}, 60_000);

/** Tags open and close in order (no XML parser in the dependencies; this catches broken markup). */
function balanced(svg: string): boolean {
  const stack: string[] = [];
  for (const m of svg.matchAll(/<(\/?)([a-zA-Z][\w-]*)[^>]*?(\/?)>/g)) {
    const [, close, name, self] = m;
    if (self === '/') continue;
    if (close === '/') {
      if (stack.pop() !== name) return false;
    } else stack.push(name as string);
  }
  return stack.length === 0;
}

const ihdr = (png: Buffer) => ({ width: png.readUInt32BE(16), height: png.readUInt32BE(20) });

describe('infx plot', () => {
  it('an SVG: one series for the config, a circle per valid point', async () => {
    const out = join(tmpDir(), 'chart.svg');
    const r = await runCli(['plot', runDir, '--out', out, '--title', 'H100 & friends']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`wrote ${out} (960×600, 1 series, ${validPoints} points)`);
    expect(existsSync(out)).toBe(true);
    expect(statSync(out).size).toBeGreaterThan(2000);
    const svg = readFileSync(out, 'utf8');
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" width="960" height="600"/);
    expect(balanced(svg)).toBe(true);
    expect(svg).toContain('H100 &amp; friends');
    expect(svg).toMatch(/<g class="series" data-series="plotted\|llama8b\|h100\|vllm\|bf16\|[^"]*">/);
    // The sweep ran on the simulated engine: its series says so, and so does the chart's note.
    expect(svg).toContain('<title>h100 vllm bf16 tp1 (simulated)</title>');
    expect(svg).toMatch(/<text x="[\d.]+" y="[\d.]+">h100 vllm bf16 tp1 \(simulated\)<\/text>/);
    expect(r.stderr).toMatch(
      /note: every series simulated \(infx's simulated engine infx-sim\/[^)]*\), not measured on real hardware/,
    );
    expect(validPoints).toBeGreaterThan(0);
    expect(svg.match(/<circle /g)).toHaveLength(validPoints);
  });

  it('a PNG of the requested size, not blank', async () => {
    const dir = tmpDir();
    const out = join(dir, 'chart.png');
    const r = await runCli(['plot', runDir, '--out', out, '--width', '800', '--height', '500']);
    expect(r.code, r.stderr).toBe(0);
    const png = readFileSync(out);
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(ihdr(png)).toEqual({ width: 800, height: 500 });
    expect(png.length).toBeGreaterThan(5000);
    // The same chart as SVG, rasterized: thousands of pixels are not background.
    const svgOut = join(dir, 'chart.svg');
    await runCli(['plot', runDir, '--out', svgOut, '--width', '800', '--height', '500']);
    expect(await inkedPixels(readFileSync(svgOut, 'utf8'))).toBeGreaterThan(3000);
  });

  it('several runs overlay, each its own series; other x axes', async () => {
    const copy = syntheticRun(runDir, 'copy', {});
    const out = join(tmpDir(), 'overlay.svg');
    const r = await runCli(['plot', runDir, copy, '--out', out, '--x', 'e2el', '--y-scale', 'log']);
    expect(r.code, r.stderr).toBe(0);
    const svg = readFileSync(out, 'utf8');
    expect(svg.match(/<g class="series" /g)).toHaveLength(2);
    expect(svg).toContain('h100 vllm bf16 tp1 (plotted, simulated)');
    expect(svg).toContain('h100 vllm bf16 tp1 (copy, simulated)');
    expect(svg).toContain('End-to-end latency (s)');
    const ttft = await runCli(['plot', runDir, '--out', join(tmpDir(), 'ttft.svg'), '--x', 'ttft']);
    expect(ttft.code, ttft.stderr).toBe(0);
  });

  it('a simulated and a real run of one config: two series, only the simulated one labelled so', async () => {
    const metrics = { 1: [120, 500], 2: [100, 900] } as Record<number, [number, number]>;
    const real = handSetRun('measured', metrics);
    const sim = handSetRun('predicted', metrics, undefined, { engine: 'simulated' });
    const out = join(tmpDir(), 'both.svg');
    const r = await runCli(['plot', real, sim, '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    const svg = readFileSync(out, 'utf8');
    const config = HAND_SET_LABEL.replace(/^dsr1 1k\/1k /, '');
    expect(svg).toContain(`<title>${config} (measured)</title>`);
    expect(svg).toContain(`<title>${config} (predicted, simulated)</title>`);
    expect(r.stderr).toContain(
      "note: 1 of 2 series simulated (infx's simulated engine infx-sim/synthetic), not measured on real hardware",
    );
  });

  it('bad flags exit 2; a run that is not there exits 1', async () => {
    expect((await runCli(['plot', runDir, '--out', 'chart.jpg'])).code).toBe(2);
    expect((await runCli(['plot', runDir, '--out', 'c.svg', '--x', 'conc'])).code).toBe(2);
    expect((await runCli(['plot', runDir, '--out', 'c.svg', '--width', '12'])).code).toBe(2);
    expect((await runCli(['plot', '--out', 'c.svg'])).code).toBe(2);
    const noDb = ['--db', join(tmpDir(), 'none.db')];
    const missing = await runCli(['plot', '/nonexistent/run', '--out', join(tmpDir(), 'c.svg'), ...noDb]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("'/nonexistent/run' is not a run directory");
    const unwritable = await runCli(['plot', runDir, '--out', '/nonexistent/dir/c.svg']);
    expect(unwritable.code).toBe(1);
    expect(unwritable.stderr).toContain('cannot write /nonexistent/dir/c.svg');
  });

  it('says which points it left out and why: no result, invalid', async () => {
    const row = syntheticRow();
    const reason = "the engine's server process exited before it was ready (exit code 1): OSError: disk full";
    const dir = writeSyntheticRun(tmpDir(), 'partly', [
      { row, conc: 1, attempts: [{ kind: 'ok' }] },
      { row, conc: 2, attempts: [{ kind: 'ok' }] },
      { row, conc: 4, attempts: [{ kind: 'failed', phase: 'setup', reason }] },
    ]);
    const conc2 = resultFiles(dir).get(2) as string;
    writeFileSync(conc2, JSON.stringify({ ...JSON.parse(readFileSync(conc2, 'utf8')), valid: false }));
    const out = join(tmpDir(), 'partly.svg');
    const r = await runCli(['plot', dir, '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('1 series, 1 point)');
    expect(r.stderr).toContain(
      'note: left out 2 of 3 points: 1 without a usable result (failed or not run), 1 invalid\n',
    );
    expect(r.stderr).toMatch(/note: {3}\S+_conc4: attempt 1: .*OSError: disk full/);
  });

  it('nothing plottable: exit 1, why, and no file', async () => {
    const row = syntheticRow();
    const failed = { kind: 'failed', phase: 'warmup', reason: 'every warmup request failed' } as const;
    const dir = writeSyntheticRun(tmpDir(), 'none-ok', [
      { row, conc: 1, attempts: [failed] },
      { row, conc: 2, attempts: [failed] },
    ]);
    const out = join(tmpDir(), 'none.svg');
    const r = await runCli(['plot', dir, '--out', out]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `error: nothing to plot: ${dir} has no valid point to draw (left out 2 of 2 points: 2 without a usable ` +
        'result (failed or not run)); no file written',
    );
    expect(r.stderr).toContain('every warmup request failed');
    expect(existsSync(out)).toBe(false);
  });
});
