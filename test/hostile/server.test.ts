import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { LoadResult } from '../../src/client/load.ts';
import { ProbeError, probeServer } from '../../src/client/probe.ts';
import type { ErrorCategory, RequestRecord } from '../../src/schema/request-record.ts';
import { load, textRequests } from '../client-helpers.ts';
import {
  type Behaviour,
  chunk,
  DONE,
  END,
  type Exchange,
  flood,
  honest,
  honestEvents,
  maxTokensOf,
  SSE_HEAD,
  sse,
  startHostile,
  token,
  trickle,
  usage,
} from './hostile-server.ts';

/**
 * The client against a hostile server (hostile-server.ts): every misbehaviour lands in one error
 * category per request, with a message that says what happened, in bounded time; a server's token
 * counts are checked. These cases run in this process through runLoad; server-cli.test.ts runs
 * `infx bench` as a child process against the worst of them and bounds its memory and CPU.
 */

interface Case {
  generate: Behaviour;
  /** Requests sent, one at a time on one lane (default 1). */
  n?: number;
  maxTokens?: number;
  timeoutMs?: number;
  /** Category per request (one value: every request). */
  expect: ErrorCategory | null | (ErrorCategory | null)[];
  message?: RegExp;
  check?: (res: LoadResult, records: RequestRecord[]) => void;
}

const flaggedAs =
  (problem: string, field: 'input' | 'output') =>
  (_: LoadResult, [r]: RequestRecord[]) => {
    expect(r!.ok).toBe(true);
    expect(r!.usageFlag).toMatchObject({ [field]: true, problems: [problem] });
    expect(field === 'output' ? r!.outputTokens.server : r!.inputTokens.server).toBeNull();
  };

const head = async (x: Exchange, text: string) => {
  await x.write(text);
};

/** SSE events under a given head, without the terminating chunk. */
async function unterminated(x: Exchange, events: string[]): Promise<void> {
  await x.write(SSE_HEAD);
  for (const e of events) await x.write(chunk(e));
}

