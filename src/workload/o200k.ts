import { O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { fnv, hasBom, isValidUtf8, loadTable, NONE, type O200kTable } from './o200k-table.ts';

/**
 * o200k_base over the typed-array vocabulary of o200k-table.ts instead of gpt-tokenizer's JS module of 200k
 * strings, whose compile and Map building cost ~150 ms per process (every simulated engine start pays it;
 * this loads in a few ms). It encodes exactly as gpt-tokenizer's `encode(text, { disallowedSpecial: new
 * Set() })` (special-token text is plain text), quirks included (see `rankOf`); a test compares the two.
 */

export interface O200kVocabulary {
  /** Mergeable ranks: ids 0..vocabSize-1. */
  readonly vocabSize: number;
  encode(text: string): number[];
  /** The bytes of one token (a view: do not write to it); throws a RangeError outside the vocabulary. */
  bytesOf(id: number): Uint8Array;
}

/** No lone surrogates (String.prototype.isWellFormed, which the ES2023 typings lack). */
function wellFormed(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    if (c > 0xdbff) return false;
    const d = s.charCodeAt(i + 1);
    if (!(d >= 0xdc00 && d <= 0xdfff)) return false;
    i++;
  }
  return true;
}

const MERGE_CACHE_SIZE = 100_000;

export function loadO200k(table: O200kTable = loadTable()): O200kVocabulary {
  const { bytes, offsets, slots } = table;
  const mask = slots.length - 1;
  const vocabSize = offsets.length - 1;

  /** The id whose bytes are exactly buf[start, end), or NONE. */
  const find = (buf: Uint8Array, start: number, end: number, hash: number): number => {
    const len = end - start;
    for (let i = hash & mask; ; i = (i + 1) & mask) {
      const id = slots[i] as number;
      if (id === NONE) return NONE;
      const s = offsets[id] as number;
      if ((offsets[id + 1] as number) - s !== len) continue;
      let k = 0;
      while (k < len && bytes[s + k] === buf[start + k]) k++;
      if (k === len) return id;
    }
  };

  /**
   * The rank of a byte slice as gpt-tokenizer's getBpeRankFromBytes finds it: a valid UTF-8 slice is
   * decoded first, which drops one leading byte-order mark, and looked up as that string.
   */
  const rankOf = (buf: Uint8Array, start: number, end: number): number => {
    if (hasBom(buf, start, end) && isValidUtf8(buf, start, end)) start += 3;
    if (start === end) return NONE;
    return find(buf, start, end, fnv(buf, start, end));
  };

  let scratch = new Uint8Array(1024);
  /** UTF-8 of `s` into `scratch` (lone surrogates as U+FFFD, as TextEncoder writes them); returns the length. */
  const utf8 = (s: string): number => {
    if (scratch.length < s.length * 3) scratch = new Uint8Array(s.length * 3);
    const out = scratch;
    let n = 0;
    for (let i = 0; i < s.length; i++) {
      let c = s.charCodeAt(i);
      if (c < 0x80) {
        out[n++] = c;
        continue;
      }
      if (c < 0x800) {
        out[n++] = 0xc0 | (c >> 6);
        out[n++] = 0x80 | (c & 0x3f);
        continue;
      }
      if (c >= 0xd800 && c <= 0xdfff) {
        const d = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
        if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
          c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
          i++;
          out[n++] = 0xf0 | (c >> 18);
          out[n++] = 0x80 | ((c >> 12) & 0x3f);
          out[n++] = 0x80 | ((c >> 6) & 0x3f);
          out[n++] = 0x80 | (c & 0x3f);
          continue;
        }
        c = 0xfffd;
      }
      out[n++] = 0xe0 | (c >> 12);
      out[n++] = 0x80 | ((c >> 6) & 0x3f);
      out[n++] = 0x80 | (c & 0x3f);
    }
    return n;
  };

  const INF = 0x7fffffff;
  /** gpt-tokenizer's bytePairMerge: repeatedly merge the lowest-ranked adjacent pair, leftmost first. */
  const merge = (piece: Uint8Array, length: number, out: number[]): void => {
    const starts: number[] = [];
    const ranks: number[] = [];
    const pairRank = (i: number): number => {
      const end = starts[i + 2];
      if (end === undefined) return INF;
      const r = rankOf(piece, starts[i] as number, end);
      return r === NONE ? INF : r;
    };
    for (let i = 0; i <= length; i++) {
      starts.push(i);
      if (i < length - 1) {
        const r = rankOf(piece, i, i + 2);
        ranks.push(r === NONE ? INF : r);
      } else ranks.push(INF);
    }
    while (starts.length > 1) {
      let lowest = INF;
      let at = -1;
      for (let i = 0; i < ranks.length - 1; i++) {
        const r = ranks[i] as number;
        if (r < lowest) {
          lowest = r;
          at = i;
        }
      }
      if (at === -1) break;
      starts.splice(at + 1, 1);
      ranks.splice(at, 1);
      ranks[at] = pairRank(at);
      if (at > 0) ranks[at - 1] = pairRank(at - 1);
    }
    for (let i = 0; i < starts.length - 1; i++) {
      const r = rankOf(piece, starts[i] as number, starts[i + 1] as number);
      if (r === NONE) throw new Error('o200k_base: a byte of the input has no token');
      out.push(r);
    }
  };

  let cache = new Map<string, number[]>();
  const split = new RegExp(O200K_TOKEN_SPLIT_REGEX.source, O200K_TOKEN_SPLIT_REGEX.flags);

  return {
    vocabSize,
    bytesOf(id) {
      if (!Number.isInteger(id) || id < 0 || id >= vocabSize)
        throw new RangeError(`token id ${id} is outside o200k_base (0..${vocabSize - 1})`);
      return bytes.subarray(offsets[id], offsets[id + 1]);
    },
    encode(text) {
      const out: number[] = [];
      split.lastIndex = 0;
      for (let m = split.exec(text); m !== null; m = split.exec(text)) {
        const piece = m[0];
        const length = utf8(piece);
        // The whole piece first (gpt-tokenizer's string lookup: never for text with lone surrogates).
        if (wellFormed(piece)) {
          const id = find(scratch, 0, length, fnv(scratch, 0, length));
          if (id !== NONE) {
            out.push(id);
            continue;
          }
        }
        const cached = cache.get(piece);
        if (cached) {
          for (const id of cached) out.push(id);
          continue;
        }
        const at = out.length;
        merge(scratch, length, out);
        if (cache.size >= MERGE_CACHE_SIZE) cache = new Map();
        cache.set(piece, out.slice(at));
      }
      return out;
    },
  };
}
