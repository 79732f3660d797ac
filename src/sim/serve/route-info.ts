import type { PoolRoute } from '../../schema/router.ts';

/**
 * What a pool's router reads of one request (schema/router.ts PoolRoute): its headers, and the text
 * prefix matching runs over, the prompt or the chat messages' text, as a router in front of the engine sees
 * them.
 */

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) =>
      typeof part === 'object' && part !== null && typeof (part as { text?: unknown }).text === 'string'
        ? (part as { text: string }).text
        : '',
    )
    .join('');
}

export function requestText(body: Record<string, unknown>): string {
  const prompt = body.prompt;
  if (typeof prompt === 'string') return prompt;
  if (Array.isArray(prompt)) return prompt.filter((p): p is string => typeof p === 'string').join('\n');
  if (!Array.isArray(body.messages)) return '';
  return body.messages
    .map((m) =>
      typeof m === 'object' && m !== null ? contentText((m as { content?: unknown }).content) : '',
    )
    .join('\n');
}

export function poolRoute(
  headers: Readonly<Record<string, string | string[] | undefined>>,
  body: Record<string, unknown>,
  rawBody: string,
  inputTokens: number,
  blockHashes: readonly string[] | undefined,
): PoolRoute {
  const flat: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers))
    if (v !== undefined) flat[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return {
    headers: flat,
    body,
    rawBody,
    text: requestText(body),
    inputTokens,
    ...(blockHashes ? { blockHashes } : {}),
  };
}
