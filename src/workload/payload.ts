/**
 * Request bodies as the reference client sends them (client-metrics-spec §1.5), encoded once per request.
 * A workload makes them; the client sends the bytes and never looks inside.
 */

export interface PayloadOptions {
  endpoint: 'chat' | 'completions';
  model: string;
  ignoreEos: boolean;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export function buildPayload(opts: PayloadOptions, prompt: string, maxTokens: number): Buffer {
  return buildConversationPayload(opts, [{ role: 'user', content: prompt }], maxTokens);
}

/**
 * A conversation so far: the chat endpoint gets the messages; the completions endpoint their contents
 * joined by newlines (a single message is sent as it is).
 */
export function buildConversationPayload(
  opts: PayloadOptions,
  messages: readonly ChatMessage[],
  maxTokens: number,
): Buffer {
  const common = {
    temperature: 0.0,
    stream: true,
    stream_options: { include_usage: true },
    ignore_eos: opts.ignoreEos,
  };
  const body =
    opts.endpoint === 'chat'
      ? { model: opts.model, messages, max_completion_tokens: maxTokens, ...common }
      : {
          model: opts.model,
          prompt: messages.map((m) => m.content).join('\n'),
          best_of: 1,
          max_tokens: maxTokens,
          logprobs: null,
          ...common,
        };
  return Buffer.from(JSON.stringify(body), 'utf8');
}