const CASES: Record<string, Case> = {
  // ---- the stream's content -----------------------------------------------------------------
  'malformed JSON event': {
    generate: (x) => sse(x, [token('a'), 'data: {"choices": [\n\n', DONE]),
    expect: 'invalid_stream',
    message: /not JSON/,
  },
  'an event past the 16 MiB line limit (no newline)': {
    generate: async (x) => {
      await x.write(SSE_HEAD);
      await x.write(chunk('data: {"choices":[{"text":"'));
      await flood(x, 24 << 20, 0x78, true);
      return 'close';
    },
    expect: 'invalid_stream',
    message: /SSE line grew past 16 MiB/,
  },
  'no newline at all in a complete body': {
    generate: (x) => sse(x, ['data: {"choices":[{"text":"a","finish_reason":"length"}]}']),
    expect: 'invalid_stream',
    message: /no SSE data events/,
  },
  'UTF-8 characters split across reads': {
    generate: async (x) => {
      const event = Buffer.from(token('héllo ✓', 'length'));
      const cut = event.indexOf(Buffer.from('✓')) + 1; // inside the 3-byte character
      await x.write(SSE_HEAD);
      await x.write(`${event.length.toString(16)}\r\n`);
      await x.write(event.subarray(0, cut));
      await x.sleep(30);
      await x.write(Buffer.concat([event.subarray(cut), Buffer.from('\r\n')]));
      await x.write(chunk(DONE));
      await x.write(END);
      return 'keep';
    },
    expect: null,
    check: (res) => expect(res.texts[0]).toBe('héllo ✓'),
  },
  'no [DONE], but a finish_reason and a complete body': {
    generate: (x) =>
      sse(
        x,
        honestEvents(x).filter((e) => e !== DONE),
      ),
    expect: null,
  },
  'no [DONE] and no finish_reason': {
    generate: (x) => sse(x, [token('a'), token('b')]),
    expect: 'stream_truncated',
    message: /after 2 token chunks/,
  },
  '[DONE] repeated, and tokens after it': {
    generate: (x) => sse(x, [...honestEvents(x), DONE, token('late'), DONE]),
    maxTokens: 3,
    expect: null,
    check: (_, [r]) => expect(r!.contentChunks).toBe(3),
  },
  'an error event in the stream': {
    generate: (x) => sse(x, [token('a'), 'data: {"error":{"message":"engine died"}}\n\n']),
    expect: 'other',
    message: /error event in stream: engine died/,
  },
  'tokens past max_tokens, without end': {
    generate: async (x) => {
      await x.write(SSE_HEAD);
      const burst = chunk(token(' more').repeat(200));
      while (await x.write(burst)) await x.sleep(1);
      return 'close';
    },
    maxTokens: 4,
    expect: 'invalid_stream',
    message: /more than 72 token chunks/,
  },
  'megabytes of text per token (under the line limit)': {
    generate: async (x) => {
      await x.write(SSE_HEAD);
      const big = chunk(token('y'.repeat(1 << 20)));
      while (await x.write(big)) {}
      return 'close';
    },
    maxTokens: 4,
    expect: 'invalid_stream',
    message: /characters of text/,
  },
  'SSE comments forever, never a token': {
    generate: async (x) => {
      await x.write(SSE_HEAD);
      while (await x.write(chunk(': keep-alive\n\n'))) await x.sleep(5);
      return 'close';
    },
    timeoutMs: 500,
    expect: 'timeout',
  },
  'a JSON body instead of a stream': {
    generate: async (x) => {
      const body = JSON.stringify({ choices: [{ text: 'all at once', finish_reason: 'length' }] });
      await x.write(
        `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      );
      return 'keep';
    },
    expect: 'invalid_stream',
    message: /no SSE data events \(\d+ bytes, Content-Type: application\/json\)/,
  },
  'an empty 200': {
    generate: (x) => head(x, 'HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n').then(() => 'keep'),
    expect: 'stream_truncated',
  },

  // ---- usage ----------------------------------------------------------------------------------
  'usage: negative completion_tokens': {
    generate: (x) => sse(x, honestEvents(x, { usage: [4, -100] })),
    expect: null,
    check: flaggedAs('not_a_count', 'output'),
  },
  'usage: non-integer completion_tokens': {
    generate: (x) => sse(x, honestEvents(x, { usage: [4, 2.5] })),
    expect: null,
    check: flaggedAs('not_a_count', 'output'),
  },
  'usage: huge completion_tokens': {
    generate: (x) => sse(x, honestEvents(x, { usage: [4, 1e12] })),
    expect: null,
    check: flaggedAs('over_max_tokens', 'output'),
  },
  'usage: a duplicated usage chunk that disagrees (25x)': {
    generate: (x) => {
      const events = honestEvents(x);
      events.splice(-1, 0, usage(4, 25 * maxTokensOf(x)));
      return sse(x, events);
    },
    expect: null,
    check: flaggedAs('disagreeing_chunks', 'output'),
  },
  'usage: implausible prompt_tokens': {
    generate: (x) => sse(x, honestEvents(x, { usage: [1e9, maxTokensOf(x)] })),
    expect: null,
    check: flaggedAs('implausible_prompt', 'input'),
  },

  // ---- connections ------------------------------------------------------------------------------
  'reset before the headers': {
    generate: async (x) => {
      x.socket.resetAndDestroy();
      return 'hang';
    },
    expect: 'connection_reset',
  },
  'reset mid-stream': {
    generate: async (x) => {
      await unterminated(x, [token('a'), token('b')]);
      await x.sleep(20);
      return 'reset';
    },
    expect: 'stream_truncated',
  },
  'closed before answering': {
    generate: async () => 'close',
    expect: 'connection_reset',
    message: /closed the connection before answering/,
  },
  'closed in the middle of the headers': {
    generate: (x) => head(x, 'HTTP/1.1 200 OK\r\nContent-Ty').then(() => 'close'),
    expect: 'connection_reset',
    message: /in the middle of the response headers/,
  },
  'slowloris headers (a byte every 100 ms)': {
    generate: async (x) => {
      await trickle(x, SSE_HEAD, 100);
      return 'close';
    },
    timeoutMs: 600,
    expect: 'timeout',
  },
  'slowloris body (a byte every 100 ms)': {
    generate: async (x) => {
      await x.write(SSE_HEAD);
      await trickle(x, chunk(token('slow')).toString(), 100);
      return 'close';
    },
    timeoutMs: 600,
    expect: 'timeout',
  },

  // ---- HTTP framing -------------------------------------------------------------------------------
  'garbage status line': {
    generate: (x) => head(x, 'SSH-2.0-OpenSSH_9.6\r\n').then(() => 'hang'),
    expect: 'invalid_stream',
    message: /^not an HTTP response: 'SSH-2\.0/,
  },
  'garbage, then close': {
    generate: (x) => head(x, 'hello').then(() => 'close'),
    expect: 'invalid_stream',
    message: /^not an HTTP response/,
  },
  'HTTP status 999': {
    generate: (x) => head(x, 'HTTP/1.1 999 Odd\r\nContent-Length: 0\r\n\r\n').then(() => 'keep'),
    expect: 'invalid_stream',
    message: /not a status code/,
  },
  'headers larger than 64 KB': {
    generate: (x) =>
      head(x, `HTTP/1.1 200 OK\r\n${'X-Pad: 0123456789abcdef\r\n'.repeat(5000)}`).then(() => 'hang'),
    expect: 'invalid_stream',
    message: /headers larger than 64 KB/,
  },
  'chunked: a size that is not hex': {
    generate: (x) => head(x, `${SSE_HEAD}zz\r\n${token('a')}\r\n`).then(() => 'hang'),
    expect: 'invalid_stream',
    message: /not hex/,
  },
  'chunked: a size larger than the data, then close': {
    generate: (x) => head(x, `${SSE_HEAD}100\r\n${token('a')}`).then(() => 'close'),
    expect: 'stream_truncated',
  },
  'chunked: data longer than its size': {
    generate: (x) => head(x, `${SSE_HEAD}5\r\n${token('a')}\r\n`).then(() => 'hang'),
    expect: 'invalid_stream',
    message: /longer than its declared size/,
  },
  'chunked: a size line that never ends': {
    generate: (x) => head(x, `${SSE_HEAD}${'1'.repeat(10_000)}`).then(() => 'hang'),
    expect: 'invalid_stream',
    message: /chunk size line longer than 4096 bytes/,
  },
  'chunked: no terminating chunk, then close': {
    generate: (x) => unterminated(x, honestEvents(x)).then(() => 'close'),
    expect: 'stream_truncated',
  },
  'chunked: no terminating chunk, connection kept open': {
    generate: (x) => unterminated(x, honestEvents(x)).then(() => 'hang'),
    timeoutMs: 400,
    expect: 'timeout',
  },
  'two different Content-Length headers': {
    generate: (x) =>
      head(x, 'HTTP/1.1 200 OK\r\nContent-Length: 10\r\nContent-Length: 20\r\n\r\n').then(() => 'hang'),
    expect: 'invalid_stream',
    message: /two different Content-Length/,
  },
  'Transfer-Encoding: gzip': {
    generate: (x) =>
      head(x, 'HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n').then(() => 'hang'),
    expect: 'invalid_stream',
    message: /Transfer-Encoding: gzip, chunked, which the client did not ask for/,
  },
  'Content-Encoding: gzip without being asked': {
    generate: async (x) => {
      // The client says Accept-Encoding: identity; this server does not care.
      if (x.headers.get('accept-encoding') !== 'identity')
        throw new Error('the client did not ask for identity');
      const body = gzipSync(honestEvents(x).join(''));
      await x.write(
        `HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Encoding: gzip\r\nContent-Length: ${body.length}\r\n\r\n`,
      );
      await x.write(body);
      return 'keep';
    },
    expect: 'invalid_stream',
    message: /Content-Encoding: gzip body the client did not ask for/,
  },
  'HTTP/1.0 close-delimited bodies': {
    generate: async (x) => {
      await x.write('HTTP/1.0 200 OK\r\nContent-Type: text/event-stream\r\n\r\n');
      for (const e of honestEvents(x)) await x.write(e);
      return 'close';
    },
    n: 3,
    expect: null,
  },
  'HTTP/1.0 with Content-Length closes after each response (no reuse)': {
    generate: async (x) => {
      const body = honestEvents(x).join('');
      await x.write(
        `HTTP/1.0 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      );
      // A client that reused this connection would have its next request cut here.
      await x.sleep(30);
      return 'close';
    },
    n: 3,
    expect: null,
  },
  '204 No Content': {
    generate: (x) => head(x, 'HTTP/1.1 204 No Content\r\n\r\n').then(() => 'keep'),
    expect: 'other',
    message: /HTTP 204 No Content/,
  },
  '304 with a body it may not have (the connection is not reused)': {
    generate: (x) =>
      x.k === 0 ? head(x, 'HTTP/1.1 304 Not Modified\r\n\r\nsurprise').then(() => 'keep') : honest(x),
    n: 2,
    expect: ['other', null],
  },
  'interim 1xx responses before the real one': {
    generate: async (x) => {
      await x.write('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 102 Processing\r\n\r\n');
      return honest(x);
    },
    expect: null,
  },
  'HTTP 500 with an endless body': {
    generate: async (x) => {
      await x.write('HTTP/1.1 500 Internal Server Error\r\nContent-Length: 1000000000\r\n\r\n');
      await flood(x, 1e9);
      return 'close';
    },
    expect: 'http_5xx',
    message: /HTTP 500/,
    check: (_, [r]) => expect(r!.error!.bodyExcerpt!.length).toBeLessThanOrEqual(500),
  },
  'HTTP 429 with a gzip body': {
    generate: async (x) => {
      const body = gzipSync('{"error":"slow down"}');
      await x.write(
        `HTTP/1.1 429 Too Many Requests\r\nContent-Encoding: gzip\r\nContent-Length: ${body.length}\r\n\r\n`,
      );
      await x.write(body);
      return 'keep';
    },
    expect: 'http_4xx',
    check: (_, [r]) => expect(r!.error!.bodyExcerpt).toMatch(/gzip-encoded body, not decoded/),
  },
};

