import type { IncomingHttpHeaders } from 'node:http';
import type { RouteRequest } from './policy.ts';

/**
 * What a policy sees of an HTTP request (policy.ts's RouteRequest), built by the proxy from the headers and
 * the body as received. The parsed body and the request text are computed on first use only, so a policy
 * that reads neither (round robin, random, power of two) costs no JSON parse.
 *
 * The text prefix matching runs over is the completion's `prompt` (a string, or an array of strings joined
 * with newlines), or the chat messages' text contents joined with newlines (string contents, and the `text`
 * parts of array contents), as the raw request text SGLang Model Gateway's HTTP character tree sees it.
 */

/** Characters the proxy counts as one token when it estimates a prompt's length without a tokenizer. */
export const CHARS_PER_TOKEN = 4;

export interface ViewOptions {
  /**
   * Give the view `inputTokens` and `blockHashes` estimated from the text (kv-aware without KV events):
   * ceil(characters / 4) tokens, and one hash per full block of `blockSize` × 4 characters, each covering
   * the whole text up to the end of its block, so two requests share exactly their common leading blocks.
   */
  estimateBlocks?: { blockSize: number };
}

/** The single-valued headers, lowercased (Node already lowercases names; arrays are joined with ", "). */
export function flatHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function parseJson(raw: string): unknown {
  if (raw === '') return null;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return null;
  }
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const part of content) {
    if (part && typeof part === 'object' && typeof (part as { text?: unknown }).text === 'string')
      parts.push((part as { text: string }).text);
  }
  return parts.join('\n');
}

/** The request text of a parsed body: its prompt, or its chat messages' text contents; '' for neither. */
export function requestText(body: unknown): string {
  if (!body || typeof body !== 'object') return '';
  const b = body as { prompt?: unknown; messages?: unknown };
  if (typeof b.prompt === 'string') return b.prompt;
  if (Array.isArray(b.prompt)) return b.prompt.filter((p) => typeof p === 'string').join('\n');
  if (Array.isArray(b.messages))
    return b.messages
      .map((m) => (m && typeof m === 'object' ? contentText((m as { content?: unknown }).content) : ''))
      .join('\n');
  return '';
}

/** One hash per full block of `blockChars` code units of `text`, each over the text up to its block's end. */
export function textBlockHashes(text: string, blockChars: number): string[] {
  const out: string[] = [];
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  const full = Math.floor(text.length / blockChars) * blockChars;
  for (let i = 0; i < full; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193) >>> 0;
    h2 = Math.imul(h2 ^ (c + 0x9e3779b9), 0x85ebca6b) >>> 0;
    if ((i + 1) % blockChars === 0) out.push(`${h1.toString(16)}.${h2.toString(16)}`);
  }
  return out;
}

/** The policy's view of one request; the body is decoded, parsed and its text taken lazily, once. */
export function routeRequestOf(
  headers: IncomingHttpHeaders,
  received: Buffer | string,
  options: ViewOptions = {},
): RouteRequest {
  let raw: string | undefined;
  let body: unknown;
  let parsed = false;
  let text: string | undefined;
  const view: RouteRequest = {
    headers: flatHeaders(headers),
    get rawBody(): string {
      raw ??= typeof received === 'string' ? received : received.toString('utf8');
      return raw;
    },
    get body(): unknown {
      if (!parsed) {
        body = parseJson(view.rawBody);
        parsed = true;
      }
      return body;
    },
    get text(): string {
      text ??= requestText(view.body);
      return text;
    },
  };
  const est = options.estimateBlocks;
  if (est) {
    const t = view.text;
    view.inputTokens = Math.ceil(t.length / CHARS_PER_TOKEN);
    view.blockHashes = textBlockHashes(t, est.blockSize * CHARS_PER_TOKEN);
  }
  return view;
}
