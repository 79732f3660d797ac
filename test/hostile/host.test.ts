import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiErrorSchema } from '../../src/schema/web-api.ts';
import { openStore } from '../../src/store/db.ts';
import { ingestRunDir } from '../../src/store/ingest.ts';
import { hostAllowed, startWebServer } from '../../src/web/server.ts';
import { tmpDir } from '../helpers.ts';
import { BACKENDS, freshStore, requirePostgres } from '../store-helpers.ts';
import { syntheticRow, writeSyntheticRun } from '../support/synthetic.ts';
import { type Finished, spawnInfx } from '../sweep-helpers.ts';

/**
 * `infx serve` under attack from a web page (issue 13 item 7): DNS rebinding (only requests addressed to
 * 127.0.0.1, localhost, [::1] or an --allowed-host name are answered), and a database opened read-only
 * (a write through the server's own store handle fails in the database).
 */

requirePostgres();

let db = '';
beforeAll(async () => {
  const dir = writeSyntheticRun(tmpDir(), 'h', [
    { row: syntheticRow({}), conc: 1, attempts: [{ kind: 'ok' }] },
  ]);
  db = join(tmpDir(), 'infx.db');
  const store = await openStore(db);
  await ingestRunDir(store, dir);
  await store.close();
});

/** GET `path` on 127.0.0.1:`port` with this Host header (none: `undefined`, sent as HTTP/1.0). */
function get(
  port: number,
  path: string,
  host: string | undefined,
): Promise<{ status: number; body: string }> {
  if (host === undefined)
    return new Promise((resolve, reject) => {
      const s = connect(port, '127.0.0.1', () => s.write(`GET ${path} HTTP/1.0\r\n\r\n`));
      let data = '';
      s.on('data', (d) => {
        data += d;
      });
      s.on('end', () => {
        const status = Number(/^HTTP\/1\.\d (\d{3})/.exec(data)?.[1] ?? 0);
        resolve({ status, body: data.slice(data.indexOf('\r\n\r\n') + 4) });
      });
      s.on('error', reject);
    });
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => {
        body += d;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

interface Served {
  port: number;
  stop(): Promise<Finished>;
}

async function serve(extra: string[] = []): Promise<Served> {
  const p = spawnInfx(['serve', '--db', db, '--port', '0', ...extra]);
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    p.child.stdout?.on('data', (d) => {
      out += d;
      const m = /dashboard at http:\/\/[^:]+:(\d+)\//.exec(out);
      if (m) resolve(Number(m[1]));
    });
    void p.finished.then((f) => reject(new Error(`infx serve exited ${f.code}: ${f.stderr}`)));
  });
  return {
    port,
    stop: () => {
      p.child.kill('SIGTERM');
      return p.finished;
    },
  };
}

describe('infx serve answers only for its own names (DNS rebinding)', () => {
  let plain: Served;
  let named: Served;
  beforeAll(async () => {
    [plain, named] = await Promise.all([serve(), serve(['--allowed-host', 'dash.example.org'])]);
  }, 30_000);
  afterAll(async () => {
    await Promise.all([plain?.stop(), named?.stop()]);
  });

  it('127.0.0.1, localhost and [::1], with any port or none, are answered', async () => {
    for (const host of [
      '127.0.0.1',
      `127.0.0.1:${plain.port}`,
      'localhost:1234',
      'LOCALHOST',
      '[::1]',
      `[::1]:${plain.port}`,
    ]) {
      const r = await get(plain.port, '/api/health', host);
      expect(r.status, `${host}: ${r.body}`).toBe(200);
      expect(JSON.parse(r.body).ok).toBe(true);
    }
  });

  it('any other Host, or none, is a 421 with a JSON error, for the API and the pages alike', async () => {
    for (const host of [
      'evil.example',
      `evil.example:${plain.port}`,
      'dash.example.org',
      '127.0.0.1.evil.example',
      '10.0.0.5',
      'localhost.',
      undefined,
    ]) {
      for (const path of ['/api/health', '/api/runs', '/']) {
        const r = await get(plain.port, path, host);
        expect(r.status, `${host} ${path}`).toBe(421);
        const e = ApiErrorSchema.parse(JSON.parse(r.body));
        expect(e.error.code).toBe('host-not-allowed');
        expect(e.error.message).toContain('--allowed-host');
      }
    }
  });

  it('--allowed-host NAME adds that name (any port); others stay refused', async () => {
    for (const host of ['dash.example.org', `DASH.example.org:${named.port}`, 'localhost'])
      expect((await get(named.port, '/api/runs', host)).status, host).toBe(200);
    expect((await get(named.port, '/api/runs', 'evil.example')).status).toBe(421);
  });

  it('hostAllowed: a name:port entry allows that port only', () => {
    expect(hostAllowed('dash:8080', ['dash:8080'])).toBe(true);
    expect(hostAllowed('dash:9090', ['dash:8080'])).toBe(false);
    expect(hostAllowed('dash', ['dash'])).toBe(true);
    expect(hostAllowed('a b', ['a b'])).toBe(false);
    expect(hostAllowed(undefined)).toBe(false);
  });
});

describe.each(BACKENDS)('infx serve opens the database read-only (%s)', (backend) => {
  it('a write through the server’s own store handle fails; the database is unchanged', async () => {
    let url = db;
    if (backend === 'postgres') {
      const store = await freshStore('postgres');
      await ingestRunDir(
        store,
        writeSyntheticRun(tmpDir(), 'h', [{ row: syntheticRow({}), conc: 1, attempts: [{ kind: 'ok' }] }]),
      );
      url = store.rawUrl;
    }
    const hash = () => createHash('sha256').update(readFileSync(db)).digest('hex');
    const before = backend === 'sqlite' ? hash() : '';
    const server = await startWebServer({ db: url, port: 0, uiDir: null, runsDirs: [] });
    try {
      expect(server.store.readOnly).toBe(true);
      await expect(sql`delete from results`.execute(server.store.db)).rejects.toThrow(/read-?only/i);
      await expect(server.store.db.updateTable('runs').set({ status: 'staged' }).execute()).rejects.toThrow(
        /read-?only/i,
      );
      await expect(sql`create table evil (a integer)`.execute(server.store.db)).rejects.toThrow(
        /read-?only/i,
      );
      if (backend === 'sqlite')
        expect(() => server.store.sqlite!.exec('delete from runs')).toThrow(/readonly|read-only/i);
      const runs = await server.store.db.selectFrom('runs').select('run_id').execute();
      expect(runs).toEqual([{ run_id: 'h' }]);
    } finally {
      await server.close();
    }
    if (backend === 'sqlite') expect(hash()).toBe(before);
  });
});
