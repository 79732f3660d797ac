/**
 * The workload's own shapes: tokenizers and fixed-seq-len prompts. What the client runs is a driver
 * (driver.ts): it sends the driver's requests and knows nothing of tokenizers, turns or sessions.
 */

/** A tokenizer as the workload and the client's output counting use it (no special tokens added). */
export interface TextTokenizer {
  readonly kind: 'builtin' | 'huggingface';
  /** e.g. 'o200k_base' or the model directory's name. */
  readonly name: string;
  /** Directory it was loaded from; null for the built-in one. */
  readonly path: string | null;
  /** Base vocabulary size, added/special tokens excluded (ids 0..vocabSize-1 are valid to decode). */
  readonly vocabSize: number;
  encode(text: string): number[];
  decode(ids: readonly number[]): string;
  /** Renders one user message with the generation prompt; null when the tokenizer has no chat template. */
  applyChatTemplate(userText: string): string | null;
}

/** One prompt of a fixed-seq-len workload. */
export interface FixedPrompt {
  index: number;
  /** What is sent: raw text (completions), or the user message content (chat). */
  text: string;
  /** Input length the sampler drew for this prompt (chat-template budget included). */
  targetInputTokens: number;
  /** Token count of what is sent, under the tokenizer (template included when the client renders it). */
  inputTokens: number;
  /** max_tokens for this prompt. */
  outputTokens: number;
}
