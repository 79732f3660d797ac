import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgenticPointsResponseSchema } from '../src/schema/agentic-curve.ts';
import { SessionTimelineSchema } from '../src/schema/session-timeline.ts';
import { ApiErrorSchema, RunDetailSchema } from '../src/schema/web-api.ts';
import { openStore } from '../src/store/db.ts';
import { ingestRunDir } from '../src/store/ingest.ts';
import { readTimeline } from '../src/web/api/timeline.ts';
import { startWebServer, type WebServer } from '../src/web/server.ts';
import { tmpDir } from './helpers.ts';
import { arec } from './support/agentic-records.ts';
import { agenticFigures, laneRequests, writeAgenticRun } from './support/agentic-run.ts';

/** The dashboard's agentic endpoints on a hand-built agentic run: its points, and a lane's timeline. */

let out = '';
let server: WebServer;
let base = '';
const POINT = 'x_agentic_tp8_users4';

beforeAll(async () => {
  out = tmpDir('infx-web-agentic-');
  const dir = writeAgenticRun(out, 'ag1', [4, 8]);
  const db = join(out, 'infx.db');
  const store = await openStore(db);
  try {
    await ingestRunDir(store, dir, { status: 'official' });
  } finally {
    await store.close();
  }
  server = await startWebServer({ db, port: 0, runsDirs: [out], uiDir: null });
  base = server.url.replace(/\/$/, '');
});

afterAll(async () => {
  await server?.close();
});

const get = async (path: string) => {
  const res = await fetch(`${base}${path}`);
  return { status: res.status, body: (await res.json()) as unknown };
};

describe('GET /api/agentic-points', () => {
  it('answers the agentic points with their agentic figures, labelled simulated', async () => {
    const r = await get('/api/agentic-points');
    expect(r.status).toBe(200);
    const points = AgenticPointsResponseSchema.parse(r.body);
    expect(points.map((p) => [p.users, p.metrics.e2eNormIntvty.p90, p.engine.kind])).toEqual([
      [4, agenticFigures(4).e2eP90, 'simulated'],
      [8, agenticFigures(8).e2eP90, 'simulated'],
    ]);
    expect(AgenticPointsResponseSchema.parse((await get('/api/agentic-points?run=ag1')).body)).toEqual(
      points,
    );
    expect((await get('/api/agentic-points?status=unofficial')).body).toEqual([]);
  });

  it('a run not stored is a 404 naming the parameter; the fixed-seq-len points leave agentic ones out', async () => {
    const r = await get('/api/agentic-points?run=nope');
    expect(r.status).toBe(404);
    expect(ApiErrorSchema.parse(r.body).error.param).toBe('run');
    expect((await get('/api/points')).body).toEqual([]);
  });
});

describe('GET /api/runs/:id', () => {
  it("gives an agentic point its headline metrics, its label without lengths, and its timeline's link", async () => {
    const run = RunDetailSchema.parse((await get('/api/runs/ag1')).body);
    const p = run.points.find((q) => q.pointId === POINT)!;
    expect(p.metrics?.tputPerGpu).toBe(agenticFigures(4).tputPerGpu);
    expect(p.metrics?.ttftMs.p90).toBe(agenticFigures(4).ttftP90);
    expect(p.label).toBe('x agentic b300 sglang fp8 tp8 kvnone (simulated)');
    expect(p.links.timeline).toBe(`/runs/ag1?timeline=${POINT}#timeline`);
  });
});

describe('GET /api/runs/:id/points/:pointId/timeline', () => {
  it('draws lane 0 by default: the root first, then its subagent, each request from sent to done', async () => {
    const r = await get(`/api/runs/ag1/points/${POINT}/timeline`);
    expect(r.status).toBe(200);
    const t = SessionTimelineSchema.parse(r.body);
    expect(t).toMatchObject({ runId: 'ag1', pointId: POINT, attempt: 1, lane: 0, lanes: [0, 1] });
    expect(t.truncated).toBe(false);
    expect(t.conversations.map((c) => [c.conversationId, c.branch.kind])).toEqual([
      ['trace-a', 'root'],
      ['trace-a::sub1', 'subagent'],
    ]);
    expect(t.conversations[0]!.requests.map((q) => [q.turnIndex, q.sentMs, q.doneMs])).toEqual([
      [0, 1000, 1400],
      [1, 1600, 1800],
      [2, 2300, 2800],
    ]);
    expect(t.conversations[1]!.requests.map((q) => [q.sentMs, q.doneMs])).toEqual([
      [1500, 1800],
      [1900, 2200],
    ]);
    expect([t.startMs, t.endMs]).toEqual([1000, 2800]);
  });

  it('another lane on request; a lane not in the file, or an unknown point, is a 404', async () => {
    const t = SessionTimelineSchema.parse((await get(`/api/runs/ag1/points/${POINT}/timeline?lane=1`)).body);
    expect(t.conversations.map((c) => c.conversationId)).toEqual(['trace-b']);
    const missing = await get(`/api/runs/ag1/points/${POINT}/timeline?lane=7`);
    expect(missing.status).toBe(404);
    expect(ApiErrorSchema.parse(missing.body).error.message).toContain('lanes: 0, 1');
    expect((await get('/api/runs/ag1/points/nope/timeline')).status).toBe(404);
    expect((await get(`/api/runs/ag1/points/${POINT}/timeline?lane=x`)).status).toBe(400);
  });
});

describe('readTimeline', () => {
  it('keeps at most the cap of a lane and says it was cut', async () => {
    const path = join(tmpDir('infx-timeline-'), 'requests.jsonl');
    writeFileSync(
      path,
      `${laneRequests()
        .map((r) => JSON.stringify(r))
        .join('\n')}\n`,
    );
    const t = await readTimeline(path, 0, 3);
    expect(t?.truncated).toBe(true);
    expect(t?.conversations.flatMap((c) => c.requests).length).toBe(3);
  });

  it('a lane that recycled: tree by tree, each root before its subagents', async () => {
    const path = join(tmpDir('infx-timeline-'), 'requests.jsonl');
    const first = laneRequests().filter((r) => r.agentic.lane === 0);
    const recycled = arec({ conv: 'trace-c', turn: 0, sent: 3000, e2e: 100 });
    writeFileSync(path, `${[...first, recycled].map((r) => JSON.stringify(r)).join('\n')}\n`);
    const t = await readTimeline(path, 0);
    expect(t?.conversations.map((c) => c.conversationId)).toEqual(['trace-a', 'trace-a::sub1', 'trace-c']);
  });

  it('a damaged line is an error naming the file and line', async () => {
    const path = join(tmpDir('infx-timeline-'), 'requests.jsonl');
    writeFileSync(path, `${JSON.stringify(laneRequests()[0])}\n`);
    appendFileSync(path, '{"index": 1, "agentic": {"lane": -1}, "sentMs": 0}\n');
    await expect(readTimeline(path, undefined)).rejects.toThrow(`${path}:2 has a bad agentic.`);
  });
});
