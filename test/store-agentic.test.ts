import { describe, expect, it } from 'vitest';
import { agenticPoints } from '../src/store/agentic-queries.ts';
import { ingestRunDir } from '../src/store/ingest.ts';
import { chartPoints, curvePoints } from '../src/store/queries.ts';
import { verifyRun } from '../src/store/verify.ts';
import { availabilityRows, latestPointsOfStatus } from '../src/store/web-queries.ts';
import { tmpDir } from './helpers.ts';
import { BACKENDS, freshStore, requirePostgres } from './store-helpers.ts';
import { agenticFigures, writeAgenticRun } from './support/agentic-run.ts';
import { syntheticRow, writeSyntheticRun } from './support/synthetic.ts';

requirePostgres();

describe.each(BACKENDS)('agentic points in the store (%s)', (backend) => {
  it('ingests an agentic run under its agentic_traces key with its agentic figures, and verifies it', async () => {
    const store = await freshStore(backend);
    const out = tmpDir('infx-agentic-store-');
    const dir = writeAgenticRun(out, 'ag1', [4, 16]);
    const report = await ingestRunDir(store, dir, { status: 'official' });
    expect(report.issues).toEqual([]);
    expect(report.ingested).toBe(2);

    const points = await agenticPoints(store, { status: 'official' });
    expect(points.map((p) => p.users)).toEqual([4, 16]);
    const p = points[1]!;
    expect(p.configKey).toMatch(/\|agentic_traces\|kvnone\|sim$/);
    expect(p.config).toMatchObject({ benchmarkType: 'agentic_traces', kvOffload: 'none', model: 'x' });
    expect(p.engine.kind).toBe('simulated');
    const f = agenticFigures(16);
    expect(p.metrics).toEqual({
      e2eNormIntvty: { p50: f.e2eP50, p90: f.e2eP90 },
      intvtyP90: f.genP90,
      ttftP90Ms: f.ttftP90,
      tputPerGpu: f.tputPerGpu,
      outputTputPerGpu: 10,
      inputTputPerGpu: f.tputPerGpu - 10,
      theoreticalCacheHitRate: f.hitRate,
      // Not in result.json yet: not measured, never a zero.
      serverCacheHitRate: null,
      submissionValid: true,
    });
    expect(await agenticPoints(store, { runId: 'ag1' })).toEqual(points);
    expect((await verifyRun(store, 'ag1', dir)).ok).toBe(true);
    // Ingest again: nothing changes.
    const again = await ingestRunDir(store, dir);
    expect(again.points).toEqual({ new: 0, updated: 0, unchanged: 2 });
  });

  it('keeps agentic configs out of the fixed-seq-len queries, and the newest run wins per (config, users)', async () => {
    const store = await freshStore(backend);
    const out = tmpDir('infx-agentic-store-');
    await ingestRunDir(store, writeAgenticRun(out, 'old', [4]), { status: 'unofficial' });
    await ingestRunDir(
      store,
      writeAgenticRun(out, 'new', [4], { createdAt: '2026-02-01T00:00:00.000Z', submissionValid: false }),
      { status: 'unofficial' },
    );
    const fixed = writeSyntheticRun(out, 'f1', [
      { row: syntheticRow(), conc: 4, attempts: [{ kind: 'ok' }] },
    ]);
    await ingestRunDir(store, fixed, { status: 'unofficial' });

    const latest = await agenticPoints(store, { status: 'unofficial' });
    expect(latest.map((p) => [p.runId, p.metrics.submissionValid])).toEqual([['new', false]]);
    expect(await agenticPoints(store, { status: 'official' })).toEqual([]);
    const fixedLatest = await latestPointsOfStatus(store, 'unofficial');
    expect(fixedLatest.map((p) => p.runId)).toEqual(['f1']);
    expect((await availabilityRows(store)).map((r) => r.runId)).toEqual(['f1']);
    expect(await curvePoints(store, { runId: 'new' })).toEqual([]);
    expect(await chartPoints(store, { isl: 0, osl: 0 })).toEqual([]);
  });
});
