import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompareReportSchema } from '../src/schema/compare-report.ts';
import { PointResultSchema } from '../src/schema/point-result.ts';
import {
  ApiErrorSchema,
  ComparePointsResponseSchema,
  FiltersResponseSchema,
  HealthResponseSchema,
  PointsResponseSchema,
  RunDetailSchema,
  RunsResponseSchema,
} from '../src/schema/web-api.ts';
import { openStore } from '../src/store/db.ts';
import { ingestRunDir } from '../src/store/ingest.ts';
import { configId } from '../src/web/config-id.ts';
import { startWebServer, type WebServer } from '../src/web/server.ts';
import { runCli, tmpDir } from './helpers.ts';
import { BACKENDS, freshStore, requirePostgres } from './store-helpers.ts';
import { type SyntheticPoint, syntheticRow, writeSyntheticRun } from './support/synthetic.ts';
import { spawnInfx } from './sweep-helpers.ts';

/**
 * The dashboard's JSON API without a browser, on synthetic run directories: shapes (every response parsed
 * by its schema), the availability cascade, the selections, validation errors, 404s, files from disk with
 * traversal refused, the CSV, and `infx serve` itself.
 */

const row = (o: Parameters<typeof syntheticRow>[0]) => syntheticRow(o);
const ok = (r: ReturnType<typeof syntheticRow>, concs: number[], tput?: number): SyntheticPoint[] =>
  concs.map((conc) => ({ row: r, conc, attempts: [{ kind: 'ok', ...(tput ? { tput } : {}) }] }));

const H200 = row({ runner: 'h200-nv_0', precision: 'fp8', framework: 'sglang', tp: 8 });
const B200 = row({
  runner: 'b200-nv_0',
  precision: 'fp4',
  framework: 'sglang',
  tp: 4,
  'exp-name': 'dsr1_1k1k_b',
});
const LONG = row({
  runner: 'h200-nv_0',
  isl: 8192,
  osl: 1024,
  'max-model-len': 9416,
  'exp-name': 'dsr1_8k1k',
});
const EVIL = row({
  'model-prefix': 'gptoss',
  runner: 'mi355x',
  framework: 'vllm',
  tp: 1,
  image: '<img src=x onerror="window.__xss=1">',
  'exp-name': 'gptoss_1k1k',
});
const FAILED = 'dsr1_1k1k_b_fp4_sglang_tp4-ep1_b200-nv_0_conc4';
const WITH_LOG = 'dsr1_1k1k_fp8_sglang_tp8-ep1_h200-nv_0_conc1';

let out = '';
let runDirs: { a: string; b: string; d: string; sim: string };
let server: WebServer;
let bare: WebServer;
let base = '';
let db = '';
let REQUESTS = '';

beforeAll(async () => {
  out = tmpDir('infx-web-api-');
  const a = writeSyntheticRun(
    out,
    'a',
    [
      ...ok(H200, [1, 2, 4]),
      ...ok(B200, [1, 2]),
      { row: B200, conc: 4, attempts: [{ kind: 'failed', phase: 'setup', reason: 'CUDA out of memory' }] },
      ...ok(LONG, [1]),
      ...ok(EVIL, [1]),
    ],
    '2026-01-01T00:00:00.000Z',
  );
  const b = writeSyntheticRun(out, 'b', ok(H200, [1, 2], 900), '2026-01-02T00:00:00.000Z');
  const d = writeSyntheticRun(out, 'd', ok(H200, [1], 1000), '2026-01-03T00:00:00.000Z');
  // The H200 config again, served by the simulated engine: its own curve, unofficial by default.
  const sim = writeSyntheticRun(out, 'sim', ok(H200, [1, 2], 1500), '2026-01-04T00:00:00.000Z', {
    engine: 'simulated',
  });
  const attempt = join(a, 'points', WITH_LOG, 'attempt-1');
  writeFileSync(join(attempt, 'server.log'), 'engine up\n<script>alert(1)</script>\n');
  // As many benchmark records as the result counts (ingest checks that requests.jsonl is whole).
  const counts = PointResultSchema.parse(
    JSON.parse(readFileSync(join(attempt, 'result.json'), 'utf8')),
  ).counts;
  const records = (phase: string, n: number) =>
    Array.from({ length: n }, (_, i) => `${JSON.stringify({ index: i, phase })}\n`).join('');
  REQUESTS = records('warmup', counts.warmupCompleted) + records('benchmark', counts.scheduled);
  writeFileSync(join(attempt, 'requests.jsonl'), REQUESTS);
  // Outside the run directory: must never be served.
  mkdirSync(join(out, 'secret'), { recursive: true });
  writeFileSync(join(out, 'secret', 'server.log'), 'secret');
  db = join(out, 'infx.db');
  const store = await openStore(db);
  runDirs = { a, b, d, sim };
  await ingestRunDir(store, a);
  await ingestRunDir(store, b, { status: 'unofficial' });
  await ingestRunDir(store, d, { status: 'unofficial' });
  await ingestRunDir(store, sim);
  await store.close();
  server = await startWebServer({ db, port: 0, runsDirs: [out], uiDir: null });
  bare = await startWebServer({ db, port: 0, runsDirs: [], uiDir: null });
  base = server.url.replace(/\/$/, '');
});

