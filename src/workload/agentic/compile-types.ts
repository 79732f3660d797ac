/**
 * The compiled form of an agentic corpus (client-metrics §2.3): per call of every trace, the messages it
 * sends as runs of hash blocks, its max tokens and input tokens. Message objects are shared between the
 * calls of a conversation (a turn keeps its predecessor's messages and appends), and every message's ids
 * are a view into the call that first sent it, so a conversation's prefix exists once in memory.
 * compile-body.ts turns a call into request bytes without a tokenizer.
 */

import type { DroppedTrace } from './corpus.ts';

export type MessageRole = 'system' | 'user' | 'assistant';
export const ROLES: readonly MessageRole[] = ['system', 'user', 'assistant'];

export interface CompiledMessage {
  readonly role: MessageRole;
  /** The hash ids of its blocks (a view shared with the call that first sent it). */
  readonly ids: Int32Array;
}

/** How a call's messages derive from an earlier call's: kept messages, then appended [role, start, end). */
export interface MessageRecipe {
  /** Index (in the trace's calls) of the call whose first `keep` messages this call starts with; -1: none. */
  base: number;
  keep: number;
  /** Appended messages: role index into ROLES, and a block range of this call's hash ids. */
  add: [number, number, number][];
}

export interface CompiledCall {
  /** Index of its entry in the trace's `requests[]`, and inside its subagent (-1: the main agent). */
  readonly outer: number;
  readonly inner: number;
  /** Recorded start, absolute root-trace seconds. */
  readonly t: number;
  /** The leading title-generation call of the main agent (addendum §1.6), replayed on the main chain. */
  readonly preamble: boolean;
  /** Its hash ids do not extend its predecessor's (compaction, context edit: addendum §1.5). */
  readonly resetContext: boolean;
  /** 0: the trace's main model; k ≥ 1: the k-th other model in order of first appearance. */
  readonly modelSlot: number;
  /** The recorded output length: the request's max tokens. */
  readonly maxTokens: number;
  /** Client-side input tokens of the message contents: hash blocks × block size (cache-bust marker excluded). */
  readonly inputTokens: number;
  readonly hashIds: Int32Array;
  /** Built on each read from the call's chain (a fresh array of shared message objects): read it once a request. */
  readonly messages: readonly CompiledMessage[];
  /** Index of the first user message: the cache-bust marker goes in front of its content. */
  readonly markerMessage: number;
  readonly recipe: MessageRecipe;
}

export interface CompiledTrace {
  readonly id: string;
  readonly blockSize: number;
  /** Per-trace salt of the block texts (hash ids are local to a trace). */
  readonly salt: number;
  /** The trace's models by slot: [main, others in order of first appearance]. */
  readonly models: readonly string[];
  /** Every `n`/`s` call, in file order (walk.ts `apiCalls`). */
  readonly calls: readonly CompiledCall[];
}

export interface CompiledCorpus {
  /** The cache key: corpus bytes, tokenizer, seed, compiler version. */
  readonly key: string;
  readonly seed: number;
  readonly tokenizer: string;
  /** The filler words (compile-words.ts). */
  readonly words: readonly string[];
  readonly traces: readonly CompiledTrace[];
  /** Traces the corpus read left out for `--max-context` (file:line, id, context), in file order. */
  readonly dropped: readonly DroppedTrace[];
  /** Whether this came from the compile cache. */
  readonly fromCache: boolean;
}
