import { fingerprintOf, type LoadedTokenizer } from './fingerprint.ts';
import { loadHuggingFaceTokenizer } from './hf-tokenizer.ts';

/**
 * Loading the tokenizer a workload counts tokens with: the built-in `o200k_base` (a real BPE vocabulary,
 * no files needed) or a local Hugging Face model directory. Both encode without adding special tokens.
 */

export type { LoadedTokenizer } from './fingerprint.ts';

export const BUILTIN_TOKENIZER = 'o200k_base';

/** `path` absent: the built-in o200k_base. Otherwise a model directory or a path to its tokenizer.json. */
export async function loadTokenizer(opts: { path?: string } = {}): Promise<LoadedTokenizer> {
  if (opts.path === undefined || opts.path === '') {
    builtin ??= loadBuiltin().catch((err: unknown) => {
      builtin = undefined;
      throw err;
    });
    return builtin;
  }
  return loadHuggingFaceTokenizer(opts.path);
}

let builtin: Promise<LoadedTokenizer> | undefined;

/** Special-token text in input is plain text: nothing is allowed, nothing is disallowed (never throws). */
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

async function loadBuiltin(): Promise<LoadedTokenizer> {
  // Loaded on first use only: the vocabulary costs ~200 ms and ~70 MB, which commands without a
  // workload should not pay. Both imports resolve to the same ranks table.
  const [encoding, ranksModule] = await Promise.all([
    import('gpt-tokenizer/encoding/o200k_base'),
    import('gpt-tokenizer/bpeRanks/o200k_base'),
  ]);
  const ranks = ranksModule.default;
  // Mergeable ranks are ids 0..199997; `vocabularySize` (200006) also counts the special tokens, which
  // sit at 199999 and up (199998 is unused). Random ids are drawn below `vocabSize`, so no id can ever
  // decode to a special token.
  const vocabSize = ranks.length;
  const textEncoder = new TextEncoder();
  const textDecoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
  const bytesById: (Uint8Array | undefined)[] = new Array(vocabSize);
  const bytesOf = (id: number): Uint8Array => {
    let bytes = bytesById[id];
    if (bytes === undefined) {
      const entry = Number.isInteger(id) && id >= 0 && id < vocabSize ? ranks[id] : undefined;
      if (entry === undefined)
        throw new RangeError(`token id ${id} is outside o200k_base (0..${vocabSize - 1})`);
      bytes = typeof entry === 'string' ? textEncoder.encode(entry) : Uint8Array.from(entry);
      bytesById[id] = bytes;
    }
    return bytes;
  };
  return {
    kind: 'builtin',
    name: BUILTIN_TOKENIZER,
    path: null,
    vocabSize,
    fingerprint: fingerprintOf(['builtin', BUILTIN_TOKENIZER]),
    encode: (text) => encoding.encode(text, PLAIN_TEXT),
    // Our own decode: the library's keeps undecodable trailing bytes inside a shared streaming decoder,
    // where they leak into the next call. This one decodes each call on its own, with U+FFFD for
    // invalid UTF-8 (like tiktoken's errors="replace").
    decode: (ids) => {
      let length = 0;
      for (const id of ids) length += bytesOf(id).length;
      const buffer = new Uint8Array(length);
      let at = 0;
      for (const id of ids) {
        const bytes = bytesOf(id);
        buffer.set(bytes, at);
        at += bytes.length;
      }
      return textDecoder.decode(buffer);
    },
    applyChatTemplate: () => null,
  };
}
