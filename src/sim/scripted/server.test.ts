import { Agent } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatBody, completionBody, send, sseData } from '../../../test/support/scripted-http.ts';
import type { ScriptedScriptInput } from '../../schema/scripted-script.ts';
import { type ScriptedServer, startScriptedServer } from './server.ts';

const servers: ScriptedServer[] = [];
async function start(script: ScriptedScriptInput) {
  const s = await startScriptedServer(script, { port: 0 });
  servers.push(s);
  return s;
}
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

type Obj = Record<string, unknown>;
const choices = (c: unknown) => (c as { choices: Obj[] }).choices;

describe('completions stream', () => {
  let s: ScriptedServer;
  beforeAll(async () => {
    s = await start({
      defaults: { ttftMs: 5, itlMs: 1, promptTokens: null },
      requests: { '1': { usageOffset: { prompt: 3, completion: -2 } }, '2': { usage: false } },
    });
  });

  it('writes one chunk per token, finish_reason on the last, then usage and [DONE]', async () => {
    const agent = new Agent({ keepAlive: true });
    const r = await send(s.url, '/v1/completions', { body: completionBody(), agent });
    agent.destroy();
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(r.headers.connection).toBe('keep-alive');
    const data = sseData(r.body);
    expect(data).toHaveLength(7);
    for (const [i, c] of data.slice(0, 5).entries()) {
      expect(c).toMatchObject({
        id: 'cmpl-scripted-0',
        object: 'text_completion',
        model: 'scripted',
        choices: [{ index: 0, text: 'tok ', logprobs: null, finish_reason: i === 4 ? 'length' : null }],
      });
    }
    expect(data[5]).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    });
    expect(data[6]).toBe('[DONE]');
    expect(s.log[0]).toMatchObject({ k: 0, endpoint: 'completions', outcome: 'ok', tokens: 5, chunks: 5 });
  });

  it('lies in usage by the scripted offsets; closes the connection when the client asks', async () => {
    const r = await send(s.url, '/v1/completions', { body: completionBody() });
    expect(r.headers.connection).toBe('close');
    expect(sseData(r.body)[5]).toMatchObject({
      usage: { prompt_tokens: 13, completion_tokens: 3, total_tokens: 16 },
    });
  });

  it('sends no usage chunk when the script says so, or the request does not ask', async () => {
    const off = sseData((await send(s.url, '/v1/completions', { body: completionBody() })).body);
    expect(off).toHaveLength(6);
    expect(off.at(-1)).toBe('[DONE]');
    const notAsked = sseData(
      (await send(s.url, '/v1/completions', { body: completionBody({ stream_options: undefined }) })).body,
    );
    expect(notAsked.some((c) => typeof c === 'object' && 'usage' in (c as Obj))).toBe(false);
  });

  it('counts token-id prompts and multi-token chunks', async () => {
    const t = await start({ defaults: { ttftMs: 1, itlMs: 0, tokensPerChunk: 3, outputTokens: 7 } });
    const r = await send(t.url, '/v1/completions', {
      body: completionBody({ prompt: [1, 2, 3, 4, 5, 6], max_tokens: 100 }),
    });
    const data = sseData(r.body);
    expect(data.slice(0, 3).map((c) => choices(c)[0]!.text)).toEqual([
      'tok tok tok ',
      'tok tok tok ',
      'tok ',
    ]);
    expect(choices(data[2])[0]!.finish_reason).toBe('stop');
    expect(data[3]).toMatchObject({ usage: { prompt_tokens: 6, completion_tokens: 7 } });
  });
});

describe('chat stream', () => {
  it('sends the role chunk with the first token, reasoning chunks first, then content', async () => {
    const s = await start({ defaults: { ttftMs: 3, itlMs: 1, reasoningChunks: 2 } });
    const r = await send(s.url, '/v1/chat/completions', { body: chatBody({ max_completion_tokens: 4 }) });
    const data = sseData(r.body);
    expect(data).toHaveLength(7);
    expect(data[0]).toMatchObject({
      id: 'chatcmpl-scripted-0',
      object: 'chat.completion.chunk',
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }],
    });
    expect(data.slice(1, 5).map((c) => choices(c)[0]!.delta)).toEqual([
      { reasoning_content: 'tok ' },
      { reasoning_content: 'tok ' },
      { content: 'tok ' },
      { content: 'tok ' },
    ]);
    expect(choices(data[4])[0]!.finish_reason).toBe('length');
    expect(data[5]).toMatchObject({ choices: [], usage: { prompt_tokens: 10, completion_tokens: 4 } });
    // Role chunk and first token go out in one write, at the TTFT deadline.
    const first = s.log[0]!.writes[0]!;
    expect(first).toMatchObject({ chunk: 0, events: 2 });
    expect(r.pieces[0]!.text).toContain('"role":"assistant"');
    expect(r.pieces[0]!.text).toContain('reasoning_content');
  });

  it('writes the role chunk at the start when roleChunk is at-start', async () => {
    const s = await start({ defaults: { ttftMs: 30, itlMs: 1, roleChunk: 'at-start' } });
    await send(s.url, '/v1/chat/completions', { body: chatBody({ max_completion_tokens: 2 }) });
    const ev = s.log[0]!;
    expect(ev.writes[0]).toMatchObject({ chunk: null, events: 1, deadlineMs: null });
    expect(ev.writes[0]!.writtenMs - ev.startMs!).toBeLessThan(20);
    expect(ev.writes[1]).toMatchObject({ chunk: 0, events: 1 });
  });

  it('reads max_tokens when max_completion_tokens is absent', async () => {
    const s = await start({ defaults: { ttftMs: 0, itlMs: 0 } });
    const r = await send(s.url, '/v1/chat/completions', {
      body: chatBody({ max_completion_tokens: undefined, max_tokens: 3 }),
    });
    expect(sseData(r.body)).toHaveLength(1 + 3 + 2);
  });
});

