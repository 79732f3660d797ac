import { type AgenticTrace, AgenticTraceSchema } from '../../src/schema/agentic-trace.ts';

/** A trace call of `ids.length` blocks of 64 tokens sent at `t` (an `n` call unless `extra` says otherwise). */
export const blockCall = (t: number, ids: number[], out = 10, extra: Record<string, unknown> = {}) => ({
  type: 'n',
  t,
  in: ids.length * 64,
  out,
  hash_ids: ids,
  ...extra,
});

/** A trace of 64-token blocks with the given tool and system token counts. */
export const blockTrace = (id: string, requests: unknown[], toolTokens = 0, systemTokens = 0): AgenticTrace =>
  AgenticTraceSchema.parse({
    id,
    block_size: 64,
    tool_tokens: toolTokens,
    system_tokens: systemTokens,
    requests,
  });