afterAll(async () => {
  await server?.close();
  await bare?.close();
});

async function get(path: string, init: RequestInit = {}, root = base) {
  const res = await fetch(`${root}${path}`, init);
  const text = await res.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, headers: res.headers, text, body };
}

async function expectError(path: string, status: number, param?: string, init: RequestInit = {}) {
  const r = await get(path, init);
  expect(r.status, r.text).toBe(status);
  const e = ApiErrorSchema.parse(r.body);
  if (param !== undefined) expect(e.error.param).toBe(param);
  return e.error;
}

describe('GET /api/filters', () => {
  it('defaults: the model and workload with the most configs; every list offered', async () => {
    const r = await get('/api/filters');
    expect(r.status).toBe(200);
    const f = FiltersResponseSchema.parse(r.body);
    expect(f.selection).toEqual({
      status: 'official',
      run: null,
      model: 'dsr1',
      isl: 1024,
      osl: 1024,
      precision: [],
      hardware: [],
      framework: [],
    });
    expect(f.options.model.map((o) => [o.value, o.configs])).toEqual([
      ['dsr1', 3],
      ['gptoss', 1],
    ]);
    expect(f.options.workload.map((o) => [o.value, o.label])).toEqual([
      ['1024/1024', '1k/1k'],
      ['8192/1024', '8k/1k'],
    ]);
    expect(f.options.hardware.map((o) => o.value)).toEqual(['b200', 'h200']);
    expect(f.options.precision.map((o) => o.value)).toEqual(['fp4', 'fp8']);
    expect(f.options.status.map((o) => [o.value, o.configs])).toEqual([
      ['official', 1],
      ['unofficial', 3],
    ]);
    expect(f.options.run.map((o) => o.runId)).toEqual(['a']);
    expect(f.configs).toBe(2);
  });

  it('each list is narrowed by the others; a value without data is dropped, never an empty view', async () => {
    const fp4 = FiltersResponseSchema.parse((await get('/api/filters?precision=fp4')).body);
    expect(fp4.selection.precision).toEqual(['fp4']);
    expect(fp4.options.hardware.map((o) => o.value)).toEqual(['b200']);
    expect(fp4.options.precision.map((o) => o.value)).toEqual(['fp4', 'fp8']);
    expect(fp4.configs).toBe(1);
    // fp4 on h200 has no data: the later list (hardware) gives way.
    const clash = FiltersResponseSchema.parse((await get('/api/filters?precision=fp4&hardware=h200')).body);
    expect(clash.selection).toMatchObject({ precision: ['fp4'], hardware: [] });
    expect(clash.configs).toBe(1);
    const unknown = FiltersResponseSchema.parse(
      (await get('/api/filters?model=nope&isl=1&osl=2&framework=x')).body,
    );
    expect(unknown.selection).toMatchObject({ model: 'dsr1', isl: 1024, osl: 1024, framework: [] });
    const gptoss = FiltersResponseSchema.parse((await get('/api/filters?model=gptoss')).body);
    expect(gptoss.selection).toMatchObject({ model: 'gptoss', isl: 1024, osl: 1024 });
    expect(gptoss.options.hardware.map((o) => [o.value, o.label])).toEqual([['mi355x', 'MI355X']]);
  });

  it('status and run: a run brings its own status; runs are listed newest first', async () => {
    const u = FiltersResponseSchema.parse((await get('/api/filters?status=unofficial')).body);
    expect(u.selection).toMatchObject({ status: 'unofficial', run: null, model: 'dsr1' });
    expect(u.options.run.map((r) => [r.runId, r.engine.kind])).toEqual([
      ['sim', 'simulated'],
      ['d', 'real'],
      ['b', 'real'],
    ]);
    // The simulated curve of the H200 config is a config of its own.
    expect(u.options.model).toEqual([{ value: 'dsr1', label: 'dsr1', configs: 2 }]);
    const b = FiltersResponseSchema.parse((await get('/api/filters?run=b')).body);
    expect(b.selection).toMatchObject({ status: 'unofficial', run: 'b' });
    expect(b.options.model.map((o) => o.value)).toEqual(['dsr1']);
    const none = FiltersResponseSchema.parse((await get('/api/filters?status=staged')).body);
    expect(none.selection.status).toBe('official');
  });
});

