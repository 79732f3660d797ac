import type { Endpoint } from './stream-reader.ts';

/** Request bodies as the reference client sends them (client-metrics-spec §1.5), pre-encoded once. */

export interface PayloadOptions {
  endpoint: Endpoint;
  model: string;
  ignoreEos: boolean;
}

export function endpointPath(endpoint: Endpoint): string {
  return endpoint === 'chat' ? '/v1/chat/completions' : '/v1/completions';
}

export function buildPayload(opts: PayloadOptions, prompt: string, maxTokens: number): Buffer {
  const common = {
    temperature: 0.0,
    stream: true,
    stream_options: { include_usage: true },
    ignore_eos: opts.ignoreEos,
  };
  const body =
    opts.endpoint === 'chat'
      ? {
          model: opts.model,
          messages: [{ role: 'user', content: prompt }],
          max_completion_tokens: maxTokens,
          ...common,
        }
      : { model: opts.model, prompt, best_of: 1, max_tokens: maxTokens, logprobs: null, ...common };
  return Buffer.from(JSON.stringify(body), 'utf8');
}