describe.concurrent('the client against a hostile server', () => {
  it('covers at least 30 misbehaviours', () => {
    expect(Object.keys(CASES).length).toBeGreaterThanOrEqual(30);
  });

  for (const [name, c] of Object.entries(CASES)) {
    it(name, async () => {
      const server = await startHostile({ generate: c.generate });
      try {
        const n = c.n ?? 1;
        const timeoutMs = c.timeoutMs ?? 5000;
        const t0 = performance.now();
        const res = await load(server.url, { requests: textRequests(n, c.maxTokens ?? 4), timeoutMs });
        const records = res.records;
        const want = Array.isArray(c.expect) ? c.expect : Array.from({ length: n }, () => c.expect);
        expect(records.map((r) => r.error?.category ?? null)).toEqual(want);
        for (const r of records) {
          expect(r.ok).toBe(r.error === null);
          expect(r.cancelled).toBe(false);
        }
        if (c.message) expect(records[0]!.error?.message).toMatch(c.message);
        c.check?.(res, records);
        // Bounded in time: nothing waits past its timeout (and what is not a timeout does not wait for one).
        const elapsed = performance.now() - t0;
        expect(elapsed).toBeLessThan(n * timeoutMs + 2000);
        if (!want.includes('timeout')) expect(elapsed).toBeLessThan(n * timeoutMs);
      } finally {
        await server.close();
      }
    });
  }
});

describe.concurrent('the readiness probe against a hostile /v1/models', () => {
  it('stops reading a huge answer at 1 MB', async () => {
    const server = await startHostile({
      generate: honest,
      models: async (x) => {
        await x.write(
          'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
        );
        await x.write(chunk('{"data":['));
        await flood(x, 1e10, 0x20, true);
        return 'close';
      },
    });
    try {
      const probe = await probeServer(new URL(server.url), 5000);
      expect(probe.models).toEqual([]);
      expect(server.bytesWritten).toBeLessThan(64 << 20);
    } finally {
      await server.close();
    }
  });

  it('gives up on a trickling answer at its deadline, headers or body', async () => {
    for (const slowHead of [true, false]) {
      const server = await startHostile({
        generate: honest,
        models: async (x) => {
          const h = 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n';
          if (slowHead) await trickle(x, h, 50);
          else {
            await x.write(h);
            await trickle(x, '{"data":[]}'.padEnd(1000), 50);
          }
          return 'close';
        },
      });
      try {
        const t0 = performance.now();
        await expect(probeServer(new URL(server.url), 400)).rejects.toThrow(ProbeError);
        expect(performance.now() - t0).toBeLessThan(1500);
      } finally {
        await server.close();
      }
    }
  });
});
