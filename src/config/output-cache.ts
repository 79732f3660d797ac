import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { storeCacheEntry } from './cache-entries.ts';

/**
 * A cache of a command's whole output, keyed by everything the output is a function of: the infx build, the
 * command line, the working folder, the environment it reads, and the exact bytes of every input file (a
 * file that was absent is an input too). A hit replays stdout and stderr without loading the CLI; any
 * changed byte, flag or build misses. Only successful runs are stored. Like the parse cache, its I/O
 * problems are never fatal: a missing, unreadable or corrupt entry is a miss.
 *
 * This module is loaded on its own before the CLI (bin/infx.js): it imports nothing but Node.
 */

const MAX_ENTRIES = 16;
/** An output larger than this is not kept (the reference configs' full sweep is 1.3 MB). */
const MAX_OUTPUT_BYTES = 16 * 1024 * 1024;
/** An input file larger than this is not hashed here; the CLI reads it and says what is wrong. */
const MAX_INPUT_BYTES = 64 * 1024 * 1024;
const FORMAT = 2;

/** What the output depends on besides its input files; hashed into the entry's name. */
export interface OutputKey {
  buildId: string;
  argv: readonly string[];
  cwd: string;
  /** The environment variables the command reads, as they were when the process started. */
  env: Readonly<Record<string, string | undefined>>;
}

export interface CachedOutput {
  stdout: string;
  stderr: string;
}

/**
 * An entry file is this header as one line of JSON, then stdout's bytes as they are: a hit hands them to
 * stdout without decoding or unescaping a megabyte of JSON.
 */
interface Header {
  format: number;
  key: string;
  /** Absolute path → sha256 of its bytes, or null: the file did not exist. */
  inputs: Record<string, string | null>;
  stderr: string;
  stdoutBytes: number;
}

export function outputKey(k: OutputKey): string {
  const env = Object.keys(k.env)
    .sort()
    .map((name) => [name, k.env[name] ?? null]);
  return createHash('sha256')
    .update(JSON.stringify([FORMAT, k.buildId, k.cwd, k.argv, env]))
    .digest('hex');
}

const entryFile = (dir: string, key: string) => join(dir, 'output', `${key}.json`);

/**
 * The sha256 of a regular file's bytes; null when it does not exist; undefined when it cannot be told, or
 * (given `since`) when it was modified at or after that time, so may differ from what the command read.
 */
function fingerprint(path: string, since?: number): string | null | undefined {
  let fd: number;
  try {
    // Only regular files: a FIFO could block, a device never end. The CLI reports those.
    const st = statSync(path);
    if (!st.isFile() || st.size > MAX_INPUT_BYTES) return undefined;
    if (since !== undefined && st.mtimeMs >= since) return undefined;
    fd = openSync(path, 'r');
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? null : undefined;
  }
  try {
    if (!fstatSync(fd).isFile()) return undefined;
    return createHash('sha256').update(readFileSync(fd)).digest('hex');
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** The output stored under `key` when every input file still has the bytes it had; else null. */
export function lookupOutput(dir: string, key: string): { stdout: Buffer; stderr: string } | null {
  let header: Header;
  let stdout: Buffer;
  try {
    const bytes = readFileSync(entryFile(dir, key));
    const eol = bytes.indexOf(0x0a);
    if (eol < 0) return null;
    header = JSON.parse(bytes.subarray(0, eol).toString('utf8')) as Header;
    stdout = bytes.subarray(eol + 1);
  } catch {
    return null;
  }
  if (
    typeof header !== 'object' ||
    header === null ||
    header.format !== FORMAT ||
    header.key !== key ||
    header.stdoutBytes !== stdout.length ||
    typeof header.stderr !== 'string' ||
    typeof header.inputs !== 'object' ||
    header.inputs === null
  )
    return null;
  for (const [path, hash] of Object.entries(header.inputs)) {
    const now = fingerprint(path);
    if (now === undefined || now !== hash) return null;
  }
  return { stdout, stderr: header.stderr };
}

/**
 * Stores a successful run's output with the input files it read (paths relative to `cwd` or absolute).
 * `startedAt` (epoch ms): when the run began; a file changed since then is not vouched for, so nothing is stored.
 */
export function storeOutput(
  dir: string,
  key: string,
  cwd: string,
  inputFiles: readonly string[],
  output: CachedOutput,
  startedAt: number,
): void {
  try {
    const stdout = Buffer.from(output.stdout, 'utf8');
    if (stdout.length + Buffer.byteLength(output.stderr) > MAX_OUTPUT_BYTES) return;
    const inputs: Record<string, string | null> = {};
    for (const f of inputFiles) {
      const path = resolve(cwd, f);
      const hash = fingerprint(path, startedAt);
      if (hash === undefined) return; // not something a later run could check
      inputs[path] = hash;
    }
    const header: Header = { format: FORMAT, key, inputs, stderr: output.stderr, stdoutBytes: stdout.length };
    const entry = Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), stdout]);
    storeCacheEntry(join(dir, 'output'), entryFile(dir, key), entry, MAX_ENTRIES);
  } catch {
    // A read-only or full disk only costs speed.
  }
}
