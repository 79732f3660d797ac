import { randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PathEscapeError, safeJoin } from '../../src/schema/safe-path.ts';
import { ApiErrorSchema } from '../../src/schema/web-api.ts';
import { openStore } from '../../src/store/db.ts';
import { ingestRunDir } from '../../src/store/ingest.ts';
import { startWebServer, type WebServer } from '../../src/web/server.ts';
import { runCli, tmpDir } from '../helpers.ts';
import { syntheticRow, writeSyntheticRun } from '../support/synthetic.ts';
import { FAST, smallRow, writeMatrix } from '../sweep-helpers.ts';

/**
 * Path traversal through every id that becomes a path (issue 13 item 6): the --run-id and --resume flags,
 * a manifest's run id and point ids, point.json and status.json ids, attempt folder names, a symbolic
 * link planted in a run directory, a model-prefix in a row of --matrix rows.json, and the web API's path
 * parameters. Each is refused with a clear error, and nothing is written outside the temporary root: the
 * root's parent is snapshotted before and after every case.
 */

const MARK = `ESCAPED-${randomBytes(4).toString('hex')}`;
const DEEP = `../../../../../../../${MARK}`;

let parent = '';
let root = '';

/** Every path under `dir` (recursively) with its size and mtime, except below `skip`. */
function snapshot(dir: string, skip: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (p === skip) continue;
      const st = statSync(p, { throwIfNoEntry: false });
      if (!st) continue;
      out.set(relative(dir, p), `${st.size}:${st.mtimeMs}`);
      if (st.isDirectory()) walk(p);
    }
  };
  walk(dir);
  return out;
}

/** Whether any entry named after MARK appears in the temp folder or anywhere under the parent. */
const marked = () =>
  readdirSync(tmpdir()).some((n) => n.includes(MARK)) ||
  [...snapshot(parent, '').keys()].some(
    (p) => p.includes(MARK) && !p.startsWith(`${relative(parent, root)}/`),
  );

/** Runs `fn` and checks that nothing outside `root` changed (and nothing named MARK appeared anywhere). */
async function confined<T>(fn: () => Promise<T>): Promise<T> {
  const before = snapshot(parent, root);
  const out = await fn();
  expect([...snapshot(parent, root)]).toEqual([...before]);
  expect(marked()).toBe(false);
  return out;
}

beforeAll(() => {
  parent = tmpDir('infx-hostile-paths-');
  root = join(parent, 'root');
  mkdirSync(root);
  writeFileSync(join(parent, 'untouched.txt'), 'outside the root\n');
});

