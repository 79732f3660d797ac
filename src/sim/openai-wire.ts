/**
 * The OpenAI-compatible wire format of infx's servers (scripted and simulated): what they read from a
 * request body, and the exact SSE events and JSON bodies they write (shaped like vLLM's).
 */

export type Endpoint = 'completions' | 'chat';

/** What the server takes from a generation request body. */
export interface GenerationRequest {
  stream: boolean;
  /** stream_options.include_usage */
  includeUsage: boolean;
  /** max_tokens (chat: max_completion_tokens, else max_tokens); null when absent. */
  maxTokens: number | null;
  /** ceil(prompt characters / 4), or the number of token ids when the prompt is ids. */
  promptTokens: number;
}

export const DEFAULT_MAX_TOKENS = 16;

export class BadRequest extends Error {
  constructor(
    message: string,
    readonly param: string | null = null,
  ) {
    super(message);
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const isTokenIds = (v: unknown): v is number[] => Array.isArray(v) && v.every((x) => Number.isInteger(x));

const charsToTokens = (chars: number) => Math.ceil(chars / 4);

function completionPromptTokens(prompt: unknown): number {
  if (typeof prompt === 'string') return charsToTokens(prompt.length);
  if (isTokenIds(prompt)) return prompt.length;
  if (Array.isArray(prompt)) {
    let total = 0;
    for (const p of prompt) {
      if (typeof p === 'string') total += charsToTokens(p.length);
      else if (isTokenIds(p)) total += p.length;
      else throw new BadRequest('prompt must be a string, a list of strings or token ids', 'prompt');
    }
    return total;
  }
  throw new BadRequest('prompt must be a string, a list of strings or token ids', 'prompt');
}

function chatPromptTokens(messages: unknown): number {
  if (!Array.isArray(messages)) throw new BadRequest('messages must be a list', 'messages');
  let chars = 0;
  for (const m of messages) {
    if (!isRecord(m)) throw new BadRequest('each message must be an object', 'messages');
    const content = m.content;
    if (typeof content === 'string') chars += content.length;
    else if (Array.isArray(content)) {
      for (const part of content) {
        if (isRecord(part) && typeof part.text === 'string') chars += part.text.length;
      }
    }
  }
  return charsToTokens(chars);
}

function optionalCount(body: Record<string, unknown>, key: string): number | null {
  const v = body[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) {
    throw new BadRequest(`${key} must be a non-negative integer`, key);
  }
  return v;
}

/** The prompt as text: completions' prompt string(s), or chat messages' contents joined. */
export function promptText(endpoint: Endpoint, body: Record<string, unknown>): string {
  if (endpoint === 'completions') {
    const p = body.prompt;
    if (typeof p === 'string') return p;
    return Array.isArray(p) ? p.filter((x): x is string => typeof x === 'string').join('') : '';
  }
  const messages = Array.isArray(body.messages) ? body.messages : [];
  return messages.map((m) => (isRecord(m) && typeof m.content === 'string' ? m.content : '')).join('\n');
}

/** Reads a parsed JSON body; throws BadRequest for what no OpenAI server would accept. */
export function readGenerationRequest(endpoint: Endpoint, body: unknown): GenerationRequest {
  if (!isRecord(body)) throw new BadRequest('the request body must be a JSON object');
  const streamOptions = isRecord(body.stream_options) ? body.stream_options : {};
  const maxTokens =
    endpoint === 'chat'
      ? (optionalCount(body, 'max_completion_tokens') ?? optionalCount(body, 'max_tokens'))
      : optionalCount(body, 'max_tokens');
  return {
    stream: body.stream === true,
    includeUsage: streamOptions.include_usage === true,
    maxTokens,
    promptTokens: endpoint === 'chat' ? chatPromptTokens(body.messages) : completionPromptTokens(body.prompt),
  };
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export function usageOf(prompt: number, completion: number): Usage {
  const p = Math.max(0, prompt);
  const c = Math.max(0, completion);
  return { prompt_tokens: p, completion_tokens: c, total_tokens: p + c };
}

export type Channel = 'content' | 'reasoning';
export type FinishReason = 'length' | 'stop';

export const DONE_EVENT = 'data: [DONE]\n\n';
export const MALFORMED_EVENT = 'data: {not json\n\n';

const sse = (payload: unknown) => `data: ${JSON.stringify(payload)}\n\n`;

/** Engine timestamps a simulated engine adds to a chunk or body (schema/sim-protocol.ts). */
export type EngineStamp = Readonly<Record<string, number>>;

const us = (ms: number) => Math.round(ms * 1000) / 1000;

/** An SSE event with the engine's `infx` stamp added as the last key of its JSON object. */
export function stampEvent(event: string, stamp: EngineStamp | null): string {
  if (stamp === null) return event;
  const parts: string[] = [];
  for (const [k, v] of Object.entries(stamp)) parts.push(`"${k}":${us(v)}`);
  // `data: {...}\n\n`: reopen the object before its closing brace.
  return `${event.slice(0, -3)},"infx":{${parts.join(',')}}}\n\n`;
}

/** Builds one response's SSE events and JSON bodies. */
export class Payloads {
  readonly id: string;
  private readonly object: string;
  private readonly created = Math.floor(Date.now() / 1000);
  private readonly cache = new Map<string, string>();

  constructor(
    readonly endpoint: Endpoint,
    k: number,
    readonly model: string,
    tag = 'scripted',
  ) {
    this.id = endpoint === 'chat' ? `chatcmpl-${tag}-${k}` : `cmpl-${tag}-${k}`;
    this.object = endpoint === 'chat' ? 'chat.completion.chunk' : 'text_completion';
  }

  private head() {
    return { id: this.id, object: this.object, created: this.created, model: this.model };
  }

  /** Chat only: the role-only first chunk. */
  roleEvent(): string {
    return sse({
      ...this.head(),
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }],
    });
  }

  /** One token chunk; events with the same arguments are built once. */
  chunkEvent(text: string, channel: Channel, finish: FinishReason | null): string {
    const key = `${channel}\u0000${finish}\u0000${text}`;
    let event = this.cache.get(key);
    if (event === undefined) {
      const choice =
        this.endpoint === 'chat'
          ? {
              index: 0,
              delta: channel === 'reasoning' ? { reasoning_content: text } : { content: text },
              logprobs: null,
              finish_reason: finish,
            }
          : { index: 0, text, logprobs: null, finish_reason: finish };
      event = sse({ ...this.head(), choices: [choice] });
      this.cache.set(key, event);
    }
    return event;
  }

  usageEvent(usage: Usage): string {
    return sse({ ...this.head(), choices: [], usage });
  }

  /** The non-streaming response body. */
  body(
    content: string,
    reasoning: string,
    finish: FinishReason,
    usage: Usage | null,
    stamp: EngineStamp | null = null,
  ): Record<string, unknown> {
    const head = {
      id: this.id,
      object: this.endpoint === 'chat' ? 'chat.completion' : 'text_completion',
      created: this.created,
      model: this.model,
    };
    const choice =
      this.endpoint === 'chat'
        ? {
            index: 0,
            message: {
              role: 'assistant',
              content,
              ...(reasoning === '' ? {} : { reasoning_content: reasoning }),
            },
            logprobs: null,
            finish_reason: finish,
          }
        : { index: 0, text: content, logprobs: null, finish_reason: finish };
    return {
      ...head,
      choices: [choice],
      ...(usage === null ? {} : { usage }),
      ...(stamp === null
        ? {}
        : { infx: Object.fromEntries(Object.entries(stamp).map(([k, v]) => [k, us(v)])) }),
    };
  }
}

export interface ErrorBody {
  error: { message: string; type: string; param: string | null; code: string | number | null };
}

export function errorBody(
  message: string,
  type: string,
  code: string | number | null,
  param: string | null = null,
): ErrorBody {
  return { error: { message, type, param, code } };
}

export function contextOverflowBody(maxContext: number, promptTokens: number, maxTokens: number): ErrorBody {
  return errorBody(
    `This model's maximum context length is ${maxContext} tokens. However, you requested ` +
      `${promptTokens + maxTokens} tokens (${promptTokens} in the messages, ${maxTokens} in the completion). ` +
      'Please reduce the length of the messages or completion.',
    'invalid_request_error',
    'context_length_exceeded',
    'messages',
  );
}
