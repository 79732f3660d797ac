import { describe, expect, it } from 'vitest';
import { parseStoreUrl, redact, StoreError } from './db.ts';

describe('parseStoreUrl', () => {
  it('takes a path, sqlite:PATH and postgres:// or postgresql:// URLs', () => {
    expect(parseStoreUrl('.infx/infx.db')).toEqual({ backend: 'sqlite', path: '.infx/infx.db' });
    expect(parseStoreUrl('/var/lib/infx.db')).toEqual({ backend: 'sqlite', path: '/var/lib/infx.db' });
    expect(parseStoreUrl('sqlite:runs/x.db')).toEqual({ backend: 'sqlite', path: 'runs/x.db' });
    expect(parseStoreUrl('sqlite:///tmp/x.db')).toEqual({ backend: 'sqlite', path: '/tmp/x.db' });
    expect(parseStoreUrl('sqlite::memory:')).toEqual({ backend: 'sqlite', path: ':memory:' });
    for (const url of ['postgres://u:p@127.0.0.1:5432/infx', 'postgresql://db.example/infx?sslmode=require'])
      expect(parseStoreUrl(url)).toEqual({ backend: 'postgres', url });
  });

  it('refuses anything else, naming --db and the accepted forms, without the password', () => {
    for (const bad of ['mysql://u:hunter2@h/db', 'file:x.db', 'http://x', '', 'sqlite:']) {
      let err: unknown;
      try {
        parseStoreUrl(bad);
      } catch (e) {
        err = e;
      }
      expect(err, bad).toBeInstanceOf(StoreError);
      expect((err as StoreError).usage).toBe(true);
      expect((err as Error).message).toMatch(/^--db: /);
      expect((err as Error).message).toContain('sqlite:PATH');
      expect((err as Error).message).not.toContain('hunter2');
    }
  });

  it('redacts passwords', () => {
    expect(redact('postgres://infx:secret@127.0.0.1:5432/infx')).toBe(
      'postgres://infx:***@127.0.0.1:5432/infx',
    );
    expect(redact('postgres://infx@127.0.0.1/infx')).toBe('postgres://infx@127.0.0.1/infx');
  });
});
