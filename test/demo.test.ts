import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startWebServer } from '../src/web/server.ts';
import { tmpDir } from './helpers.ts';
import { infx } from './sweep-helpers.ts';

/**
 * `npm run demo` end to end, non-interactively: the example sweep on the simulated engine (concurrencies up
 * to 2 here, to keep the suite short), ingest into SQLite, then the dashboard's API over what was stored.
 * A second run reuses the first.
 */

describe('infx demo', () => {
  it('sweeps, stores and serves the example curves; a second run reuses them', async () => {
    const dir = tmpDir();
    const args = ['demo', '--dir', dir, '--max-conc', '2', '--exit-after-ingest'];
    const first = await infx(args);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain('infx demo: sweeping examples/demo.yaml on the simulated engine');
    expect(first.stderr).toMatch(/sweep done: 6 points ok, 0 failed/);
    expect(existsSync(join(dir, 'runs/demo/manifest.json'))).toBe(true);
    expect(existsSync(join(dir, 'infx.db'))).toBe(true);

    const second = await infx(args);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(/reused the earlier demo sweep: 6 points ok/);
    expect(second.stderr).not.toContain('attempt 1 started');

    const server = await startWebServer({ db: join(dir, 'infx.db'), port: 0, runsDirs: [join(dir, 'runs')] });
    try {
      const res = await fetch(new URL('/api/points?model=llama70b&isl=1024&osl=1024', server.url));
      expect(res.status).toBe(200);
      const points = (await res.json()) as { conc: number; config: { hardware: string } }[];
      expect(points).toHaveLength(6);
      expect(new Set(points.map((p) => p.config.hardware))).toEqual(new Set(['h100', 'h200', 'b200']));
      expect(new Set(points.map((p) => p.conc))).toEqual(new Set([1, 2]));
    } finally {
      await server.close();
    }
  }, 180_000);
});
