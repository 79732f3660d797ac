import { WorkloadError } from './errors.ts';
import { tokenizerFingerprint } from './fingerprint.ts';
import { CHUNK, defaultPromptCacheDir, openPromptCache, type PromptCache } from './prompt-cache.ts';
import { Rng } from './random.ts';
import type { FixedPrompt, TextTokenizer } from './types.ts';

/**
 * Fixed-seq-len prompts (client-metrics spec §1.2): random-token prompts whose input length is drawn
 * uniformly from [floor(ISL_eff·r), ISL_eff] and output length from [floor(OSL·r), OSL], each built as a
 * contiguous run of token ids, decoded, and fixed up until it re-encodes to the drawn length.
 *
 * Randomness: prompt i draws everything (its lengths, its offset, the fix-up ids) from its own stream
 * Rng(seed, i), so prompt i is the same whatever `numPrompts` is. The ids are not NumPy-bit-exact with
 * the reference (see random.ts); the length distribution, the run construction and the chat-template
 * budget are the same.
 */

export type ChatTemplateMode = 'client' | 'server' | 'none';

export interface FixedSeqLenOptions {
  tokenizer: TextTokenizer;
  /** Target input length, chat template included. */
  isl: number;
  osl: number;
  /** r in [0, 1]: lengths are drawn from [floor(L·r), L]. The reference CI uses 0.8. */
  randomRangeRatio: number;
  numPrompts: number;
  seed: number;
  /**
   * 'client': the prompt is wrapped in the tokenizer's chat template here and sent as a pre-rendered
   * string (completions endpoint, like the reference's --use-chat-template). 'server': the text is sent
   * raw as the user message and the chat endpoint's server applies the template; its tokens are still
   * budgeted and counted. 'none': raw text, no budget.
   */
  chatTemplate: ChatTemplateMode;
  onProgress?: (done: number, total: number) => void;
  /** Prompt cache directory: undefined = the default (honours INFX_NO_CACHE), null = no cache. */
  cacheDir?: string | null;
}

/** What the options resolve to before any prompt is built. */
export interface FixedSeqLenPlan {
  /** Tokens the chat template adds around a message (0 without one): template("a") tokens − 1. */
  templateTokens: number;
  /** Raw input budget: ISL − templateTokens. */
  effectiveIsl: number;
  /** Inclusive range of the drawn raw input lengths. */
  inputRange: [number, number];
  /** Inclusive range of the drawn output lengths (max_tokens). */
  outputRange: [number, number];
}

/**
 * Bump when anything that changes the built prompts changes (draw order, fix-up, templating): cached
 * prompt sets of another version are then never read.
 */
const PROMPT_FORMAT = 1;
/** Re-encode attempts of the round-trip fix-up (the reference's max_retry). */
const MAX_FIXUPS = 10;
/** Give the event loop a turn this often, so progress displays and signals stay live. */
const YIELD_MS = 50;

/** Validates the options and computes the template budget and the length ranges. */
export function planFixedSeqLen(opts: Omit<FixedSeqLenOptions, 'onProgress' | 'cacheDir'>): FixedSeqLenPlan {
  const { tokenizer, isl, osl, randomRangeRatio: r, numPrompts, seed, chatTemplate } = opts;
  positiveInt('isl', isl);
  positiveInt('osl', osl);
  positiveInt('numPrompts', numPrompts);
  if (typeof r !== 'number' || !Number.isFinite(r) || r < 0 || r > 1) {
    throw new WorkloadError(`randomRangeRatio must be a number in [0, 1], got ${r}`);
  }
  if (!Number.isSafeInteger(seed)) throw new WorkloadError(`seed must be an integer, got ${seed}`);
  if (chatTemplate !== 'client' && chatTemplate !== 'server' && chatTemplate !== 'none') {
    throw new WorkloadError(`chatTemplate must be 'client', 'server' or 'none', got ${String(chatTemplate)}`);
  }
  if (!Number.isSafeInteger(tokenizer.vocabSize) || tokenizer.vocabSize < 1) {
    throw new WorkloadError(`tokenizer ${tokenizer.name} has no usable vocabulary (${tokenizer.vocabSize})`);
  }
  const templated = chatTemplate === 'none' ? null : tokenizer.applyChatTemplate('a');
  if (chatTemplate === 'client' && templated === null) {
    throw new WorkloadError(
      `chat template 'client' needs a tokenizer with a chat template, and ${tokenizer.name} has none: ` +
        'pass the served model directory as the tokenizer, or let the server apply it (chat endpoint)',
    );
  }
  const templateTokens = templated === null ? 0 : Math.max(0, tokenizer.encode(templated).length - 1);
  const effectiveIsl = isl - templateTokens;
  if (effectiveIsl < 1) {
    throw new WorkloadError(
      `ISL ${isl} leaves no room for the prompt: the chat template of ${tokenizer.name} alone takes ` +
        `${templateTokens} tokens; use an ISL above ${templateTokens}`,
    );
  }
  return {
    templateTokens,
    effectiveIsl,
    inputRange: [Math.floor(effectiveIsl * r), effectiveIsl],
    outputRange: [Math.floor(osl * r), osl],
  };
}

