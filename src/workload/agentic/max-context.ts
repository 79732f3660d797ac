import type { AgenticTrace } from '../../schema/agentic-trace.ts';
import { TraceUsageError } from './errors.ts';
import { apiCalls } from './walk.ts';

/**
 * `--max-context`: traces whose context exceeds it are dropped whole, as the reference's
 * `--max-context-length` does (addendum §1.7): a trace's context is `max(in + out)` over every call, the
 * main agent's and its subagents'.
 */

/**
 * The named caps. `256k` is the cap the `-256k` corpus build applies (`in + out > 256,000` dropped,
 * client-metrics §2.2), decimal; `1M` is the native context of the 1M-context models the base corpus is
 * for (`--max-model-len 1048576`), binary. Any other cap is a token count.
 */
export const NAMED_CONTEXTS: Readonly<Record<string, number>> = { '1M': 1_048_576, '256k': 256_000 };

export function parseMaxContext(value: string): number {
  const v = value.trim();
  const named = Object.entries(NAMED_CONTEXTS).find(([name]) => name.toLowerCase() === v.toLowerCase());
  if (named) return named[1];
  if (/^\d+$/.test(v) && Number(v) > 0 && Number.isSafeInteger(Number(v))) return Number(v);
  throw new TraceUsageError(
    `--max-context must be 1M (${NAMED_CONTEXTS['1M']} tokens), 256k (${NAMED_CONTEXTS['256k']}) or a ` +
      `positive token count, got '${value}'`,
  );
}

/** The longest context one call of the trace needs: `max(in + out)` over all its calls. */
export function traceContext(trace: AgenticTrace): number {
  let max = 0;
  for (const { call } of apiCalls(trace)) max = Math.max(max, call.in + call.out);
  return max;
}
