import { existsSync } from 'node:fs';
import { fingerprintOf, type LoadedTokenizer } from './fingerprint.ts';
import { findInHubCache, looksLikeModelId } from './hf-cache.ts';

/**
 * Loading the tokenizer a workload counts tokens with: the built-in `o200k_base` (a real BPE vocabulary,
 * no files needed), a local Hugging Face model directory, or a model id found in the local Hugging Face
 * cache (hf-cache.ts). All encode without adding special tokens. Never a network call.
 */

export type { LoadedTokenizer } from './fingerprint.ts';

export const BUILTIN_TOKENIZER = 'o200k_base';

export interface TokenizerRequest {
  /** A model directory, a tokenizer.json, or a model id (org/name) looked up in the local HF cache. */
  path?: string | undefined;
  /** A model id to look up in the local HF cache when no path is given (a real engine's model). */
  model?: string | undefined;
  /** Told when a model's tokenizer is not in the cache and the built-in one is used instead. */
  warn?: (message: string) => void;
}

/**
 * Nothing given: the built-in o200k_base. A path that exists: that model directory or tokenizer.json. A
 * model id (given as `path`, or as `model`): its snapshot in the local Hugging Face cache; when it is not
 * there, the built-in tokenizer, with a warning that says so and how to fetch the right one.
 */
export async function loadTokenizer(opts: TokenizerRequest = {}): Promise<LoadedTokenizer> {
  const asked = opts.path || undefined;
  const id =
    asked === undefined
      ? opts.model || undefined
      : !existsSync(asked) && looksLikeModelId(asked)
        ? asked
        : undefined;
  if (id !== undefined) {
    const found = findInHubCache(id);
    if (found.dir !== null) return loadTokenizer({ path: found.dir });
    opts.warn?.(
      `warning: the tokenizer of ${id} is not in the local Hugging Face cache (${found.repoDir}); token counts ` +
        `use the built-in ${BUILTIN_TOKENIZER} instead. To count with ${id}'s own tokenizer, fetch it once ` +
        `(\`hf download ${id} tokenizer.json tokenizer_config.json\`, or \`huggingface-cli download …\`; ` +
        'HF_HOME sets the cache) or pass --tokenizer DIR',
    );
    return loadTokenizer();
  }
  if (asked === undefined) {
    builtin ??= loadBuiltin().catch((err: unknown) => {
      builtin = undefined;
      throw err;
    });
    return builtin;
  }
  // Its libraries (@huggingface/tokenizers, jinja) load only for a tokenizer that needs them.
  const { loadHuggingFaceTokenizer } = await import('./hf-tokenizer.ts');
  return loadHuggingFaceTokenizer(asked);
}

let builtin: Promise<LoadedTokenizer> | undefined;

async function loadBuiltin(): Promise<LoadedTokenizer> {
  // Loaded on first use only, so commands without a workload never read the vocabulary. o200k.ts holds it
  // as typed arrays (a few ms to load, from the build's dist/o200k_base.bin) rather than gpt-tokenizer's
  // module of 200k strings (~150 ms to compile and index), and encodes exactly as gpt-tokenizer does.
  const { loadO200k } = await import('./o200k.ts');
  const vocab = loadO200k();
  // Mergeable ranks are ids 0..199997; o200k_base's special tokens sit at 199999 and up (199998 is
  // unused). Random ids are drawn below `vocabSize`, so no id can ever decode to a special token.
  const vocabSize = vocab.vocabSize;
  const textDecoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
  return {
    kind: 'builtin',
    name: BUILTIN_TOKENIZER,
    path: null,
    vocabSize,
    fingerprint: fingerprintOf(['builtin', BUILTIN_TOKENIZER]),
    // Special-token text is plain text: nothing is allowed, nothing is disallowed (never throws).
    encode: (text) => vocab.encode(text),
    // Our own decode: gpt-tokenizer's keeps undecodable trailing bytes inside a shared streaming decoder,
    // where they leak into the next call. This one decodes each call on its own, with U+FFFD for
    // invalid UTF-8 (like tiktoken's errors="replace").
    decode: (ids) => {
      let length = 0;
      for (const id of ids) length += vocab.bytesOf(id).length;
      const buffer = new Uint8Array(length);
      let at = 0;
      for (const id of ids) {
        const bytes = vocab.bytesOf(id);
        buffer.set(bytes, at);
        at += bytes.length;
      }
      return textDecoder.decode(buffer);
    },
    applyChatTemplate: () => null,
  };
}
