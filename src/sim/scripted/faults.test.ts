import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatBody, completionBody, send, sseData } from '../../../test/support/scripted-http.ts';
import { type ScriptedServer, startScriptedServer } from './server.ts';

/** One server; request k gets fault k. Each test sends exactly one request, in order. */
let s: ScriptedServer;
beforeAll(async () => {
  s = await startScriptedServer({
    defaults: { ttftMs: 2, itlMs: 1, outputTokens: 5 },
    requests: {
      '0': { fault: { kind: 'http', status: 503 } },
      '1': { fault: { kind: 'http', status: 429, body: 'slow down' } },
      '2': { fault: { kind: 'context-overflow' } },
      '3': { fault: { kind: 'truncate', afterChunks: 2 } },
      '4': { fault: { kind: 'truncate', afterChunks: 2, clean: true } },
      '5': { fault: { kind: 'hang' } },
      '6': { fault: { kind: 'hang-before-headers' } },
      '7': { fault: { kind: 'reset' } },
      '8': { fault: { kind: 'malformed', afterChunks: 1 } },
      '9': { fault: { kind: 'malformed', afterChunks: 0 } },
      '10': { outputTokens: 0 },
      '11': { ttftMs: 5, itlMs: 20, outputTokens: 50 },
      '12': { fault: { kind: 'hang' } },
    },
  });
});
afterAll(async () => {
  await s.close();
});

const post = (extra: Record<string, unknown> = {}) =>
  send(s.url, '/v1/completions', { body: completionBody(extra) });
const texts = (body: string) =>
  body
    .split('\n\n')
    .filter((e) => e.startsWith('data: {"id"'))
    .map((e) => JSON.parse(e.slice(6)) as { choices: { text: string }[] });

describe('scripted faults, one per request', () => {
  it('http: the scripted status with an OpenAI-style error body, or the given body', async () => {
    const r = await post();
    expect(r.status).toBe(503);
    expect(JSON.parse(r.body)).toEqual({
      error: { message: 'scripted HTTP 503', type: 'server_error', param: null, code: 503 },
    });
    const custom = await post();
    expect(custom.status).toBe(429);
    expect(custom.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(custom.body).toBe('slow down');
    expect(s.log[0]).toMatchObject({ fault: 'http', outcome: 'fault', status: 503 });
  });

  it('context-overflow: 400 naming the maximum context length', async () => {
    const r = await post({ prompt: 'p'.repeat(400), max_tokens: 50 });
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body)).toEqual({
      error: {
        message:
          "This model's maximum context length is 149 tokens. However, you requested 150 tokens " +
          '(100 in the messages, 50 in the completion). Please reduce the length of the messages or completion.',
        type: 'invalid_request_error',
        param: 'messages',
        code: 'context_length_exceeded',
      },
    });
  });

  it('truncate: some chunks, then the connection closes mid-body, no [DONE]', async () => {
    const r = await post();
    expect(r.status).toBe(200);
    expect(r.complete).toBe(false);
    expect(r.error?.code).toBe('ECONNRESET');
    expect(texts(r.body)).toHaveLength(2);
    expect(r.body).not.toContain('[DONE]');
    expect(s.log[3]).toMatchObject({ fault: 'truncate', outcome: 'fault', chunks: 2 });
  });

  it('truncate clean: some chunks, then a properly ended response without usage or [DONE]', async () => {
    const r = await post();
    expect(r.complete).toBe(true);
    expect(r.error).toBeNull();
    expect(sseData(r.body)).toHaveLength(2);
  });

  it('hang: headers, then nothing', async () => {
    const r = await send(s.url, '/v1/completions', { body: completionBody(), abortAfterMs: 100 });
    expect(r.status).toBe(200);
    expect(r.pieces).toHaveLength(0);
    expect(s.log[5]).toMatchObject({ fault: 'hang', status: 200, bytes: 0 });
  });

  it('hang-before-headers: no response at all', async () => {
    const r = await send(s.url, '/v1/completions', { body: completionBody(), abortAfterMs: 100 });
    expect(r.status).toBeNull();
    expect(s.log[6]).toMatchObject({ fault: 'hang-before-headers', status: null });
  });

  it('reset: the connection is reset on arrival', async () => {
    const r = await post();
    expect(r.status).toBeNull();
    expect(r.error?.code).toBe('ECONNRESET');
    expect(s.log[7]).toMatchObject({ fault: 'reset', bodyReadMs: null });
  });

  it('malformed: chunks, then `data: {not json`, then the response ends', async () => {
    const r = await post();
    expect(r.complete).toBe(true);
    expect(r.body.endsWith('data: {not json\n\n')).toBe(true);
    expect(texts(r.body)).toHaveLength(1);
    expect(() => sseData(r.body)).toThrow(SyntaxError);
    // Chat with afterChunks 0: the role chunk goes out with the malformed event.
    const chat = await send(s.url, '/v1/chat/completions', { body: chatBody() });
    expect(chat.body).toMatch(/"role":"assistant".*\n\ndata: \{not json\n\n$/s);
  });

  it('outputTokens 0: no content chunk, only usage and [DONE]', async () => {
    const data = sseData((await post()).body);
    expect(data).toHaveLength(2);
    expect(data[0]).toMatchObject({ choices: [], usage: { completion_tokens: 0 } });
  });

  it('a client that closes mid-stream stops the writes', async () => {
    const r = await send(s.url, '/v1/completions', {
      body: completionBody(),
      onPiece: (_text, destroy) => destroy(),
    });
    expect(r.complete).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 60));
    const ev = s.log[11]!;
    expect(ev.outcome).toBe('client-closed');
    expect(ev.chunks).toBeLessThan(5);
    expect(ev.endMs).not.toBeNull();
  });

  it('closing the server ends hung requests and counts every fault', async () => {
    const pending = send(s.url, '/v1/completions', { body: completionBody() });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await s.close();
    const r = await pending;
    expect(r.complete).toBe(false);
    expect(s.stats().faults).toEqual({
      http: 2,
      truncate: 2,
      hang: 2,
      'hang-before-headers': 1,
      reset: 1,
      malformed: 2,
      'context-overflow': 1,
    });
    expect(s.stats().inFlight).toBe(0);
  });
});
