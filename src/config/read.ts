import { isAscii, isUtf8 } from 'node:buffer';
import { closeSync, constants, fstatSync, openSync, readSync, type Stats, statSync } from 'node:fs';
import type { Diagnostic } from '../schema/diagnostic.ts';

/**
 * Reading an input file with bounded time and memory: only regular files (a FIFO would block forever, a
 * device such as /dev/zero never ends), at most MAX_INPUT_BYTES, and only valid UTF-8. Every refusal is a
 * diagnostic that names the file and says how to fix it.
 */

/** The largest input file infx reads (64 MiB; the largest reference master config is 0.3 MB). */
export const MAX_INPUT_BYTES = 64 * 1024 * 1024;

const MIB = 1024 * 1024;
const NOT_REGULAR_HINT = 'infx reads inputs only from regular files; save the content to a file first';

export type ReadResult = { text: string } | { diagnostic: Diagnostic };

const problem = (
  file: string,
  rule: string,
  message: string,
  where: { line: number; column: number } | null = null,
): { diagnostic: Diagnostic } => ({
  diagnostic: {
    severity: 'error',
    rule,
    message,
    file,
    line: where?.line ?? null,
    column: where?.column ?? null,
    path: [],
  },
});

function kindOf(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

export interface ReadOptions {
  /** The message for a file that does not exist (callers keep the reference generator's wording). */
  missingMessage?: string;
  /** What the file is, for messages: "config file", "runner config", "matrix file". */
  what?: string;
  maxBytes?: number;
  /**
   * Read a FIFO (e.g. `--matrix <(infx matrix …)`) to its end instead of refusing it; still at most maxBytes.
   * Never for config files: a FIFO nobody writes to would block forever.
   */
  allowFifo?: boolean;
}

/** The bytes of a regular file, or why it cannot be read. */
export function readInputBytes(
  file: string,
  opts: ReadOptions = {},
): { bytes: Buffer } | { diagnostic: Diagnostic } {
  const what = opts.what ?? 'config file';
  const max = opts.maxBytes ?? MAX_INPUT_BYTES;
  let fd: number;
  try {
    // A FIFO is known by its path before it is opened: refused without opening it (which could release a
    // writer), or, where allowed, opened blocking, to wait for its writer and read to the end.
    const fifo = statSync(file).isFIFO();
    if (fifo && !opts.allowFifo)
      return problem(
        file,
        'file.not-regular',
        `${what} '${file}' is a FIFO (named pipe), not a regular file: ${NOT_REGULAR_HINT}`,
      );
    // O_NONBLOCK otherwise: should the path become a FIFO after the stat, opening it must not wait.
    fd = openSync(
      file,
      constants.O_RDONLY | (fifo ? 0 : (constants.O_NONBLOCK ?? 0)) | (constants.O_NOCTTY ?? 0),
    );
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR')
      return problem(file, 'file.missing', opts.missingMessage ?? `${what} '${file}' does not exist.`);
    if (code === 'EISDIR')
      return problem(
        file,
        'file.not-regular',
        `${what} '${file}' is a directory, not a file: name the YAML files in it`,
      );
    const why =
      code === 'EACCES' || code === 'EPERM'
        ? 'permission denied: make it readable (chmod u+r) or run as a user who can read it'
        : code === 'ELOOP'
          ? 'too many levels of symbolic links: point at the file itself'
          : `${code ?? 'error'}: ${(err as Error).message}`;
    return problem(file, 'file.unreadable', `${what} '${file}' cannot be read (${why})`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() && !(st.isFIFO() && opts.allowFifo)) {
      const hint = st.isDirectory() ? 'name the YAML files in it' : NOT_REGULAR_HINT;
      return problem(
        file,
        'file.not-regular',
        `${what} '${file}' is ${kindOf(st)}, not a regular file: ${hint}`,
      );
    }
    const tooLarge = (size: string) =>
      problem(
        file,
        'file.too-large',
        `${what} '${file}' is ${size}, over the ${max / MIB} MiB limit for an input file: split it into several files`,
      );
    if (st.isFile() && st.size > max) return tooLarge(`${(st.size / MIB).toFixed(1)} MiB`);
    // Read to the end, not to st.size: the file may change while it is read. Never past the limit.
    let buf = Buffer.allocUnsafe(Math.min(Math.max(st.size, 4096), max) + 1);
    let length = 0;
    for (;;) {
      if (length === buf.length) {
        if (length > max) return tooLarge(`more than ${max / MIB} MiB`);
        const bigger = Buffer.allocUnsafe(Math.min(buf.length * 2, max + 1));
        buf.copy(bigger, 0, 0, length);
        buf = bigger;
      }
      const n = readSync(fd, buf, length, buf.length - length, null);
      if (n === 0) break;
      length += n;
    }
    if (length > max) return tooLarge(`more than ${max / MIB} MiB`);
    return { bytes: buf.subarray(0, length) };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EISDIR')
      return problem(
        file,
        'file.not-regular',
        `${what} '${file}' is a directory, not a file: name the YAML files in it`,
      );
    return problem(
      file,
      'file.unreadable',
      `${what} '${file}' cannot be read (${code ?? 'error'}: ${(err as Error).message})`,
    );
  } finally {
    closeSync(fd);
  }
}

/** Whether the first bytes look like UTF-16 or UTF-32 (a byte-order mark, or NULs in every other byte). */
function wideEncoding(b: Buffer): string | undefined {
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xfe && b[2] === 0 && b[3] === 0)
    return 'UTF-32 (little-endian, byte-order mark FF FE 00 00)';
  if (b.length >= 4 && b[0] === 0 && b[1] === 0 && b[2] === 0xfe && b[3] === 0xff)
    return 'UTF-32 (big-endian, byte-order mark 00 00 FE FF)';
  if (b.length >= 2 && b[0] === 0xff && b[1] === 0xfe) return 'UTF-16 (little-endian, byte-order mark FF FE)';
  if (b.length >= 2 && b[0] === 0xfe && b[1] === 0xff) return 'UTF-16 (big-endian, byte-order mark FE FF)';
  // No mark: ASCII text in UTF-16 has a NUL in every other byte.
  const n = Math.min(b.length, 64) & ~1;
  if (n < 4) return undefined;
  let evenNul = 0;
  let oddNul = 0;
  for (let i = 0; i < n; i += 2) {
    if (b[i] === 0) evenNul++;
    if (b[i + 1] === 0) oddNul++;
  }
  const pairs = n / 2;
  if (oddNul === pairs && evenNul === 0)
    return 'UTF-16 (little-endian, no byte-order mark: a NUL after every character)';
  if (evenNul === pairs && oddNul === 0)
    return 'UTF-16 (big-endian, no byte-order mark: a NUL before every character)';
  return undefined;
}