describe('non-streaming', () => {
  it('answers completions and chat with one JSON body carrying usage', async () => {
    const s = await start({ defaults: { ttftMs: 2, itlMs: 1, reasoningChunks: 1 } });
    const c = await send(s.url, '/v1/completions', {
      body: completionBody({ stream: false, max_tokens: 3 }),
    });
    expect(c.headers['content-type']).toBe('application/json');
    expect(JSON.parse(c.body)).toMatchObject({
      object: 'text_completion',
      choices: [{ index: 0, text: 'tok tok tok ', finish_reason: 'length' }],
      usage: { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 },
    });
    const chat = await send(s.url, '/v1/chat/completions', {
      body: chatBody({ stream: false, max_completion_tokens: 3 }),
    });
    expect(JSON.parse(chat.body)).toMatchObject({
      object: 'chat.completion',
      choices: [
        {
          message: { role: 'assistant', content: 'tok tok ', reasoning_content: 'tok ' },
          finish_reason: 'length',
        },
      ],
      usage: { completion_tokens: 3 },
    });
    // Sent when the last token is due: start + ttft + 2·itl.
    const ev = s.log[0]!;
    expect(ev.writes[0]!.deadlineMs).toBe(ev.startMs! + 4);
  });
});

describe('other routes and bad requests', () => {
  let s: ScriptedServer;
  beforeAll(async () => {
    s = await start({ model: 'm1', maxModelLen: 1000 });
  });

  it('serves /health and /v1/models', async () => {
    const h = await send(s.url, '/health');
    expect(h.status).toBe(200);
    const m = await send(s.url, '/v1/models');
    expect(JSON.parse(m.body)).toEqual({
      object: 'list',
      data: [{ id: 'm1', object: 'model', created: 0, owned_by: 'infx', max_model_len: 1000 }],
    });
  });

  it('answers 404, 405 and 400 with OpenAI-style JSON errors', async () => {
    const nf = await send(s.url, '/v1/nothing', { body: {} });
    expect(nf.status).toBe(404);
    expect(JSON.parse(nf.body)).toMatchObject({ error: { type: 'not_found_error', code: 404 } });
    const wrong = await send(s.url, '/v1/completions');
    expect(wrong.status).toBe(405);
    const bad = await send(s.url, '/v1/completions', { body: '{"prompt": "x",' });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body).error.message).toMatch(/^invalid JSON body/);
    const noMessages = await send(s.url, '/v1/chat/completions', { body: { stream: true } });
    expect(noMessages.status).toBe(400);
    expect(JSON.parse(noMessages.body).error.param).toBe('messages');
    // Bad requests still take an arrival index.
    expect(s.log.map((e) => e.outcome)).toEqual(['bad-request', 'bad-request']);
    expect(s.stats()).toMatchObject({ requests: 2, badRequests: 2 });
  });

  it('rejects a request over maxModelLen with the context-overflow error', async () => {
    const r = await send(s.url, '/v1/completions', {
      body: completionBody({ prompt: 'y'.repeat(3600), max_tokens: 200 }),
    });
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body).error).toMatchObject({
      code: 'context_length_exceeded',
      message: expect.stringMatching(/^This model's maximum context length is 1000 tokens\./),
    });
  });

  it('accepts a body of several MB', async () => {
    const t = await start({ defaults: { ttftMs: 0, itlMs: 0, outputTokens: 1 } });
    const prompt = 'z'.repeat(4_000_000);
    const r = await send(t.url, '/v1/completions', { body: completionBody({ prompt }) });
    expect(r.status).toBe(200);
    expect(sseData(r.body)[1]).toMatchObject({ usage: { prompt_tokens: 1_000_000 } });
    expect(t.log[0]!.bodyBytes).toBeGreaterThan(4_000_000);
  });
});