describe('ids that become paths are refused when they would leave their folder', () => {
  it('--run-id and --resume', async () => {
    const matrix = writeMatrix(root, [smallRow({ conc: 1 })]);
    const out = join(root, 'runs');
    for (const id of [DEEP, `/${MARK}`, '..', `a/${MARK}`, `${MARK}\0x`]) {
      const r = await confined(() =>
        runCli(['sweep', '--matrix', matrix, '--out', out, '--run-id', id, ...FAST]),
      );
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/error: run id .* is not usable as a folder name/);
      const resume = await confined(() => runCli(['sweep', '--resume', id, '--out', out]));
      expect(resume.code).toBe(1);
      expect(resume.stderr).toMatch(/is not usable as a folder name/);
    }
    const point = await confined(() =>
      runCli(['sweep', 'point', '--point', matrix, '--out', join(root, 'p'), '--run-id', DEEP]),
    );
    expect(point.code).toBe(1);
    expect(point.stderr).toMatch(/run id .* is not usable as a folder name/);
  });

  it('a model-prefix (and so the point id) in a row of --matrix rows.json', async () => {
    const matrix = writeMatrix(
      root,
      [smallRow({ conc: 1, 'model-prefix': DEEP, 'exp-name': `${DEEP}_256_64` })],
      'evil.json',
    );
    const r = await confined(() =>
      runCli(['sweep', '--matrix', matrix, '--out', join(root, 'runs'), '--run-id', 'evil', ...FAST]),
    );
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/model-prefix|not usable as a folder name|naming\.unsafe/);
    expect(r.stderr).not.toMatch(/internal error/);
    const runner = writeMatrix(root, [smallRow({ conc: 1, runner: `h100/${DEEP}` })], 'runner.json');
    const s = await confined(() =>
      runCli(['sweep', '--matrix', runner, '--out', join(root, 'runs'), '--run-id', 'evil2', ...FAST]),
    );
    expect(s.code, s.stderr).toBe(1);
    expect(s.stderr).not.toMatch(/internal error/);
  });

  it("a crafted manifest.json: its run id, a point id; a point.json's and a status.json's ids", async () => {
    const out = join(root, 'crafted');
    const db = join(root, 'crafted.db');
    const base = writeSyntheticRun(out, 'crafted', [
      { row: syntheticRow({}), conc: 1, attempts: [{ kind: 'ok' }] },
    ]);
    const manifestFile = join(base, 'manifest.json');
    const original = readFileSync(manifestFile, 'utf8');
    const m = JSON.parse(original);

    writeFileSync(manifestFile, JSON.stringify({ ...m, runId: DEEP }));
    const a = await confined(() => runCli(['ingest', base, '--db', db]));
    expect(a.code).toBe(1);
    expect(a.stderr).toMatch(/manifest\.json: not a valid run manifest: runId: not a usable run id/);
    const ra = await confined(() => runCli(['sweep', 'retry', base]));
    expect(ra.code).toBe(1);
    expect(ra.stderr).toMatch(/runId: not a usable run id/);

    const points = m.points.map((p: { pointId: string }) => ({ ...p, pointId: DEEP }));
    writeFileSync(manifestFile, JSON.stringify({ ...m, points }));
    const b = await confined(() => runCli(['ingest', base, '--db', db]));
    expect(b.code).toBe(1);
    expect(b.stderr).toMatch(/points\[0\]\.pointId: not a usable point id/);
    const rb = await confined(() => runCli(['sweep', '--resume', 'crafted', '--out', out]));
    expect(rb.code).toBe(1);
    expect(rb.stderr).toMatch(/points\.0\.pointId: not a usable point id/);

    // point.json and status.json naming a point elsewhere: their attempt is not used, nothing is written there.
    writeFileSync(manifestFile, original);
    const attempt = join(base, 'points', m.points[0].pointId, 'attempt-1');
    for (const f of ['point.json', 'status.json']) {
      const doc = JSON.parse(readFileSync(join(attempt, f), 'utf8'));
      writeFileSync(join(attempt, f), JSON.stringify({ ...doc, pointId: DEEP }));
    }
    const c = await confined(() => runCli(['ingest', base, '--db', db]));
    expect(c.code).toBe(1);
    expect(c.stdout).toMatch(/point\.json.*pointId: not a usable point id/);
    expect(c.stdout).toMatch(/status\.json.*pointId: not a usable point id/);
  });

  it('attempt folder names that are not attempt-<n>, and a symbolic link out of the run directory', async () => {
    const out = join(root, 'links');
    const dir = writeSyntheticRun(out, 'links', [
      { row: syntheticRow({}), conc: 1, attempts: [{ kind: 'failed', phase: 'setup', reason: 'x' }] },
      { row: syntheticRow({}), conc: 2, attempts: [{ kind: 'failed', phase: 'setup', reason: 'x' }] },
    ]);
    const m = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
    const [p1, p2] = m.points.map((p: { pointId: string }) => join(dir, 'points', p.pointId)) as [
      string,
      string,
    ];
    // attempt-01 is not attempt-1; attempt-99999999999 is past the limit: neither is read nor counted.
    for (const n of ['attempt-01', 'attempt-99999999999', 'attempt-1.bak']) mkdirSync(join(p1, n));
    const db = join(root, 'links.db');
    const r = await confined(() => runCli(['ingest', dir, '--db', db, '--format', 'json']));
    const report = JSON.parse(r.stdout);
    expect(report.details.map((d: { attempts: unknown[] }) => d.attempts.length)).toEqual([1, 1]);

    // points/<id> replaced by a link to a folder outside the root: a retry refuses to write through it.
    const outside = join(parent, 'outside');
    mkdirSync(outside, { recursive: true });
    rmSync(p2, { recursive: true });
    symlinkSync(outside, p2);
    const before = snapshot(outside, '');
    const retry = await runCli(['sweep', 'retry', dir]);
    expect(retry.code).toBe(1);
    expect(retry.stderr).toMatch(
      /error: refusing .*: it resolves to .*outside.*, outside .*a symbolic link inside the folder points out of it/,
    );
    expect([...snapshot(outside, '')]).toEqual([...before]);
    expect(marked()).toBe(false);
    rmSync(p2);
  });

  it('safeJoin: never a path outside its root', () => {
    expect(safeJoin('/r', 'points', 'a', 'attempt-1')).toBe('/r/points/a/attempt-1');
    expect(safeJoin('runs', 'x')).toBe(join('runs', 'x'));
    for (const parts of [['..'], ['a', '../../b'], ['/etc/passwd'], ['a\0b'], [''], ['.']])
      expect(() => safeJoin('/r', ...parts)).toThrow(PathEscapeError);
    expect(() => safeJoin('/r', 'a/../b')).not.toThrow();
  });
});