/**
 * Builds prompts 0..numPrompts-1. Deterministic in (tokenizer, seed, lengths, ratio, template mode).
 * Results are cached on disk when the tokenizer comes from `loadTokenizer` (it has a fingerprint).
 */
export async function buildFixedSeqLenPrompts(opts: FixedSeqLenOptions): Promise<FixedPrompt[]> {
  const plan = planFixedSeqLen(opts);
  const { numPrompts: total, onProgress } = opts;
  const cache = openCache(opts);
  const prompts: FixedPrompt[] = [];
  let wrote = false;
  let lastYield = performance.now();
  for (let chunk = 0; chunk * CHUNK < total; chunk++) {
    const end = Math.min(total, (chunk + 1) * CHUNK);
    const inChunk = cache?.read(chunk) ?? [];
    let built = false;
    for (let i = chunk * CHUNK; i < end; i++) {
      const hit = inChunk[i - chunk * CHUNK];
      if (hit !== undefined) {
        prompts.push(hit);
      } else {
        const prompt = buildPrompt(opts, plan, i);
        prompts.push(prompt);
        inChunk.push(prompt);
        built = true;
      }
      onProgress?.(i + 1, total);
      if (performance.now() - lastYield >= YIELD_MS) {
        await new Promise<void>((done) => setImmediate(done));
        lastYield = performance.now();
      }
    }
    if (built && cache) {
      cache.write(chunk, inChunk);
      wrote = true;
    }
  }
  if (wrote) cache?.prune();
  return prompts;
}

/** Mean of inputTokens − targetInputTokens (the reference prints it as avg_token_mismatch). */
export function averageTokenMismatch(prompts: readonly FixedPrompt[]): number {
  if (prompts.length === 0) return 0;
  let sum = 0;
  for (const p of prompts) sum += p.inputTokens - p.targetInputTokens;
  return sum / prompts.length;
}

function openCache(opts: FixedSeqLenOptions): PromptCache | null {
  const dir = opts.cacheDir === undefined ? defaultPromptCacheDir() : opts.cacheDir;
  const fingerprint = tokenizerFingerprint(opts.tokenizer);
  if (dir === null || fingerprint === null) return null;
  return openPromptCache(dir, {
    format: PROMPT_FORMAT,
    tokenizer: fingerprint,
    seed: opts.seed,
    isl: opts.isl,
    osl: opts.osl,
    ratio: opts.randomRangeRatio,
    chatTemplate: opts.chatTemplate,
  });
}

function buildPrompt(opts: FixedSeqLenOptions, plan: FixedSeqLenPlan, index: number): FixedPrompt {
  const { tokenizer, chatTemplate } = opts;
  const vocab = tokenizer.vocabSize;
  // Draw order is part of PROMPT_FORMAT: input length, output length, offset, then fix-up ids.
  const rng = new Rng(opts.seed, index);
  const inputLen = rng.int(plan.inputRange[0], plan.inputRange[1]);
  const outputLen = rng.int(plan.outputRange[0], plan.outputRange[1]);
  const offset = rng.int(0, vocab - 1);
  const ids = new Array<number>(inputLen);
  for (let j = 0; j < inputLen; j++) ids[j] = (offset + index + j) % vocab;
  const fitted = fitToLength(tokenizer, ids, inputLen, rng);

  let text = fitted.text;
  let inputTokens = fitted.tokens;
  if (chatTemplate !== 'none') {
    const templated = tokenizer.applyChatTemplate(fitted.text);
    if (templated !== null) {
      // What the server tokenizes: the rendered prompt ('client' sends it; 'server' renders the same).
      inputTokens = tokenizer.encode(templated).length;
      if (chatTemplate === 'client') text = templated;
    }
  }
  return {
    index,
    text,
    targetInputTokens: inputLen + plan.templateTokens,
    inputTokens,
    outputTokens: outputLen,
  };
}

/**
 * The round-trip fix-up: decoding ids and re-encoding the text rarely gives the same count, so up to
 * MAX_FIXUPS times re-encode, then pad with random ids (too short) or truncate (too long) and decode
 * again, until the text encodes to exactly `target` tokens. Returns the text and its token count.
 */
function fitToLength(
  tokenizer: TextTokenizer,
  ids: number[],
  target: number,
  rng: Rng,
): { text: string; tokens: number } {
  let text = tokenizer.decode(ids);
  for (let attempt = 0; attempt < MAX_FIXUPS; attempt++) {
    const encoded = tokenizer.encode(text);
    if (encoded.length === target) return { text, tokens: target };
    let next: number[];
    if (encoded.length < target) {
      next = encoded;
      while (next.length < target) next.push(rng.int(0, tokenizer.vocabSize - 1));
    } else {
      next = encoded.slice(0, target);
    }
    text = tokenizer.decode(next);
  }
  return { text, tokens: tokenizer.encode(text).length };
}

function positiveInt(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new WorkloadError(`${name} must be a positive integer, got ${value}`);
  }
}
