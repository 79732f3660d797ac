import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CallParts, TraceParts } from './compile-trace.ts';
import type { DroppedTrace } from './corpus.ts';
import type { LineSpan } from './line-index.ts';

/**
 * The on-disk cache of compiled corpora: one binary file per key (corpus bytes, tokenizer, seed, compiler
 * version) in its own directory beside the prompt cache's sets (so the prompt cache's size pruning covers
 * it). Bulk data is typed arrays (hash ids, call table), read back as views without parsing; a SHA-256
 * trailer makes any corrupt or truncated file a miss. Writes are atomic (temp file, rename); cache I/O
 * problems only cost time.
 *
 * Layout: "INFXAC01", u32 header bytes, header JSON, zero padding to 8, f64 times[calls],
 * i32 table[calls × 10], i32 adds[adds × 3], i32 ids[ids of the calls that own theirs], sha256 of everything
 * before. A trace's entry in the header may say where its line is in the corpus (`at`: file, offset,
 * length, line), so that a warm start reads that one line when the replay asks for the trace itself. A call whose ids are a prefix view of a later call's (compile-trace.ts `shareIds`) stores none.
 */

const MAGIC = Buffer.from('INFXAC01');
const FIELDS = 10;

export interface CachedCorpus {
  seed: number;
  tokenizer: string;
  words: string[];
  /** Traces `maxContext` left out, as the read reported them. */
  dropped: DroppedTrace[];
  traces: TraceParts[];
  /** Each trace's line in the corpus (parallel to `traces`), when known. */
  sources?: LineSpan[];
}

interface Header {
  key: string;
  seed: number;
  tokenizer: string;
  words: string[];
  dropped: DroppedTrace[];
  traces: { id: string; blockSize: number; models: string[]; calls: number; at?: number[] }[];
  calls: number;
  adds: number;
  ids: number;
}

export function compiledCacheFile(root: string, key: string): string {
  return join(root, `agentic-${key.slice(0, 32)}`, 'compiled.bin');
}

export function encodeCompiled(key: string, corpus: CachedCorpus): Buffer {
  let calls = 0;
  let adds = 0;
  let ids = 0;
  for (const t of corpus.traces)
    for (const c of t.calls) {
      calls++;
      adds += c.recipe.add.length;
      if (c.idsOwner === -1) ids += c.hashIds.length;
    }
  const header: Header = {
    key,
    seed: corpus.seed,
    tokenizer: corpus.tokenizer,
    words: corpus.words,
    dropped: corpus.dropped,
    traces: corpus.traces.map((t, i) => {
      const src = corpus.sources?.[i];
      return {
        id: t.id,
        blockSize: t.blockSize,
        models: t.models,
        calls: t.calls.length,
        ...(src === undefined ? {} : { at: [src.file, src.offset, src.length, src.lineNo] }),
      };
    }),
    calls,
    adds,
    ids,
  };
  const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
  const start = align8(MAGIC.length + 4 + headerBytes.length);
  const size = start + calls * 8 + (calls * FIELDS + adds * 3 + ids) * 4;
  const out = Buffer.alloc(size + 32);
  MAGIC.copy(out, 0);
  out.writeUInt32LE(headerBytes.length, MAGIC.length);
  headerBytes.copy(out, MAGIC.length + 4);
  const times = new Float64Array(out.buffer, out.byteOffset + start, calls);
  const ints = new Int32Array(
    out.buffer,
    out.byteOffset + start + calls * 8,
    calls * FIELDS + adds * 3 + ids,
  );
  let ci = 0;
  let ti = 0;
  let ai = calls * FIELDS;
  let ii = ai + adds * 3;
  for (const t of corpus.traces)
    for (const c of t.calls) {
      times[ti++] = c.t;
      const { base, keep, add } = c.recipe;
      ints.set(
        [
          c.outer,
          c.inner,
          (c.preamble ? 1 : 0) | (c.resetContext ? 2 : 0),
          c.modelSlot,
          c.maxTokens,
          c.hashIds.length,
          c.idsOwner,
          base,
          keep,
          add.length,
        ],
        ci,
      );
      ci += FIELDS;
      for (const a of add) {
        ints.set(a, ai);
        ai += 3;
      }
      if (c.idsOwner === -1) {
        ints.set(c.hashIds, ii);
        ii += c.hashIds.length;
      }
    }
  createHash('sha256').update(out.subarray(0, size)).digest().copy(out, size);
  return out;
}

/** A cache file checked and indexed, its traces decoded one at a time when asked for (a warm start's first request). */
export interface OpenedCache {
  seed: number;
  tokenizer: string;
  words: string[];
  dropped: DroppedTrace[];
  /** Where each trace's line is in the corpus, when the writer knew (compile-open.ts). */
  sources: LineSpan[] | null;
  traceCount: number;
  /** Trace `i` (0-based), or null when its data does not hold together (treat the whole file as a miss). */
  trace(i: number): TraceParts | null;
}

