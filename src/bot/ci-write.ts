import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CiWorkflowFile } from './ci-workflow.ts';
import { CiWorkflowError } from './ci-workflow.ts';

/**
 * Writes the workflow files into a folder: a file that is already there with the same bytes is left alone,
 * one that differs (edited by hand, or written with other flags) is refused, all of them before anything is
 * written, unless `force`.
 */

export interface CiWriteResult {
  written: string[];
  unchanged: string[];
  /** Files that differed and were overwritten (force). */
  replaced: string[];
}

export async function writeCiWorkflows(
  dir: string,
  files: readonly CiWorkflowFile[],
  force: boolean,
): Promise<CiWriteResult> {
  const result: CiWriteResult = { written: [], unchanged: [], replaced: [] };
  const differ: string[] = [];
  for (const f of files) {
    const path = join(dir, f.name);
    if (!existsSync(path)) continue;
    let old: string;
    try {
      old = readFileSync(path, 'utf8');
    } catch (err) {
      throw new CiWorkflowError(`cannot read ${path}: ${(err as Error).message}`);
    }
    if (old === f.text) result.unchanged.push(path);
    else differ.push(path);
  }
  if (differ.length > 0 && !force)
    throw new CiWorkflowError(
      `${differ.join(', ')} already ${differ.length === 1 ? 'exists and differs' : 'exist and differ'} from what these flags write; nothing was written`,
      {
        hint: 'compare them (infx ci workflow --out SOME/OTHER/DIR writes a copy), then give --force to overwrite',
      },
    );
  try {
    await mkdir(dir, { recursive: true });
    for (const f of files) {
      const path = join(dir, f.name);
      if (result.unchanged.includes(path)) continue;
      await writeFile(path, f.text);
      (differ.includes(path) ? result.replaced : result.written).push(path);
    }
  } catch (err) {
    throw new CiWorkflowError(`cannot write into ${dir}: ${(err as Error).message}`);
  }
  return result;
}
