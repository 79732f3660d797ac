import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CallParts, TraceParts } from './compile-trace.ts';
import type { DroppedTrace } from './corpus.ts';

/**
 * The on-disk cache of compiled corpora: one binary file per key (corpus bytes, tokenizer, seed, compiler
 * version) in its own directory beside the prompt cache's sets (so the prompt cache's size pruning covers
 * it). Bulk data is typed arrays (hash ids, call table), read back as views without parsing; a SHA-256
 * trailer makes any corrupt or truncated file a miss. Writes are atomic (temp file, rename); cache I/O
 * problems only cost time.
 *
 * Layout: "INFXAC01", u32 header bytes, header JSON, zero padding to 8, f64 times[calls],
 * i32 table[calls × 10], i32 adds[adds × 3], i32 ids[ids of the calls that own theirs], sha256 of everything
 * before. A call whose ids are a prefix view of a later call's (compile-trace.ts `shareIds`) stores none.
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
}

interface Header {
  key: string;
  seed: number;
  tokenizer: string;
  words: string[];
  dropped: DroppedTrace[];
  traces: { id: string; blockSize: number; models: string[]; calls: number }[];
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
    traces: corpus.traces.map((t) => ({
      id: t.id,
      blockSize: t.blockSize,
      models: t.models,
      calls: t.calls.length,
    })),
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

/** The cached corpus of `key` in `bytes`, or null for anything that is not exactly one (a miss). */
export function decodeCompiled(bytes: Buffer, key: string): CachedCorpus | null {
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
    let ci = 0;
    let ti = 0;
    let ai = header.calls * FIELDS;
    let ii = ai + header.adds * 3;
    const traces: (TraceParts | null)[] = header.traces.map((t) => {
      const calls: CallParts[] = [];
      for (let k = 0; k < t.calls; k++) {
        const f = ints.subarray(ci, ci + FIELDS);
        ci += FIELDS;
        const [outer, inner, flags, modelSlot, maxTokens, idsLength, idsOwner, base, keep, addCount] =
          f as unknown as number[];
        const own = idsOwner === -1;
        const add: [number, number, number][] = [];
        for (let a = 0; a < (addCount as number); a++) {
          add.push([ints[ai] as number, ints[ai + 1] as number, ints[ai + 2] as number]);
          ai += 3;
        }
        calls.push({
          outer: outer as number,
          inner: inner as number,
          t: times[ti++] as number,
          preamble: ((flags as number) & 1) !== 0,
          resetContext: ((flags as number) & 2) !== 0,
          modelSlot: modelSlot as number,
          maxTokens: maxTokens as number,
          // A view's owner comes later in the trace: filled in below.
          hashIds: own ? ints.subarray(ii, ii + (idsLength as number)) : new Int32Array(idsLength as number),
          idsOwner: idsOwner as number,
          recipe: { base: base as number, keep: keep as number, add },
        });
        if (own) ii += idsLength as number;
      }
      for (const c of calls) {
        if (c.idsOwner === -1) continue;
        const owner = calls[c.idsOwner];
        if (owner === undefined || owner.idsOwner !== -1 || owner.hashIds.length < c.hashIds.length)
          return null;
        c.hashIds = owner.hashIds.subarray(0, c.hashIds.length);
      }
      return { id: t.id, blockSize: t.blockSize, models: t.models, calls };
    });
    if (ii !== intCount || traces.some((t) => t === null)) return null;
    return {
      seed: header.seed,
      tokenizer: header.tokenizer,
      words: header.words,
      dropped: Array.isArray(header.dropped) ? header.dropped : [],
      traces: traces as TraceParts[],
    };
  } catch {
    return null;
  }
}

export function readCompiled(root: string, key: string): CachedCorpus | null {
  let bytes: Buffer;
  try {
    bytes = readFileSync(compiledCacheFile(root, key));
  } catch {
    return null;
  }
  return decodeCompiled(bytes, key);
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