describe('GET /api/points', () => {
  const points = async (q: string) => {
    const r = await get(`/api/points${q}`);
    expect(r.status, r.text).toBe(200);
    return PointsResponseSchema.parse(r.body);
  };

  it('the latest official point per config and concurrency, narrowed by every filter', async () => {
    expect(await points('')).toHaveLength(7);
    const view = await points('?model=dsr1&isl=1024&osl=1024');
    expect(view.map((p) => [p.config.hardware, p.conc])).toEqual([
      ['b200', 1],
      ['b200', 2],
      ['h200', 1],
      ['h200', 2],
      ['h200', 4],
    ]);
    expect(await points('?model=dsr1&isl=1024&osl=1024&precision=fp4')).toHaveLength(2);
    expect(await points('?model=dsr1&isl=1024&osl=1024&hardware=h200,b200&framework=sglang')).toHaveLength(5);
    const hide = configId(view[0]!.configKey);
    expect(
      (await points(`?model=dsr1&isl=1024&osl=1024&hide=${hide}`)).map((p) => p.config.hardware),
    ).toEqual(['h200', 'h200', 'h200']);
  });

  it('one run; or the latest among unofficial runs (newest run per concurrency)', async () => {
    expect(await points('?run=a')).toHaveLength(7);
    expect((await points('?run=b')).map((p) => p.runId)).toEqual(['b', 'b']);
    const u = await points('?status=unofficial&model=dsr1&isl=1024&osl=1024');
    expect(u.map((p) => [p.conc, p.runId, p.engine.kind])).toEqual([
      [1, 'd', 'real'],
      [2, 'b', 'real'],
      [1, 'sim', 'simulated'],
      [2, 'sim', 'simulated'],
    ]);
    expect(u[0]!.metrics.tputPerGpu).toBe(1000);
  });

  it('every point says what served it: a simulated run on its own curve, with its simulator', async () => {
    const sim = await points('?run=sim');
    expect(sim.map((p) => p.engine)).toEqual([
      { kind: 'simulated', simulator: 'infx-sim/synthetic' },
      { kind: 'simulated', simulator: 'infx-sim/synthetic' },
    ]);
    const real = await points('?run=b');
    expect(real.map((p) => p.engine)).toEqual([
      { kind: 'real', simulator: null },
      { kind: 'real', simulator: null },
    ]);
    expect(sim[0]!.configKey).toBe(`${real[0]!.configKey}|sim`);
    // Never in the official view unless stored as official.
    expect((await points('')).some((p) => p.engine.kind === 'simulated')).toBe(false);
  });

  it('rejects what it does not understand, with the parameter named', async () => {
    expect((await expectError('/api/points?modle=dsr1', 400, 'modle')).message).toContain(
      "unknown parameter 'modle'",
    );
    expect((await expectError('/api/points?model=a&model=b', 400, 'model')).message).toContain(
      'more than once',
    );
    expect((await expectError('/api/points?isl=1024', 400, 'osl')).message).toContain('give both');
    expect((await expectError('/api/points?isl=1k&osl=1', 400, 'isl')).message).toContain('whole number');
    expect((await expectError('/api/points?status=gold', 400, 'status')).message).toContain(
      'official, unofficial, staged',
    );
    await expectError('/api/points?model=', 400, 'model');
    await expectError('/api/points?run=nope', 404, 'run');
  });
});

