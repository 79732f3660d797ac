import type { Endpoint } from '../openai-wire.ts';
import { promptText } from '../openai-wire.ts';

/**
 * Token ids of a request's prompt. A chat prompt is tokenized message by message and the pieces joined
 * with the ids of '\n' (the server's rendering: contents joined by newlines), so a conversation whose next
 * turn extends the message list has exactly the previous turn's ids as its prefix, and its prefix-cache
 * blocks match, whatever the tokenizer would merge across a message boundary. Message contents repeat
 * turn after turn in an agentic replay: their ids are memoized (bounded), so a growing 1M-token context is
 * not re-tokenized on every request.
 */

/** Tokens the memo keeps (4 bytes each): past it, the oldest entries go. */
export const PROMPT_MEMO_TOKENS = 16_000_000;

export class PromptIds {
  private readonly memo = new Map<string, Uint32Array>();
  private memoTokens = 0;
  private sep: Uint32Array | null = null;

  constructor(
    private readonly tokenize: (text: string) => number[],
    private readonly memoLimit = PROMPT_MEMO_TOKENS,
  ) {}

  of(endpoint: Endpoint, body: Record<string, unknown>): number[] {
    if (endpoint !== 'chat' || !Array.isArray(body.messages))
      return this.tokenize(promptText(endpoint, body));
    this.sep ??= Uint32Array.from(this.tokenize('\n'));
    const out: number[] = [];
    body.messages.forEach((m, i) => {
      if (i > 0) for (const id of this.sep!) out.push(id);
      const content = typeof m === 'object' && m !== null ? (m as { content?: unknown }).content : undefined;
      if (typeof content === 'string' && content !== '') for (const id of this.ids(content)) out.push(id);
    });
    return out;
  }

  private ids(text: string): Uint32Array {
    const hit = this.memo.get(text);
    if (hit) {
      this.memo.delete(text);
      this.memo.set(text, hit);
      return hit;
    }
    const ids = Uint32Array.from(this.tokenize(text));
    if (ids.length > this.memoLimit) return ids;
    this.memo.set(text, ids);
    this.memoTokens += ids.length;
    for (const [k, v] of this.memo) {
      if (this.memoTokens <= this.memoLimit) break;
      this.memo.delete(k);
      this.memoTokens -= v.length;
    }
    return ids;
  }
}
