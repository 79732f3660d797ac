import { mkdirSync, readdirSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * How the config caches (the parse cache, the output cache) keep their files: each entry written whole
 * under a temporary name and renamed into place, so a reader never sees half of one and two writers never
 * mix theirs; the folder kept to its newest `maxEntries` `.json` entries. Imports nothing but Node, as the
 * output cache's early entry needs.
 */
export function storeCacheEntry(root: string, file: string, data: string | Buffer, maxEntries: number): void {
  mkdirSync(root, { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, file);
  prune(root, maxEntries);
}

function prune(root: string, maxEntries: number): void {
  const entries = readdirSync(root).filter((f) => f.endsWith('.json'));
  if (entries.length <= maxEntries) return;
  const byAge = entries.map((f) => ({ f, t: statSync(join(root, f)).mtimeMs })).sort((a, b) => a.t - b.t);
  for (const { f } of byAge.slice(0, entries.length - maxEntries)) unlinkSync(join(root, f));
}
