import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { buildPayload } from '../src/client/payload.ts';
import type { ErrorCategory } from '../src/schema/request-record.ts';
import { load, textRequests, withServer } from './client-helpers.ts';

/** Every way a request can fail lands in its own category, with a message that says what happened. */

async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

describe('error taxonomy', () => {
  it('puts each scripted fault in its category', async () => {
    const expected: [number, ErrorCategory | null, object][] = [
      [0, null, {}],
      [1, 'http_5xx', { fault: { kind: 'http', status: 500 } }],
      [2, 'http_4xx', { fault: { kind: 'http', status: 429 } }],
      [3, 'stream_truncated', { fault: { kind: 'truncate', afterChunks: 2 } }],
      [4, 'timeout', { fault: { kind: 'hang' } }],
      [5, 'connection_reset', { fault: { kind: 'reset' } }],
      [6, 'invalid_stream', { fault: { kind: 'malformed', afterChunks: 1 } }],
      [7, 'context_overflow', { fault: { kind: 'context-overflow' } }],
      [8, 'no_content', { outputTokens: 0 }],
      [9, 'timeout', { fault: { kind: 'hang-before-headers' } }],
      [10, 'stream_truncated', { fault: { kind: 'truncate', afterChunks: 3, clean: true } }],
    ];
    const requests = Object.fromEntries(expected.map(([k, , o]) => [String(k), o]));
    await withServer({ defaults: { ttftMs: 5, itlMs: 1, tokenText: ' tok' }, requests }, async (server) => {
      const res = await load(server.url, { requests: textRequests(expected.length, 5), timeoutMs: 400 });
      for (const [k, category] of expected) {
        const r = res.records[k]!;
        expect({ k, category: r.error?.category ?? null }).toEqual({ k, category });
        expect(r.ok).toBe(category === null);
        expect(r.cancelled).toBe(false);
      }
      expect(res.records[1]!.error).toMatchObject({
        status: 500,
        message: expect.stringContaining('HTTP 500'),
      });
      expect(res.records[1]!.error!.bodyExcerpt).toBeTruthy();
      expect(res.records[7]!.error!.bodyExcerpt).toMatch(/maximum context length/);
      // A truncated stream keeps what arrived before the cut.
      expect(res.records[3]!.contentChunks).toBe(2);
    });
  });

  it('connection refused', async () => {
    const port = await closedPort();
    const res = await load(`http://127.0.0.1:${port}`, { requests: textRequests(2, 5) });
    expect(res.records.map((r) => r.error?.category)).toEqual(['connection_refused', 'connection_refused']);
    expect(res.records[0]!.error!.message).toMatch(/ECONNREFUSED/);
  });

  it('a connection cut while the request body is being written is a write error', async () => {
    await withServer({ defaults: { fault: { kind: 'reset' } } }, async (server) => {
      const big = buildPayload(
        { endpoint: 'completions', model: 'm', ignoreEos: true },
        'x'.repeat(32 << 20),
        5,
      );
      const res = await load(server.url, {
        requests: [{ body: big, maxTokens: 5, targetInputTokens: 1, clientInputTokens: 1 }],
      });
      expect(res.records[0]!.error?.category).toBe('write_error');
    });
  });

  it('requests stopped by the client are cancelled, not failed', async () => {
    await withServer({ defaults: { fault: { kind: 'hang' } } }, async (server) => {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 200);
      const res = await load(server.url, {
        requests: textRequests(3, 5),
        concurrency: 3,
        signal: controller.signal,
      });
      expect(res.records).toHaveLength(3);
      for (const r of res.records) {
        expect(r.cancelled).toBe(true);
        expect(r.error?.category).toBe('cancelled');
      }
    });
  });
});
