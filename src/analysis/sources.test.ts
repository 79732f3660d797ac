import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCurves, SourceError } from './sources.ts';

const dir = mkdtempSync(join(tmpdir(), 'infx-sources-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('loadCurves', () => {
  it('a directory without manifest.json: says so and how to fix it', async () => {
    const err = await loadCurves(dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SourceError);
    expect((err as Error).message).toContain(`${dir} is not a run directory`);
    expect((err as Error).message).toContain('runs/<run-id>');
  });

  it('a name that is no directory and no database: says what to give instead, creates nothing', async () => {
    const db = join(dir, 'none.db');
    for (const arg of ['no-such-run', 'official']) {
      const err = await loadCurves(arg, { db }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SourceError);
      expect((err as Error).message).toContain(
        `'${arg}' is not a run directory, and there is no results database`,
      );
      expect((err as Error).message).toContain('infx ingest');
    }
    expect(existsSync(db)).toBe(false);
  });

  it('a bad database URL is a usage error', async () => {
    const err = await loadCurves('some-run', { db: 'mysql://x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SourceError);
    expect((err as SourceError).usage).toBe(true);
  });
});
