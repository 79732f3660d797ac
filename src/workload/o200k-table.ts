import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * o200k_base's vocabulary as typed arrays: every token's bytes end to end, their offsets, and an
 * open-addressing hash table (FNV-1a, linear probing) from bytes to id. Built from gpt-tokenizer's own
 * `data/o200k_base.tiktoken` (~35 ms, cold), or read as saved by the build next to the bundle
 * (`dist/o200k_base.bin`, a few ms) when that file was made from the same vocabulary file.
 */

export interface O200kTable {
  bytes: Uint8Array;
  /** vocabSize + 1 entries: token id's bytes are bytes[offsets[id], offsets[id + 1]). */
  offsets: Uint32Array;
  /** Token ids, NONE where empty; a power-of-two length. */
  slots: Int32Array;
}

export const NONE = -1;
export const TABLE_FILE = 'o200k_base.bin';
const MAGIC = 0x6b303032; // "200k", little-endian
const FORMAT = 1;
const HEADER_WORDS = 8;

/** FNV-1a over buf[start, end), avalanched (FNV-1a's low bits alone are poorly mixed: bit 0 is a parity). */
export function fnv(buf: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ (buf[i] as number), 0x01000193);
  return mix(h);
}

function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** The strict UTF-8 check gpt-tokenizer applies to byte slices (its utfUtil isValidUTF8). */
export function isValidUtf8(b: Uint8Array, start: number, end: number): boolean {
  let i = start;
  while (i < end) {
    const b1 = b[i] as number;
    let n: number;
    let cp: number;
    if (b1 <= 0x7f) {
      i++;
      continue;
    }
    if ((b1 & 0xe0) === 0xc0) {
      if (b1 <= 0xc1) return false;
      n = 2;
      cp = b1 & 0x1f;
    } else if ((b1 & 0xf0) === 0xe0) {
      n = 3;
      cp = b1 & 0x0f;
    } else if ((b1 & 0xf8) === 0xf0) {
      if (b1 > 0xf4) return false;
      n = 4;
      cp = b1 & 0x07;
    } else return false;
    if (i + n > end) return false;
    for (let j = 1; j < n; j++) {
      const c = b[i + j] as number;
      if ((c & 0xc0) !== 0x80) return false;
      cp = (cp << 6) | (c & 0x3f);
    }
    if ((n === 3 && cp < 0x800) || (n === 4 && cp < 0x10000)) return false;
    if ((cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) return false;
    i += n;
  }
  return true;
}

export const hasBom = (b: Uint8Array, start: number, end: number): boolean =>
  end - start >= 3 && b[start] === 0xef && b[start + 1] === 0xbb && b[start + 2] === 0xbf;

/** gpt-tokenizer's vocabulary file, and what identifies its content (a saved table must match it). */
export function o200kSource(): { path: string; key: string } {
  const req = createRequire(import.meta.url);
  const path = req.resolve('gpt-tokenizer/data/o200k_base.tiktoken');
  const { version } = req('gpt-tokenizer/package.json') as { version: string };
  return { path, key: `gpt-tokenizer@${version} o200k_base.tiktoken ${statSync(path).size} bytes` };
}

const BASE64 = new Int16Array(256).fill(-1);
for (const [i, c] of [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'].entries())
  BASE64[c.charCodeAt(0)] = i;

/** Parses `base64 rank` lines (ranks 0, 1, 2, … in order) and builds the hash table over the tokens. */
export function parseTiktoken(file: Uint8Array): O200kTable {
  const bytes = new Uint8Array(Math.ceil((file.length * 3) / 4));
  // A line is at least 7 bytes ("AA== 0\n").
  const hashes = new Int32Array(Math.ceil(file.length / 7) + 1);
  const offsets = new Uint32Array(hashes.length + 1);
  const B = BASE64;
  let at = 0;
  let n = 0;
  let i = 0;
  while (i < file.length) {
    let h = 0x811c9dc5;
    while (i < file.length && file[i] !== 32) {
      const a = B[file[i] as number] as number;
      const b = B[file[i + 1] as number] as number;
      const c = B[file[i + 2] as number] as number;
      const d = B[file[i + 3] as number] as number;
      if ((a | b) < 0) throw new Error(`o200k_base.tiktoken: bad base64 at byte ${i}`);
      i += 4;
      let x = (a << 2) | (b >> 4);
      bytes[at++] = x;
      h = Math.imul(h ^ x, 0x01000193);
      if (c >= 0) {
        x = ((b & 15) << 4) | (c >> 2);
        bytes[at++] = x;
        h = Math.imul(h ^ x, 0x01000193);
        if (d >= 0) {
          x = ((c & 3) << 6) | d;
          bytes[at++] = x;
          h = Math.imul(h ^ x, 0x01000193);
        }
      }
    }
    let rank = 0;
    for (i++; i < file.length && file[i] !== 10; i++) rank = rank * 10 + (file[i] as number) - 48;
    i++;
    if (rank !== n) throw new Error(`o200k_base.tiktoken: expected rank ${n}, found ${rank}`);
    hashes[n] = h;
    offsets[++n] = at;
  }
  let size = 1;
  while (size < n * 2) size <<= 1;
  const mask = size - 1;
  const slots = new Int32Array(size).fill(NONE);
  for (let id = 0; id < n; id++) {
    const s = offsets[id] as number;
    const e = offsets[id + 1] as number;
    // gpt-tokenizer keeps these (valid UTF-8 after a byte-order mark) as byte arrays that no lookup ever
    // reaches: its string lookup decodes bytes with the BOM stripped, its byte lookup sees invalid UTF-8 only.
    if (hasBom(bytes, s, e) && isValidUtf8(bytes, s, e)) continue;
    let slot = mix(hashes[id] as number) & mask;
    while (slots[slot] !== NONE) slot = (slot + 1) & mask;
    slots[slot] = id;
  }
  return { bytes: bytes.slice(0, at), offsets: offsets.slice(0, n + 1), slots };
}

/** The table as one file: a header (with the source key), offsets, slots, bytes; native (little) endian. */
export function serializeTable(table: O200kTable, key: string): Uint8Array {
  const keyBytes = new TextEncoder().encode(key);
  const keyWords = Math.ceil(keyBytes.length / 4);
  const words = HEADER_WORDS + keyWords + table.offsets.length + table.slots.length;
  const out = new Uint8Array(words * 4 + table.bytes.length);
  const u32 = new Uint32Array(out.buffer, 0, words);
  u32.set([MAGIC, FORMAT, table.offsets.length - 1, table.slots.length, table.bytes.length, keyBytes.length]);
  out.set(keyBytes, HEADER_WORDS * 4);
  let w = HEADER_WORDS + keyWords;
  u32.set(table.offsets, w);
  w += table.offsets.length;
  new Int32Array(out.buffer, w * 4, table.slots.length).set(table.slots);
  w += table.slots.length;
  out.set(table.bytes, w * 4);
  return out;
}

/** A saved table, or null when the file is not one (or was made from another vocabulary file). */
export function deserializeTable(file: Uint8Array, key: string): O200kTable | null {
  if (file.length < HEADER_WORDS * 4) return null;
  // Typed-array views need 4-byte alignment.
  const buf = file.byteOffset % 4 === 0 ? file : file.slice();
  const header = new Uint32Array(buf.buffer, buf.byteOffset, HEADER_WORDS);
  const [magic, format, vocab = 0, slotCount = 0, byteCount = 0, keyLength = 0] = header;
  if (magic !== MAGIC || format !== FORMAT) return null;
  const keyWords = Math.ceil(keyLength / 4);
  const words = HEADER_WORDS + keyWords + vocab + 1 + slotCount;
  if (buf.length !== words * 4 + byteCount || (slotCount & (slotCount - 1)) !== 0) return null;
  const savedKey = new TextDecoder().decode(buf.subarray(HEADER_WORDS * 4, HEADER_WORDS * 4 + keyLength));
  if (savedKey !== key) return null;
  let w = HEADER_WORDS + keyWords;
  const offsets = new Uint32Array(buf.buffer, buf.byteOffset + w * 4, vocab + 1);
  w += vocab + 1;
  const slots = new Int32Array(buf.buffer, buf.byteOffset + w * 4, slotCount);
  const bytes = buf.subarray(words * 4);
  if (offsets[0] !== 0 || offsets[vocab] !== byteCount) return null;
  return { bytes, offsets, slots };
}

/** A saved table next to this code's package (dist/o200k_base.bin), from sources and from bundles alike. */
function savedTablePath(): string | null {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++, dir = dirname(dir)) {
    const path = join(dir, 'dist', TABLE_FILE);
    if (existsSync(path)) return path;
  }
  return null;
}

/** The table: saved by the build when there is a matching one, else built from the vocabulary file. */
export function loadTable(): O200kTable {
  const source = o200kSource();
  const saved = savedTablePath();
  if (saved) {
    try {
      const table = deserializeTable(readFileSync(saved), source.key);
      if (table) return table;
    } catch {
      // Unreadable: build it instead.
    }
  }
  return parseTiktoken(readFileSync(source.path));
}

/** Saves the table for `loadTable` (the build writes dist/o200k_base.bin). */
export function saveTable(path: string): void {
  const source = o200kSource();
  writeFileSync(path, serializeTable(parseTiktoken(readFileSync(source.path)), source.key));
}
