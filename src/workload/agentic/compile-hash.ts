import { createHash } from 'node:crypto';
import {
  createReadStream,
  mkdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';

/**
 * The content hash that keys a compiled corpus. Hashing a public-size corpus (hundreds of traces, GBs)
 * costs more than reading its compiled form, so each file's SHA-256 is remembered against what a rewrite
 * always changes (path, size, inode, mtime and ctime in ns, as git's index does): a warm start stats the
 * files instead of reading them. As git does with racily clean entries, a file modified in the last
 * RACY_MS is not remembered: a rewrite within the file system's timestamp granularity of the hash could
 * otherwise leave the stamp unchanged. The memo is one small JSON file in the cache root; any problem with
 * it means hashing again.
 */

const MEMO = 'agentic-file-hashes.json';
const MAX_ENTRIES = 512;
const RACY_MS = 2000;

type Memo = Record<string, { stamp: string; sha256: string }>;

function stampOf(file: string): { path: string; stamp: string; mtimeMs: number } {
  const s = statSync(file, { bigint: true });
  return {
    path: realpathSync(file),
    stamp: `${s.size}:${s.dev}:${s.ino}:${s.mtimeNs}:${s.ctimeNs}`,
    mtimeMs: Number(s.mtimeMs),
  };
}

/** A file's SHA-256 and length, streamed; `onChunk` sees every byte in order. */
export async function hashFile(
  file: string,
  onChunk?: (chunk: Buffer) => void,
): Promise<{ sha256: string; length: number }> {
  const hash = createHash('sha256');
  let length = 0;
  // 1 MB reads: twice the speed of the 64 kB default on a corpus of hundreds of MB.
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    onChunk?.(chunk);
    length += chunk.length;
  }
  return { sha256: hash.digest('hex'), length };
}

function readMemo(root: string | null): Memo {
  if (root === null) return {};
  try {
    const parsed: unknown = JSON.parse(readFileSync(join(root, MEMO), 'utf8'));
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Memo) : {};
  } catch {
    return {};
  }
}

function writeMemo(root: string, memo: Memo): void {
  const entries = Object.entries(memo);
  const kept = Object.fromEntries(entries.slice(Math.max(0, entries.length - MAX_ENTRIES)));
  const file = join(root, MEMO);
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(root, { recursive: true });
    writeFileSync(tmp, JSON.stringify(kept));
    renameSync(tmp, file);
  } catch {
    // Only costs a rehash next time.
  }
}

/**
 * SHA-256 over the files' hashes in order (so a byte moved between files differs); '' when a file cannot
 * be read (readCorpus then names it). `memoRoot` null: always hash. `onChunk` sees every byte of each file
 * it reads, in order (a line index built in the same pass); a file whose hash is remembered is not read.
 */
export async function corpusHash(
  files: readonly string[],
  memoRoot: string | null = null,
  onChunk?: (fileIndex: number, chunk: Buffer) => void,
  /** Filled with each file's SHA-256, in order (a result names its files by them). */
  fileHashes?: string[],
): Promise<string> {
  const memo = readMemo(memoRoot);
  let changed = false;
  const outer = createHash('sha256');
  for (const [index, file] of files.entries()) {
    let sha256: string;
    try {
      const { path, stamp, mtimeMs } = stampOf(file);
      const known = memo[path];
      if (known !== undefined && known.stamp === stamp && /^[0-9a-f]{64}$/.test(known.sha256)) {
        sha256 = known.sha256;
      } else {
        sha256 = (await hashFile(file, onChunk && ((chunk) => onChunk(index, chunk)))).sha256;
        // Stamped before and after: a file written while it was read, or just before, is not remembered.
        if (Date.now() - mtimeMs > RACY_MS && stampOf(file).stamp === stamp) {
          delete memo[path];
          memo[path] = { stamp, sha256 };
          changed = true;
        }
      }
    } catch {
      return '';
    }
    outer.update(`${sha256}\0`);
    fileHashes?.push(sha256);
  }
  if (changed && memoRoot !== null) writeMemo(memoRoot, memo);
  return outer.digest('hex');
}
