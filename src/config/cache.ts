import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { storeCacheEntry } from './cache-entries.ts';

/**
 * A cache of parsed, already-validated config files, keyed by their exact content and by the infx build
 * that validated them (like Python's .pyc). A hit skips YAML parsing and schema validation, which are most
 * of the cost of `infx matrix`; any change to the file or to infx misses. Only files without errors are
 * stored, so diagnostics are always computed fresh. Cache I/O problems are never fatal: they just miss.
 */

declare const __INFX_BUILD_ID__: string | undefined;

/** Set by the bundler from a hash of the sources; absent when running from sources (tests). */
export const BUILD_ID: string | undefined =
  typeof __INFX_BUILD_ID__ === 'string' ? __INFX_BUILD_ID__ : undefined;

const MAX_ENTRIES = 64;
const HASH_SLICE = 1 << 20;

export interface ParseCache {
  get(kind: string, text: string): unknown;
  set(kind: string, text: string, value: unknown): void;
}

/** `$INFX_CACHE_DIR`, else `$XDG_CACHE_HOME/infx`, else `~/.cache/infx`; none when `INFX_NO_CACHE` is set. */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.INFX_NO_CACHE) return undefined;
  if (env.INFX_CACHE_DIR) return env.INFX_CACHE_DIR;
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'infx');
}

export function openParseCache(
  dir: string | undefined,
  buildId: string | undefined = BUILD_ID,
): ParseCache | undefined {
  if (!dir || !buildId) return undefined;
  const root = join(dir, 'parsed');
  const fileFor = (kind: string, text: string) => {
    const hash = createHash('sha256').update(`${buildId}\0${kind}\0`);
    // In slices: hashing a 50 MB string at once first encodes all of it to UTF-8 in one more buffer.
    // Slices never split a surrogate pair, so the bytes hashed are exactly the text's UTF-8.
    for (let i = 0; i < text.length; ) {
      let end = Math.min(i + HASH_SLICE, text.length);
      const last = text.charCodeAt(end - 1);
      if (end < text.length && last >= 0xd800 && last <= 0xdbff) end++;
      hash.update(text.slice(i, end));
      i = end;
    }
    return join(root, `${hash.digest('hex')}.json`);
  };
  return {
    get(kind, text) {
      try {
        return JSON.parse(readFileSync(fileFor(kind, text), 'utf8'));
      } catch {
        return undefined;
      }
    },
    set(kind, text, value) {
      try {
        storeCacheEntry(root, fileFor(kind, text), JSON.stringify(value), MAX_ENTRIES);
      } catch {
        // A read-only or full disk only costs speed.
      }
    },
  };
}
