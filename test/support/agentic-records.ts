import type { AgenticRequestRecord } from '../../src/schema/agentic-record.ts';
import type { ErrorCategory } from '../../src/schema/request-record.ts';

/** Agentic request records for the agentic metrics' tests (src/metrics/agentic/*.test.ts). */
export interface AgenticSpec {
  conv?: string;
  turn?: number;
  phase?: 'warmup' | 'benchmark';
  /** Sent, ms. */
  sent?: number;
  /** ms after sent; null: no token came. */
  ttft?: number | null;
  /** Sent → last token, ms; null: no token came. */
  e2e?: number | null;
  /** Response fully read, ms (absolute); defaults to the last token. */
  done?: number;
  isl?: number;
  osl?: number;
  expected?: number | null;
  hit?: number;
  blocks?: number;
  fail?: ErrorCategory;
  cancelled?: boolean;
  branch?: 'root' | 'subagent' | 'flat';
}

let counter = 0;

export function arec(s: AgenticSpec = {}): AgenticRequestRecord {
  const sent = s.sent ?? 0;
  const failed = s.fail !== undefined || s.cancelled === true;
  const ttft = s.ttft === undefined ? 10 : s.ttft;
  const e2e = s.e2e === undefined ? 100 : s.e2e;
  const first = failed || ttft === null ? null : sent + ttft;
  const last = failed || e2e === null ? null : sent + e2e;
  const conv = s.conv ?? 'trace-a';
  const kind = s.branch ?? 'root';
  return {
    index: counter++,
    phase: s.phase ?? 'benchmark',
    promptIndex: 0,
    worker: 0,
    scheduledMs: sent,
    sentMs: sent,
    firstByteMs: first,
    firstTokenMs: first,
    lastTokenMs: last,
    doneMs: s.done ?? last ?? sent + 1,
    chunkGapsMs: [],
    contentChunks: 1,
    reasoningChunks: 0,
    inputTokens: { target: s.isl ?? 100, client: s.isl ?? 100, server: s.isl ?? 100 },
    outputTokens: { requested: s.expected ?? 10, client: null, server: failed ? null : (s.osl ?? 10) },
    usageFlag: null,
    ok: !failed,
    error:
      s.fail !== undefined
        ? { category: s.fail, message: `${s.fail} happened`, status: null, bodyExcerpt: null }
        : s.cancelled
          ? { category: 'cancelled', message: 'cut at the end of the run', status: null, bodyExcerpt: null }
          : null,
    cancelled: s.cancelled ?? false,
    engine: null,
    agentic: {
      traceId: conv.split('::')[0]!,
      conversationId: conv,
      correlationId: `corr-${conv}`,
      rootCorrelationId: `corr-${conv.split('::')[0]}`,
      requestId: `req-${counter}`,
      turnIndex: s.turn ?? 0,
      lane: 0,
      recyclePass: 0,
      branch: {
        kind,
        parentCorrelationId: kind === 'root' ? null : `corr-${conv.split('::')[0]}`,
        agentId: kind === 'root' ? null : conv,
        background: false,
      },
      expectedOutputTokens: s.expected === undefined ? null : s.expected,
      theoreticalPrefix: { hitBlocks: s.hit ?? 0, totalBlocks: s.blocks ?? 0 },
      resetContext: false,
      cancelledAtMs: s.cancelled ? sent + 1 : null,
    },
  };
}