describe('runs', () => {
  it('GET /api/runs: newest first; status filter', async () => {
    const all = RunsResponseSchema.parse((await get('/api/runs')).body);
    expect(all.map((r) => [r.runId, r.status, r.engine])).toEqual([
      ['sim', 'unofficial', { kind: 'simulated', simulated: 2, real: 0 }],
      ['d', 'unofficial', { kind: 'real', simulated: 0, real: 1 }],
      ['b', 'unofficial', { kind: 'real', simulated: 0, real: 2 }],
      ['a', 'official', { kind: 'real', simulated: 0, real: 7 }],
    ]);
    const u = RunsResponseSchema.parse((await get('/api/runs?status=unofficial')).body);
    expect(u.map((r) => r.runId)).toEqual(['sim', 'd', 'b']);
  });

  it('GET /api/runs/:id of a simulated run: labels and engines say simulated', async () => {
    const d = RunDetailSchema.parse((await get('/api/runs/sim')).body);
    expect(d.run.engine.kind).toBe('simulated');
    expect(d.points.map((p) => [p.label, p.engine])).toEqual([
      ['dsr1 1k/1k h200 sglang fp8 tp8 (simulated)', { kind: 'simulated', simulator: 'infx-sim/synthetic' }],
      ['dsr1 1k/1k h200 sglang fp8 tp8 (simulated)', { kind: 'simulated', simulator: 'infx-sim/synthetic' }],
    ]);
    expect(d.points[0]!.engineSettings?.kind).toBe('sim');
  });

  it('GET /api/runs/:id: every planned point, the failed one with phase and reason, links that work', async () => {
    const r = await get('/api/runs/a');
    expect(r.status).toBe(200);
    const d = RunDetailSchema.parse(r.body);
    expect(d.run).toMatchObject({ runId: 'a', planned: 8, ingested: 7, failed: 1 });
    expect(d.runDir).toBe(join(out, 'a'));
    expect(d.points).toHaveLength(8);
    // Its change control: no changelog entries linked, one event (its ingest), as official.
    expect(d.changelog).toEqual([]);
    expect(d.statusHistory.map((e) => [e.seq, e.action, e.from, e.to])).toEqual([
      [1, 'ingested', null, 'official'],
    ]);
    const failed = d.points.find((p) => p.pointId === FAILED)!;
    expect(failed).toMatchObject({ outcome: 'failed', phase: 'setup', attempt: null, valid: null });
    expect(failed.reason).toContain('CUDA out of memory');
    expect(failed.links.result).toBeNull();
    expect(failed.attempts[0]).toMatchObject({ attempt: 1, status: 'failed', phase: 'setup' });
    expect(failed.engineSettings?.kind).toBe('recipe');
    expect(failed.engine).toEqual({ kind: 'real', simulator: null });

    const logged = d.points.find((p) => p.pointId === WITH_LOG)!;
    expect(logged.label).toBe('dsr1 1k/1k h200 sglang fp8 tp8');
    expect(logged.links.serverLog).toBe(`/api/runs/a/points/${WITH_LOG}/files/server.log?attempt=1`);
    const log = await get(logged.links.serverLog!);
    expect(log.status).toBe(200);
    expect(log.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(log.headers.get('x-content-type-options')).toBe('nosniff');
    expect(log.text).toContain('<script>alert(1)</script>');
    expect((await get(logged.links.requests!)).text).toBe(REQUESTS);
    const result = await get(logged.links.result!);
    expect(PointResultSchema.parse(result.body).valid).toBe(true);
  });

  it('404s: unknown run, point, result of a failed point, file; no path outside the run directory', async () => {
    await expectError('/api/runs/nope', 404, 'id');
    await expectError('/api/runs/a/points/nope/result', 404, 'pointId');
    expect((await expectError(`/api/runs/a/points/${FAILED}/result`, 404, 'pointId')).message).toContain(
      'CUDA out of memory',
    );
    await expectError(`/api/runs/a/points/${FAILED}/files/server.log`, 404, 'name');
    await expectError(`/api/runs/a/points/${WITH_LOG}/files/result.json`, 404, 'name');
    await expectError(`/api/runs/a/points/${WITH_LOG}/files/server.log?attempt=2`, 404, 'attempt');
    await expectError('/api/runs/a/points/..%2F..%2Fsecret/files/server.log', 404, 'pointId');
    await expectError('/api/runs/..%2Fsecret/points/x/files/server.log', 404, 'id');
    await expectError(`/api/runs/a/points/${WITH_LOG}/files/..%2F..%2F..%2Fsecret%2Fserver.log`, 404, 'name');
    await expectError('/api/nope', 404);
    await expectError('/api/points', 405, undefined, { method: 'POST' });
    // A server that does not know the run directories says so.
    const r = await get(`/api/runs/a/points/${WITH_LOG}/files/server.log`, {}, bare.url.replace(/\/$/, ''));
    expect(r.status).toBe(404);
    expect(ApiErrorSchema.parse(r.body).error.code).toBe('no-run-dir');
  });
});

describe('compare and export', () => {
  it('GET /api/compare: the compare report against official or a run; its points', async () => {
    const r = await get('/api/compare?run=b');
    expect(r.status, r.text).toBe(200);
    const report = CompareReportSchema.parse(r.body);
    expect(report.baseline).toEqual({ label: 'official', runIds: ['a'], engine: 'real' });
    expect(report.configs.map((c) => c.label)).toEqual(['dsr1 1k/1k h200 sglang fp8 tp8']);
    // The spread is measured from the stored repeats (runs a and d at concurrency 1), as infx compare --db.
    expect(report.noise.storedRuns).toBe(true);
    expect(report.configs[0]!.noise).toMatchObject({ source: 'measured', runs: 2, concs: [1] });
    const flagged = CompareReportSchema.parse((await get('/api/compare?run=b&noise=0')).body);
    expect(flagged.noise.flagPct).toBe(0);
    expect(flagged.configs[0]!.noise).toMatchObject({ source: 'flag', thresholdPct: 0 });
    await expectError('/api/compare?run=b&noise=lots', 400, 'noise');
    await expectError('/api/compare?run=b&noise=101', 400, 'noise');
    // A simulated run against a real one: the same deployment, never matched; the report says why.
    const cross = CompareReportSchema.parse((await get('/api/compare?run=sim&baseline=a')).body);
    expect(cross.run.engine).toBe('simulated');
    expect(cross.configs).toEqual([]);
    expect(cross.onlyInRun.map((c) => [c.label, c.engine])).toEqual([
      ['dsr1 1k/1k h200 sglang fp8 tp8 (simulated)', 'simulated'],
    ]);
    expect(cross.notes).toEqual([expect.stringContaining('simulated in the run and real in the baseline')]);
    const at = CompareReportSchema.parse(
      (await get('/api/compare?run=b&baseline=a&at=70,80&interactivity=p90')).body,
    );
    expect(at.at).toEqual([70, 80]);
    expect(at.interactivityStat).toBe('p90');
    const sides = ComparePointsResponseSchema.parse((await get('/api/compare/points?run=b')).body);
    expect(sides.run.points).toHaveLength(2);
    expect(new Set(sides.baseline.points.map((p) => p.configKey))).toEqual(
      new Set([sides.run.points[0]!.configKey]),
    );
    await expectError('/api/compare', 400, 'run');
    await expectError('/api/compare?run=b&at=-1', 400, 'at');
    await expectError('/api/compare?run=b&baseline=zzz', 404, 'baseline');
  });

  it('GET /api/export.csv: a row per point with every metric, units in the names', async () => {
    const r = await get('/api/export.csv?model=dsr1&isl=1024&osl=1024&price=2');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const lines = r.text.trimEnd().split('\r\n');
    const head = lines[0]!.split(',');
    expect(head).toContain('ttft_median_ms');
    expect(head).toContain('cost_per_m_tokens_usd');
    expect(lines).toHaveLength(6);
    const col = (name: string) => head.indexOf(name);
    const first = lines[1]!.split(',');
    expect(first[col('price_per_gpu_hour_usd')]).toBe('2');
    const tput = Number(first[col('tput_per_gpu_tok_s')]);
    expect(Number(first[col('cost_per_m_tokens_usd')])).toBeCloseTo((2 / (tput * 3600)) * 1e6, 9);
    const evil = await get('/api/export.csv?model=gptoss');
    expect(evil.text).toContain('<img src=x onerror=""window.__xss=1"">');
    expect(first[col('engine')]).toBe('real');
    const sim = (await get('/api/export.csv?run=sim')).text.trimEnd().split('\r\n');
    expect(sim.slice(1).map((l) => l.split(',')[col('engine')])).toEqual(['simulated', 'simulated']);
    expect(sim[1]!.split(',')[col('simulator')]).toBe('infx-sim/synthetic');
  });

  it('no official results stored: the filters fall back to the unofficial ones', async () => {
    const store = await freshStore('sqlite');
    await ingestRunDir(store, runDirs.sim);
    const s = await startWebServer({ db: store.rawUrl, port: 0, runsDirs: [], uiDir: null });
    try {
      const f = FiltersResponseSchema.parse(await (await fetch(`${s.url}api/filters`)).json());
      expect(f.selection).toMatchObject({ status: 'unofficial', model: 'dsr1', isl: 1024, osl: 1024 });
      expect(f.options.status.map((o) => o.value)).toEqual(['unofficial']);
      expect(f.configs).toBe(1);
    } finally {
      await s.close();
    }
  });

  it('compresses large responses for clients that take gzip', async () => {
    const r = await get('/api/points', { headers: { 'accept-encoding': 'gzip' } });
    expect(r.headers.get('content-encoding')).toBe('gzip');
    expect(PointsResponseSchema.parse(r.body)).toHaveLength(7);
    expect(HealthResponseSchema.parse((await get('/api/health')).body)).toMatchObject({
      ok: true,
      ui: false,
    });
  });
});

describe('static files', () => {
  function raw(root: string, path: string): Promise<{ status: number; body: string; type: string }> {
    const u = new URL(root);
    return new Promise((resolve, reject) => {
      request({ host: u.hostname, port: u.port, path }, (res) => {
        let body = '';
        res.on('data', (c) => {
          body += c;
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body, type: String(res.headers['content-type']) }),
        );
      })
        .on('error', reject)
        .end();
    });
  }

  it('the UI build: files, the index page for app routes, nothing outside it', async () => {
    const ui = tmpDir('infx-web-ui-');
    mkdirSync(join(ui, 'assets'));
    writeFileSync(join(ui, 'index.html'), '<!doctype html><title>index</title>');
    writeFileSync(join(ui, 'assets', 'app.js'), 'console.log(1)');
    const s = await startWebServer({ db, port: 0, uiDir: ui, runsDirs: [] });
    try {
      expect(await raw(s.url, '/runs/a')).toMatchObject({
        status: 200,
        body: '<!doctype html><title>index</title>',
      });
      expect(await raw(s.url, '/assets/app.js')).toMatchObject({
        status: 200,
        type: 'text/javascript; charset=utf-8',
      });
      expect((await raw(s.url, '/assets/nope.js')).status).toBe(404);
      const outside = await raw(s.url, '/%2e%2e/%2e%2e/secret/server.log');
      expect(outside.body).not.toContain('secret');
      expect((await raw(s.url, '/../../etc/passwd')).body).not.toContain('root:');
    } finally {
      await s.close();
    }
    const none = await raw(server.url, '/');
    expect(none.status).toBe(503);
    expect(none.body).toContain('npm run build');
  });
});