describe('the web API: path parameters never reach outside the run directory', () => {
  let server: WebServer;
  let base = '';
  let pointId = '';
  beforeAll(async () => {
    const runs = join(root, 'web');
    const dir = writeSyntheticRun(runs, 'w', [
      { row: syntheticRow({}), conc: 1, attempts: [{ kind: 'ok' }] },
    ]);
    const m = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
    const attempt = join(dir, 'points', m.points[0].pointId, 'attempt-1');
    writeFileSync(join(attempt, 'server.log'), 'inside\n');
    mkdirSync(join(parent, 'secret'), { recursive: true });
    writeFileSync(join(parent, 'secret', 'server.log'), 'SECRET\n');
    const db = join(root, 'web.db');
    const store = await openStore(db);
    await ingestRunDir(store, dir);
    await store.close();
    // The attempt's server.log replaced by a link to the secret: never served.
    rmSync(join(attempt, 'server.log'));
    symlinkSync(join(parent, 'secret', 'server.log'), join(attempt, 'server.log'));
    server = await startWebServer({ db, port: 0, runsDirs: [runs], uiDir: null });
    base = server.url.replace(/\/$/, '');
    pointId = m.points[0].pointId;
  });
  afterAll(async () => {
    await server?.close();
  });

  it('traversal in :id, :pointId, :name and ?attempt is a JSON 400/404, never a file outside', async () => {
    const enc = encodeURIComponent;
    const paths = [
      `/api/runs/${enc('../secret')}`,
      `/api/runs/${enc('../../secret')}/points/x/files/server.log`,
      `/api/runs/w/points/${enc(`../../../../secret`)}/files/server.log`,
      `/api/runs/w/points/${enc(pointId)}/files/${enc('../../../../../secret/server.log')}`,
      `/api/runs/w/points/${enc(pointId)}/files/server.log?attempt=${enc('../1')}`,
      `/api/runs/w/points/${enc(pointId)}/files/server.log?attempt=0`,
      `/api/runs/w/points/${enc(pointId)}/files/server.log`,
      `/api/runs/w/points/${enc(pointId)}/result/..%2F..%2F..`,
    ];
    for (const p of paths) {
      const res = await confined(() => fetch(`${base}${p}`));
      const text = await res.text();
      expect([400, 404], `${p}: ${res.status} ${text}`).toContain(res.status);
      expect(text).not.toContain('SECRET');
      expect(ApiErrorSchema.safeParse(JSON.parse(text)).success, text).toBe(true);
    }
    expect(existsSync(join(dirname(root), 'untouched.txt'))).toBe(true);
  });
});
