import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';

/** Files of a run appear whole or not at all: written to a temporary name, then renamed into place. */

function tempName(path: string): string {
  return `${path}.tmp-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
}

export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  const tmp = tempName(path);
  try {
    await writeFile(tmp, data);
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

/** Writes many lines without building one huge string (requests.jsonl of a long run). */
export async function writeLinesAtomic(path: string, lines: Iterable<string>): Promise<void> {
  const tmp = tempName(path);
  const out = createWriteStream(tmp);
  try {
    for (const line of lines) {
      if (!out.write(`${line}\n`)) await once(out, 'drain');
    }
    out.end();
    await once(out, 'finish');
    await rename(tmp, path);
  } catch (err) {
    out.destroy();
    await rm(tmp, { force: true });
    throw err;
  }
}