describe('infx serve', () => {
  it('every response shape is exported as JSON Schema (infx schema NAME)', async () => {
    for (const name of [
      'web-filters',
      'web-points',
      'web-runs',
      'web-run',
      'web-compare-points',
      'web-error',
    ]) {
      const out = await runCli(['schema', name]);
      expect(out.code, out.stderr).toBe(0);
      expect(JSON.parse(out.stdout)).toMatchObject({ $id: `urn:infx:schema:${name}` });
    }
  });

  it('refuses a database that does not exist', async () => {
    const r = await runCli(['serve', '--db', join(out, 'missing.db')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('there is no results database');
  });

  it('prints where the dashboard is and stops cleanly on SIGTERM', async () => {
    const { child, finished } = spawnInfx(['serve', '--db', db, '--port', '0', '--runs', out]);
    const url = await new Promise<string>((resolve, reject) => {
      let seen = '';
      child.stdout?.on('data', (d) => {
        seen += d;
        const m = /dashboard at (http:\/\/\S+)/.exec(seen);
        if (m) resolve(m[1]!);
      });
      child.once('exit', () => reject(new Error('serve exited early')));
    });
    const health = HealthResponseSchema.parse(await (await fetch(`${url}api/health`)).json());
    expect(health.runsDirs).toEqual([out]);
    child.kill('SIGTERM');
    const done = await finished;
    expect(done.code).toBe(0);
    expect(done.stderr).toContain('dashboard stopped');
  });
});

requirePostgres();

describe.skipIf(!BACKENDS.includes('postgres'))('on PostgreSQL', () => {
  /** Ingest times (and so the times of their audit events) differ between the two stores; nothing else may. */
  const normalize = (v: unknown): unknown =>
    JSON.parse(JSON.stringify(v), (k, x) => (k === 'ingestedAt' || k === 'at' ? '' : x));

  it('answers every endpoint exactly as on SQLite', async () => {
    const store = await freshStore('postgres');
    await ingestRunDir(store, runDirs.a);
    await ingestRunDir(store, runDirs.b, { status: 'unofficial' });
    await ingestRunDir(store, runDirs.d, { status: 'unofficial' });
    await ingestRunDir(store, runDirs.sim);
    const pgServer = await startWebServer({ db: store.rawUrl, port: 0, runsDirs: [out], uiDir: null });
    try {
      for (const path of [
        '/api/filters',
        '/api/filters?precision=fp4&hardware=h200',
        '/api/filters?status=unofficial',
        '/api/points',
        '/api/points?model=dsr1&isl=1024&osl=1024&precision=fp8',
        '/api/points?status=unofficial',
        '/api/points?run=b',
        '/api/points?run=sim',
        '/api/runs',
        '/api/runs/a',
        '/api/runs/sim',
        `/api/runs/a/points/${WITH_LOG}/result`,
        '/api/compare?run=b',
        '/api/compare?run=sim&baseline=a',
        '/api/compare/points?run=b&baseline=a',
        '/api/export.csv?model=dsr1',
        '/api/runs/nope',
      ]) {
        const [lite, pg] = await Promise.all([get(path), get(path, {}, pgServer.url.replace(/\/$/, ''))]);
        expect(pg.status, path).toBe(lite.status);
        if (lite.body === null) expect(pg.text, path).toBe(lite.text);
        else expect(normalize(pg.body), path).toEqual(normalize(lite.body));
      }
    } finally {
      await pgServer.close();
    }
  });
});