/** `bytes` checked (digest, key, sizes) and indexed per trace, nothing decoded yet; null: a miss. */
export function openCompiled(bytes: Buffer, key: string): OpenedCache | null {
  try {
    if (bytes.length < MAGIC.length + 4 + 32 || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) return null;
    const size = bytes.length - 32;
    const digest = createHash('sha256').update(bytes.subarray(0, size)).digest();
    if (!digest.equals(bytes.subarray(size))) return null;
    const headerLength = bytes.readUInt32LE(MAGIC.length);
    const header = JSON.parse(
      bytes.toString('utf8', MAGIC.length + 4, MAGIC.length + 4 + headerLength),
    ) as Header;
    if (header.key !== key) return null;
    const start = align8(MAGIC.length + 4 + headerLength);
    const intCount = header.calls * FIELDS + header.adds * 3 + header.ids;
    if (start + header.calls * 8 + intCount * 4 !== size) return null;
    // Views need an 8-aligned base; a pooled Buffer may not give one.
    const buf = bytes.byteOffset % 8 === 0 ? bytes : Buffer.from(bytes);
    const times = new Float64Array(buf.buffer, buf.byteOffset + start, header.calls);
    const ints = new Int32Array(buf.buffer, buf.byteOffset + start + header.calls * 8, intCount);
    // Where each trace's calls, adds and owned ids start: one pass over the call table.
    const at: [number, number, number][] = [];
    let call = 0;
    let ai = header.calls * FIELDS;
    let ii = ai + header.adds * 3;
    for (const t of header.traces) {
      at.push([call, ai, ii]);
      for (let k = 0; k < t.calls; k++, call++) {
        const f = call * FIELDS;
        ai += (ints[f + 9] as number) * 3;
        if (ints[f + 6] === -1) ii += ints[f + 5] as number;
      }
    }
    if (call !== header.calls || ai !== header.calls * FIELDS + header.adds * 3 || ii !== intCount)
      return null;
    const sources = header.traces.every((t) => Array.isArray(t.at) && t.at.length === 4)
      ? header.traces.map((t) => {
          const [file, offset, length, lineNo] = t.at as number[];
          return { file, offset, length, lineNo } as LineSpan;
        })
      : null;
    return {
      seed: header.seed,
      tokenizer: header.tokenizer,
      words: header.words,
      dropped: Array.isArray(header.dropped) ? header.dropped : [],
      sources,
      traceCount: header.traces.length,
      trace(i) {
        const t = header.traces[i];
        const from = at[i];
        if (t === undefined || from === undefined) return null;
        try {
          return decodeTrace(t, times, ints, from);
        } catch {
          return null;
        }
      },
    };
  } catch {
    return null;
  }
}

function decodeTrace(
  t: Header['traces'][number],
  times: Float64Array,
  ints: Int32Array,
  [first, addsAt, idsAt]: [number, number, number],
): TraceParts | null {
  let ai = addsAt;
  let ii = idsAt;
  const calls: CallParts[] = [];
  for (let k = 0; k < t.calls; k++) {
    const f = (first + k) * FIELDS;
    const flags = ints[f + 2] as number;
    const idsLength = ints[f + 5] as number;
    const idsOwner = ints[f + 6] as number;
    const addCount = ints[f + 9] as number;
    const own = idsOwner === -1;
    const add: [number, number, number][] = [];
    for (let a = 0; a < addCount; a++, ai += 3)
      add.push([ints[ai] as number, ints[ai + 1] as number, ints[ai + 2] as number]);
    calls.push({
      outer: ints[f] as number,
      inner: ints[f + 1] as number,
      t: times[first + k] as number,
      preamble: (flags & 1) !== 0,
      resetContext: (flags & 2) !== 0,
      modelSlot: ints[f + 3] as number,
      maxTokens: ints[f + 4] as number,
      // A view's owner comes later in the trace: filled in below.
      hashIds: own ? ints.subarray(ii, ii + idsLength) : new Int32Array(idsLength),
      idsOwner,
      recipe: { base: ints[f + 7] as number, keep: ints[f + 8] as number, add },
    });
    if (own) ii += idsLength;
  }
  for (const c of calls) {
    if (c.idsOwner === -1) continue;
    const owner = calls[c.idsOwner];
    if (owner === undefined || owner.idsOwner !== -1 || owner.hashIds.length < c.hashIds.length) return null;
    c.hashIds = owner.hashIds.subarray(0, c.hashIds.length);
  }
  return { id: t.id, blockSize: t.blockSize, models: t.models, calls };
}

/** The cached corpus of `key` in `bytes`, every trace decoded, or null for anything that is not exactly one (a miss). */
export function decodeCompiled(bytes: Buffer, key: string): CachedCorpus | null {
  const opened = openCompiled(bytes, key);
  if (opened === null) return null;
  const traces: TraceParts[] = [];
  for (let i = 0; i < opened.traceCount; i++) {
    const t = opened.trace(i);
    if (t === null) return null;
    traces.push(t);
  }
  const { seed, tokenizer, words, dropped, sources } = opened;
  return { seed, tokenizer, words, dropped, traces, ...(sources === null ? {} : { sources }) };
}

/** The cache file of `key` opened (openCompiled), or null on a miss. */
export function openCompiledFile(root: string, key: string): OpenedCache | null {
  let bytes: Buffer;
  try {
    bytes = readFileSync(compiledCacheFile(root, key));
  } catch {
    return null;
  }
  return openCompiled(bytes, key);
}

export function writeCompiled(root: string, key: string, corpus: CachedCorpus): void {
  const file = compiledCacheFile(root, key);
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(tmp, encodeCompiled(key, corpus));
    renameSync(tmp, file);
  } catch {
    rmSync(tmp, { force: true });
  }
}

function align8(n: number): number {
  return (n + 7) & ~7;
}
