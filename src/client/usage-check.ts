import type { UsageFlag, UsageProblem } from '../schema/request-record.ts';
import type { UsageSeen } from './stream-reader.ts';

/**
 * Whether to believe a server's token counts. Throughput is tokens over time, so a server that says
 * usage −100, 2.5 or 10¹², or sends a second usage chunk 25× the first, moves every rate; the client
 * rejects such a count, uses its own instead (the prompt as it counted it; the generated text
 * re-tokenized after the clock stops), and flags the request (`usageFlag` in requests.jsonl). The point
 * fails its gate when more than --max-failure-rate of its requests were flagged.
 *
 * completion_tokens must be a non-negative integer, at most max_tokens + max(4, 1% of max_tokens) (a
 * server may count a stop token, or a speculative step may overshoot by a few), and at least the
 * token-carrying chunks received minus the same slack (every such chunk carries a token).
 * prompt_tokens must be a non-negative integer within [client / 8, client × 8 + 4096] of the client's own
 * count: tokenizers differ (the built-in o200k against the model's) and a chat endpoint adds its
 * template's tokens, but no honest count is eight times off. Usage chunks that disagree on a field
 * reject that field (identical repeats are harmless).
 */

export const USAGE_CHECK = {
  outputSlackMin: 4,
  outputSlackShare: 0.01,
  promptFactor: 8,
  promptExtra: 4096,
} as const;

export interface UsageFacts {
  maxTokens: number;
  /** The client's count of the prompt it sent. */
  clientPromptTokens: number;
  /** Token-carrying chunks received (content and reasoning). */
  tokenChunks: number;
}

export interface UsageVerdict {
  /** The server's counts where they passed; null where none came or they were rejected. */
  promptTokens: number | null;
  completionTokens: number | null;
  flag: UsageFlag | null;
}

export function outputSlack(maxTokens: number): number {
  return Math.max(USAGE_CHECK.outputSlackMin, Math.ceil(maxTokens * USAGE_CHECK.outputSlackShare));
}

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

function show(v: unknown): string {
  const s = typeof v === 'number' ? String(v) : (JSON.stringify(v) ?? String(v));
  return s.length > 40 ? `${s.slice(0, 40)}…` : s;
}

export function checkUsage(seen: UsageSeen | null, facts: UsageFacts): UsageVerdict {
  if (seen === null) return { promptTokens: null, completionTokens: null, flag: null };
  const problems = new Set<UsageProblem>();
  const messages: string[] = [];
  const reject = (problem: UsageProblem, message: string) => {
    problems.add(problem);
    messages.push(message);
  };

  let completion: number | null = null;
  const c = seen.completion;
  if (c !== null) {
    const slack = outputSlack(facts.maxTokens);
    if (!isCount(c)) reject('not_a_count', `completion_tokens ${show(c)} is not a token count`);
    else if (c > facts.maxTokens + slack)
      reject('over_max_tokens', `completion_tokens ${c} > max_tokens ${facts.maxTokens} + ${slack}`);
    else if (c + slack < facts.tokenChunks)
      reject(
        'under_token_chunks',
        `completion_tokens ${c} < the ${facts.tokenChunks} token chunks received - ${slack}`,
      );
    else if (seen.completionConflict !== null)
      reject(
        'disagreeing_chunks',
        `usage chunks disagree on completion_tokens: ${c}, then ${show(seen.completionConflict.value)}`,
      );
    else completion = c;
  }

  let prompt: number | null = null;
  const p = seen.prompt;
  if (p !== null) {
    const client = facts.clientPromptTokens;
    const lo = Math.floor(client / USAGE_CHECK.promptFactor);
    const hi = client * USAGE_CHECK.promptFactor + USAGE_CHECK.promptExtra;
    if (!isCount(p)) reject('not_a_count', `prompt_tokens ${show(p)} is not a token count`);
    else if (p < lo || p > hi)
      reject(
        'implausible_prompt',
        `prompt_tokens ${p} is outside [${lo}, ${hi}] for a prompt the client counts as ${client} tokens`,
      );
    else if (seen.promptConflict !== null)
      reject(
        'disagreeing_chunks',
        `usage chunks disagree on prompt_tokens: ${p}, then ${show(seen.promptConflict.value)}`,
      );
    else prompt = p;
  }

  const flag: UsageFlag | null =
    problems.size === 0
      ? null
      : {
          input: p !== null && prompt === null,
          output: c !== null && completion === null,
          problems: [...problems],
          message: `the server's usage was not used: ${messages.join('; ')}`,
        };
  return { promptTokens: prompt, completionTokens: completion, flag };
}
