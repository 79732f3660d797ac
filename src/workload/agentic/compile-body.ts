import { createHash } from 'node:crypto';
import type { TextTokenizer } from '../types.ts';
import { blocksText, type WordTable, wordTable } from './compile-blocks.ts';
import { markerIndex } from './compile-trace.ts';
import type { CompiledCall, CompiledCorpus, CompiledMessage, CompiledTrace } from './compile-types.ts';

/**
 * Request bytes of compiled calls, with no tokenizer on the hot path. A replayed trace gets a
 * `TraceTexts`: it renders each message's content once (JSON-ready bytes) and keeps it while the object
 * lives, so every later turn of the conversation reuses its predecessors' content Buffers. Contents do
 * not depend on the play (the cache-bust marker is a segment of its own), so one `TraceTexts` may serve
 * every concurrent play of its trace; drop it when none is left and its Buffers go with it. A body is an
 * array of segments (write them in order, or Buffer.concat) whose bytes are those of payload.ts
 * `buildConversationPayload` for the chat endpoint.
 */

/** The cache-bust marker of one play (client-metrics §2.3): in front of the first user message. */
export interface CacheBust {
  /** `[rid:<12 hex>]\n\n` */
  readonly text: string;
  /** Its bytes inside a JSON string. */
  readonly json: Buffer;
  /** Its tokens under the served tokenizer (counted once per play, never per request). */
  readonly tokens: number;
}

/**
 * The marker of play `play` of trace `traceId` in the run `runId`: a digest of the three (addendum §1.8:
 * benchmark UUID, recycle pass / play, trajectory), so every turn and subagent of a play shares it, its
 * warmup and profiling turns too, and another play or run never hits its cache.
 */
export function cacheBust(tokenizer: TextTokenizer, runId: string, play: number, traceId: string): CacheBust {
  const hex = createHash('sha256').update(`${runId}\0${play}\0${traceId}`).digest('hex').slice(0, 12);
  const text = `[rid:${hex}]\n\n`;
  return {
    text,
    json: Buffer.from(JSON.stringify(text).slice(1, -1), 'utf8'),
    tokens: tokenizer.encode(text).length,
  };
}

/** The served model of a slot: the main model → served[0], the others → served[1..], wrapping (addendum §1.6). */
export function servedModel(served: readonly string[], slot: number): string {
  if (served.length === 0) throw new RangeError('no served model given');
  if (slot <= 0 || served.length === 1) return served[0] as string;
  return served[1 + ((slot - 1) % (served.length - 1))] as string;
}

export interface BodyOptions {
  /** The served `--model` names. */
  served: readonly string[];
  marker: CacheBust | null;
  ignoreEos?: boolean;
  /** Instead of the call's recorded output length (the warmup's one-token requests). */
  maxTokens?: number;
}

const COMMA_HEAD = {
  system: Buffer.from(',{"role":"system","content":"'),
  user: Buffer.from(',{"role":"user","content":"'),
  assistant: Buffer.from(',{"role":"assistant","content":"'),
};
const MESSAGE_END = Buffer.from('"}');

/**
 * A message's content is rendered in parts of this many hash blocks (16k tokens at block size 64, about
 * 100 KB): a part takes well under a millisecond, so rendering ahead of a call's due time (`prerender`)
 * never holds the event loop long, and the parts go out as segments, never concatenated.
 */
export const PART_BLOCKS = 256;

export class TraceTexts {
  /**
   * Rendered parts of each message, framed: the first starts with the message's `,{"role":…,"content":"`
   * and the last ends with `"}`, so a message is one segment of a body (a segment is a write request
   * object that lives until the socket took its bytes). A message rendered ahead may be partly done.
   */
  private readonly contents = new WeakMap<CompiledMessage, Buffer[]>();
  private readonly table: WordTable;
  private readonly modelHeads = new Map<string, Buffer>();

  constructor(
    private readonly corpus: Pick<CompiledCorpus, 'seed' | 'words'>,
    readonly trace: CompiledTrace,
    table?: WordTable,
  ) {
    this.table = table ?? wordTable(corpus.words);
  }

  /** A message's framed bytes (after a comma), as parts, rendered once while this object lives. */
  framed(message: CompiledMessage): Buffer[] {
    const parts = this.parts(message);
    while (this.renderPart(message, parts));
    return parts;
  }

  private parts(message: CompiledMessage): Buffer[] {
    let parts = this.contents.get(message);
    if (parts === undefined) {
      parts = [];
      this.contents.set(message, parts);
    }
    return parts;
  }

  /** Renders the message's next missing part; false when none was missing. */
  private renderPart(message: CompiledMessage, parts: Buffer[]): boolean {
    const start = parts.length * PART_BLOCKS;
    // An empty message still gets its one (empty) part.
    if (parts.length > 0 && start >= message.ids.length) return false;
    const ids = message.ids.subarray(start, start + PART_BLOCKS);
    const head = parts.length === 0 ? COMMA_HEAD[message.role] : null;
    const tail = start + PART_BLOCKS >= message.ids.length ? MESSAGE_END : null;
    parts.push(
      blocksText(this.table, this.corpus.seed, this.trace.salt, ids, this.trace.blockSize, head, tail),
    );
    return true;
  }

  /**
   * Renders `call`'s message contents ahead of its send, a part at a time until `stop()` says so; true
   * when all are rendered (its body then costs no rendering).
   */
  prerender(call: CompiledCall, stop: () => boolean): boolean {
    for (const m of call.messages) {
      const parts = this.parts(m);
      while (this.renderPart(m, parts)) if (stop()) return false;
    }
    return true;
  }

  /** The chat-completions body of `call`, as segments: the content Buffers are shared, not copied. */
  body(call: CompiledCall, opts: BodyOptions): Buffer[] {
    const model = servedModel(opts.served, call.modelSlot);
    let head = this.modelHeads.get(model);
    if (head === undefined) {
      head = Buffer.from(`{"model":${JSON.stringify(model)},"messages":[`);
      this.modelHeads.set(model, head);
    }
    const out: Buffer[] = [head];
    const messages = call.messages;
    const markerAt = markerIndex(messages);
    messages.forEach((m, i) => {
      const parts = this.framed(m);
      const first = parts[0] as Buffer;
      // The first message has no comma before it; the marker goes in front of its message's content.
      const from = i === 0 ? 1 : 0;
      if (i === markerAt && opts.marker !== null) {
        const headLength = COMMA_HEAD[m.role].length;
        out.push(first.subarray(from, headLength), opts.marker.json, first.subarray(headLength));
      } else out.push(from === 0 ? first : first.subarray(from));
      for (let k = 1; k < parts.length; k++) out.push(parts[k] as Buffer);
    });
    out.push(
      Buffer.from(
        `],"max_completion_tokens":${opts.maxTokens ?? call.maxTokens},"temperature":0,"stream":true,` +
          `"stream_options":{"include_usage":true},"ignore_eos":${opts.ignoreEos ?? true}}`,
      ),
    );
    return out;
  }

  /** Client-side input tokens of `call` as sent with `marker`. */
  inputTokens(call: CompiledCall, marker: CacheBust | null): number {
    return call.inputTokens + (marker?.tokens ?? 0);
  }
}
