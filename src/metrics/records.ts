import type { RequestRecord } from '../schema/request-record.ts';

/** How one record is scored. `cancelled` wins over `ok`: a stream the client cut at the end of the run
 * is partial, so it is neither a completed request nor a server failure. */
export type Outcome = 'completed' | 'failed' | 'cancelled';

export function outcomeOf(r: RequestRecord): Outcome {
  if (r.cancelled || r.error?.category === 'cancelled') return 'cancelled';
  return r.ok ? 'completed' : 'failed';
}

export type TokenSource = 'server' | 'client' | 'none';

export interface RecordTokens {
  input: number;
  inputSource: TokenSource;
  output: number;
  outputSource: TokenSource;
}

/**
 * Token counts of one record: the server's usage when it sent one that passed the client's check
 * (client/usage-check.ts), else the client's own count.
 * Unlike the reference (which defaults a missing usage to 0, spec §3.1) a missing server count falls
 * back to re-tokenizing; a count nobody measured is 0 here and reported through `outputSource: 'none'`.
 */
export function tokensOf(r: RequestRecord): RecordTokens {
  // A count the usage check rejected is never used, even where a record still carries it.
  const inServer = r.usageFlag?.input ? null : r.inputTokens.server;
  const outServer = r.usageFlag?.output ? null : r.outputTokens.server;
  const outClient = r.outputTokens.client;
  return {
    input: inServer ?? r.inputTokens.client,
    inputSource: inServer !== null ? 'server' : 'client',
    output: outServer ?? outClient ?? 0,
    outputSource: outServer !== null ? 'server' : outClient !== null ? 'client' : 'none',
  };
}

/** When the request stopped occupying its concurrency slot (falls back for records without doneMs). */
export function endOf(r: RequestRecord): number {
  return r.doneMs ?? r.lastTokenMs ?? r.firstTokenMs ?? r.firstByteMs ?? r.sentMs;
}

/** Benchmark-phase records in dispatch order. */
export function benchmarkRecords(records: readonly RequestRecord[]): RequestRecord[] {
  return records.filter((r) => r.phase === 'benchmark').sort((a, b) => a.index - b.index);
}