/** The offset of the first byte that is not part of a valid UTF-8 sequence, and why. */
export function firstInvalidUtf8(b: Uint8Array): { offset: number; why: string } | undefined {
  const hex = (x: number) => `0x${x.toString(16).toUpperCase().padStart(2, '0')}`;
  let i = 0;
  while (i < b.length) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let min: number;
    if (c >= 0xc2 && c <= 0xdf) {
      need = 1;
      min = 0x80;
    } else if (c >= 0xe0 && c <= 0xef) {
      need = 2;
      min = 0x800;
    } else if (c >= 0xf0 && c <= 0xf4) {
      need = 3;
      min = 0x10000;
    } else {
      const why =
        c >= 0x80 && c <= 0xbf
          ? `byte ${hex(c)} is a continuation byte with no character before it`
          : `byte ${hex(c)} never occurs in UTF-8`;
      return { offset: i, why };
    }
    let cp = c & (0x3f >> need);
    for (let k = 1; k <= need; k++) {
      const d = b[i + k];
      if (d === undefined)
        return {
          offset: i,
          why: `byte ${hex(c)} starts a ${need + 1}-byte character that the file cuts off`,
        };
      if ((d & 0xc0) !== 0x80)
        return {
          offset: i,
          why: `byte ${hex(c)} starts a ${need + 1}-byte character but byte ${hex(d)} does not continue it`,
        };
      cp = (cp << 6) | (d & 0x3f);
    }
    if (cp < min) return { offset: i, why: `bytes from ${hex(c)} are an overlong encoding` };
    if (cp > 0x10ffff) return { offset: i, why: `bytes from ${hex(c)} encode a value beyond U+10FFFF` };
    if (cp >= 0xd800 && cp <= 0xdfff)
      return { offset: i, why: `bytes from ${hex(c)} encode a UTF-16 surrogate` };
    i += need + 1;
  }
  return undefined;
}

/** A file.encoding problem at a byte offset, with its line and column (in characters). */
function atByte(file: string, bytes: Buffer, offset: number, say: (where: string) => string): ReadResult {
  const lineStart = offset === 0 ? 0 : bytes.lastIndexOf(0x0a, offset - 1) + 1;
  let line = 1;
  for (let i = bytes.indexOf(0x0a); i !== -1 && i < offset; i = bytes.indexOf(0x0a, i + 1)) line++;
  const column = bytes.subarray(lineStart, offset).toString('utf8').length + 1;
  return problem(file, 'file.encoding', say(`line ${line}, column ${column} (byte offset ${offset})`), {
    line,
    column,
  });
}

/** File bytes → text: UTF-8 only (a UTF-8 byte-order mark is dropped); anything else names where it breaks. */
export function decodeUtf8(file: string, bytes: Buffer, what = 'config file'): ReadResult {
  const wide = wideEncoding(bytes);
  if (wide)
    return problem(
      file,
      'file.encoding',
      `${what} '${file}' is ${wide}; infx reads UTF-8: convert it (iconv -f UTF-16 -t UTF-8 ${file} > fixed.yaml)`,
      { line: 1, column: 1 },
    );
  if (!isUtf8(bytes)) {
    const bad = firstInvalidUtf8(bytes);
    return atByte(
      file,
      bytes,
      bad?.offset ?? 0,
      (where) => `invalid UTF-8 at ${where}: ${bad?.why ?? 'invalid byte'}; save the file as UTF-8`,
    );
  }
  // YAML allows no NUL; one in a UTF-8 file is a binary file or a bad concatenation.
  const nul = bytes.indexOf(0);
  if (nul >= 0)
    return atByte(
      file,
      bytes,
      nul,
      (where) => `a NUL byte (0x00) at ${where}: YAML text cannot contain one; is this a binary file?`,
    );
  // ASCII (the usual config) decodes as latin1: the same text, held in one byte per character, where
  // V8's UTF-8 decoder would build a two-byte string of twice the size.
  if (isAscii(bytes)) return { text: bytes.toString('latin1') };
  const bom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  return { text: bytes.toString('utf8', bom ? 3 : 0) };
}

/** A regular file of at most MAX_INPUT_BYTES of UTF-8 text, or the diagnostic that says why not. */
export function readInputText(file: string, opts: ReadOptions = {}): ReadResult {
  const read = readInputBytes(file, opts);
  if ('diagnostic' in read) return read;
  return decodeUtf8(file, read.bytes, opts.what);
}
