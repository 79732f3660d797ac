import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { predictRows } from '../src/sim/engine/rows.ts';
import { startWebServer } from '../src/web/server.ts';
import { startCpuLoad } from './cpu-load.ts';
import { tmpDir } from './helpers.ts';
import { infx } from './sweep-helpers.ts';

/**
 * `npm run demo` end to end, non-interactively: the example sweep on the simulated engine (concurrencies up
 * to 2 here, to keep the suite short), ingest into SQLite, then the dashboard's API over what was stored:
 * unofficial (simulated results are never official) and labelled simulated. A second run reuses the first.
 * The first runs while two CPU-bound processes compete: the stored curves are still the predicted ones.
 */

describe('infx demo', () => {
  it('sweeps, stores and serves the example curves; a second run reuses them', async () => {
    const dir = tmpDir();
    const args = ['demo', '--dir', dir, '--max-conc', '2', '--exit-after-ingest'];
    const load = startCpuLoad(2);
    let first: Awaited<ReturnType<typeof infx>>;
    try {
      first = await infx(args);
    } finally {
      await load.stop();
    }
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain('infx demo: sweeping examples/demo.yaml and examples/demo-agentic.yaml');
    // The agentic point runs a shortened replay: measured, never a valid submission (under 900 s).
    expect(first.stderr).toMatch(/sweep done: 6 points ok, 1 not valid, 0 failed/);
    expect(first.stderr).toContain('run demo (unofficial)');
    expect(first.stderr).toContain("simulated: every result from infx's simulated engine");
    expect(existsSync(join(dir, 'runs/demo/manifest.json'))).toBe(true);
    expect(existsSync(join(dir, 'infx.db'))).toBe(true);

    const second = await infx(args);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(/reused the earlier demo sweep: 7 points ok/);
    expect(second.stderr).not.toContain('attempt 1 started');

    const server = await startWebServer({ db: join(dir, 'infx.db'), port: 0, runsDirs: [join(dir, 'runs')] });
    try {
      const api = async (path: string) => {
        const res = await fetch(new URL(path, server.url));
        expect(res.status, path).toBe(200);
        return res.json();
      };
      const points = (await api('/api/points?model=llama70b&isl=1024&osl=1024&status=unofficial')) as {
        conc: number;
        configKey: string;
        config: { hardware: string };
        engine: { kind: string; simulator: string | null };
        metrics: { tputPerGpu: number | null; interactivity: { median: number | null } };
      }[];
      expect(points).toHaveLength(6);
      expect(new Set(points.map((p) => p.config.hardware))).toEqual(new Set(['h100', 'h200', 'b200']));
      expect(new Set(points.map((p) => p.conc))).toEqual(new Set([1, 2]));
      // Labelled simulated, with the simulator's version, on the simulated curves of their configs.
      for (const p of points) {
        expect(p.engine.kind).toBe('simulated');
        expect(p.engine.simulator).toMatch(/^infx-sim\//);
        expect(p.configKey).toMatch(/\|sim$/);
      }
      // Within 5% of what `infx sim predict --as-measured` says for the same rows, loaded machine or not.
      const matrix = await infx([
        'matrix',
        'full-sweep',
        '--config-files',
        'examples/demo.yaml',
        '--runner-config',
        'examples/runners.yaml',
        '--step-size',
        '2',
        '--max-conc',
        '2',
      ]);
      expect(matrix.code, matrix.stderr).toBe(0);
      const predicted = predictRows(JSON.parse(matrix.stdout), { method: 'as-measured' });
      expect(predicted).toHaveLength(6);
      const stored = (hw: string, conc: number) =>
        points.find((p) => p.config.hardware === hw && p.conc === conc)!;
      for (const o of predicted) {
        if (o.status !== 'ok') throw new Error(`predict failed: ${JSON.stringify(o)}`);
        const p = stored(o.runner, o.conc!);
        expect(
          Math.abs(p.metrics.tputPerGpu! / o.prediction.throughputPerGpu - 1),
          `${o.runner} conc ${o.conc}`,
        ).toBeLessThan(0.05);
        expect(Math.abs(p.metrics.interactivity.median! / o.prediction.interactivity - 1)).toBeLessThan(0.05);
      }
      // The H200 (more memory bandwidth) is ahead of the H100 at concurrency 1, as predicted.
      expect(stored('h200', 1).metrics.interactivity.median!).toBeGreaterThan(
        stored('h100', 1).metrics.interactivity.median! * 1.1,
      );
      expect(stored('h200', 1).metrics.tputPerGpu!).toBeGreaterThan(stored('h100', 1).metrics.tputPerGpu!);
      // Not official: the official view holds nothing, and the dashboard's default falls back to unofficial.
      expect(await api('/api/points?model=llama70b&isl=1024&osl=1024')).toEqual([]);
      const runs = (await api('/api/runs')) as { runId: string; status: string; engine: { kind: string } }[];
      expect(runs.map((r) => [r.runId, r.status, r.engine.kind])).toEqual([
        ['demo', 'unofficial', 'simulated'],
      ]);
      // The agentic replay's point: stored under its agentic key, simulated, with the reference's figures.
      const agentic = (await api('/api/agentic-points?status=unofficial')) as {
        users: number;
        configKey: string;
        valid: boolean;
        metrics: { e2eNormIntvty: { p90: number | null }; submissionValid: boolean | null };
      }[];
      expect(agentic.map((p) => p.users)).toEqual([2]);
      for (const p of agentic) {
        expect(p.configKey).toMatch(/\|agentic_traces\|kvnone\|sim$/);
        expect(p.metrics.e2eNormIntvty.p90).toBeGreaterThan(0);
        expect(p.metrics.submissionValid).toBe(false);
      }
      const filters = (await api('/api/filters')) as { selection: { status: string; model: string } };
      expect(filters.selection).toMatchObject({ status: 'unofficial', model: 'llama70b' });
    } finally {
      await server.close();
    }
  }, 180_000);
});
