import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import type { AgenticPlanDefaults } from './points.ts';
import { SweepPlanError } from './points.ts';

/**
 * The corpus a sweep's agentic rows replay (`--traces FILE…`): each file's absolute path and SHA-256, so a
 * point measures exactly the bytes planned (point-bench.ts checks them again before it runs), wherever
 * the point runs from. Null without files: the agentic rows are listed as not run, with the reason.
 */
export async function agenticPlanDefaults(
  files: readonly string[] | undefined,
  settings: Omit<AgenticPlanDefaults, 'traces'>,
): Promise<AgenticPlanDefaults | null> {
  if (files === undefined || files.length === 0) return null;
  const out: { path: string; sha256: string }[] = [];
  for (const file of files) {
    const path = resolve(file);
    let bytes: Buffer;
    try {
      bytes = await readFile(path);
    } catch (err) {
      throw new SweepPlanError(`--traces ${file}: ${(err as Error).message}`);
    }
    out.push({ path, sha256: createHash('sha256').update(bytes).digest('hex') });
  }
  const name = basename(files[0] as string).replace(/\.jsonl$/, '');
  return { traces: { name, files: out }, ...settings };
}
