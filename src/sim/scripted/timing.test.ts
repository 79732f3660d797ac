import { Agent } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { chatBody, completionBody, send, sseData } from '../../../test/support/scripted-http.ts';
import type { ScriptedScriptInput } from '../../schema/scripted-script.ts';
import type { ServerEvent } from './log.ts';
import { type ScriptedServer, startScriptedServer } from './server.ts';

const servers: ScriptedServer[] = [];
const agent = new Agent({ keepAlive: true });
async function start(script: ScriptedScriptInput) {
  const s = await startScriptedServer(script, { port: 0 });
  servers.push(s);
  return s;
}
afterAll(async () => {
  agent.destroy();
  await Promise.all(servers.map((s) => s.close()));
});

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const tokenWrites = (ev: ServerEvent) => ev.writes.filter((w) => w.chunk !== null);

describe('paced streams', () => {
  // Retried: a loaded machine can stall this process for longer than the tolerance.
  it('writes token chunk n at start + ttft + n·itl, without drift', { retry: 2 }, async () => {
    const s = await start({ defaults: { ttftMs: 20, itlMs: 5, outputTokens: 12 } });
    await send(s.url, '/v1/completions', { body: completionBody(), agent }); // warm up the code paths
    await Promise.all([0, 1, 2].map(() => send(s.url, '/v1/completions', { body: completionBody(), agent })));
    const errors: number[] = [];
    for (const ev of s.log.slice(1)) {
      const writes = tokenWrites(ev);
      expect(writes.map((w) => w.chunk)).toEqual([...Array(12).keys()]);
      for (const w of writes) {
        // Deadlines are absolute: no accumulated error however late an earlier write was.
        expect(w.deadlineMs! - ev.startMs!).toBeCloseTo(20 + 5 * w.chunk!, 6);
        expect(w.writtenMs).toBeGreaterThanOrEqual(w.deadlineMs!);
        errors.push(w.writtenMs - w.deadlineMs!);
      }
    }
    // Tests share the CPU with other suites: require the typical write on time, not every one.
    const late = errors.map((e) => e.toFixed(2)).join(' ');
    expect(median(errors), late).toBeLessThan(2);
    expect(errors.filter((e) => e < 2).length / errors.length, late).toBeGreaterThanOrEqual(0.8);
  });

  it('starts the clock when the body has been read', async () => {
    const s = await start({ defaults: { ttftMs: 15, itlMs: 0, outputTokens: 1 } });
    const r = await send(s.url, '/v1/completions', { body: completionBody() });
    const ev = s.log[0]!;
    expect(ev.startMs).toBe(ev.bodyReadMs);
    expect(ev.arrivalMs).toBeLessThanOrEqual(ev.bodyReadMs!);
    // The client's own view: the first chunk cannot come before ttft after the request was sent.
    expect(r.pieces[0]!.atMs - r.sentMs).toBeGreaterThanOrEqual(15);
  });
});

describe('serial mode', () => {
  it('serves one request at a time in arrival order; a later request starts when the earlier one ended', async () => {
    const s = await start({ serial: true, defaults: { ttftMs: 20, itlMs: 5, outputTokens: 5 } });
    const rs = await Promise.all(
      [0, 1, 2].map(() => send(s.url, '/v1/completions', { body: completionBody() })),
    );
    for (const r of rs) expect(sseData(r.body)).toHaveLength(7);
    const evs = [...s.log].sort((a, b) => a.startMs! - b.startMs!);
    for (let i = 1; i < evs.length; i++) {
      const prev = evs[i - 1]!;
      expect(evs[i]!.startMs!).toBeGreaterThanOrEqual(prev.writes.at(-1)!.writtenMs);
      expect(evs[i]!.startMs! - evs[i]!.bodyReadMs!).toBeGreaterThan(0);
    }
    // Each response takes ttft + 4·itl = 40 ms from its own start, so the third starts two responses later.
    expect(evs[2]!.startMs! - evs[0]!.startMs!).toBeGreaterThanOrEqual(2 * 40);
    expect(s.stats()).toMatchObject({ requests: 3, ok: 3, maxInFlight: 3, inFlight: 0, queued: 0 });
  });
});

describe('serial mode, blocked', () => {
  it('holds later requests behind a hung one; close() ends them all', async () => {
    const s = await startScriptedServer({ serial: true, requests: { '0': { fault: { kind: 'hang' } } } });
    const hung = send(s.url, '/v1/completions', { body: completionBody() });
    const queued = send(s.url, '/v1/chat/completions', { body: chatBody() });
    for (let i = 0; i < 100 && s.stats().queued < 1; i++) await new Promise((ok) => setTimeout(ok, 5));
    expect(s.stats()).toMatchObject({ inFlight: 2, queued: 1 });
    await s.close();
    const [a, b] = await Promise.all([hung, queued]);
    expect(a.complete || b.complete).toBe(false);
    expect(s.log.map((e) => e.outcome)).toEqual(['fault', 'server-closed']);
    expect(s.log[1]!.startMs).toBeNull();
    expect(s.stats()).toMatchObject({ inFlight: 0, serverClosed: 1, faults: { hang: 1 } });
  });
});

describe('burst mode', () => {
  it('delivers every event with far fewer socket writes, ignoring ttft and itl', async () => {
    const s = await start({ burst: true, defaults: { ttftMs: 10_000, itlMs: 10_000, outputTokens: 1000 } });
    const r = await send(s.url, '/v1/completions', { body: completionBody() });
    const data = sseData(r.body);
    expect(data).toHaveLength(1002);
    expect(data.at(-2)).toMatchObject({ usage: { completion_tokens: 1000 } });
    const ev = s.log[0]!;
    expect(ev.writes.length).toBe(Math.ceil(1000 / 64));
    expect(ev.writes.reduce((n, w) => n + w.chunks, 0)).toBe(1000);
    expect(ev.writes.reduce((n, w) => n + w.events, 0)).toBe(1002);
    expect(ev.writes.every((w) => w.deadlineMs === null)).toBe(true);
    expect(ev.bytes).toBe(Buffer.byteLength(r.body));
  });

  it('keeps the chat shape: role first, reasoning, content, finish_reason on the last token chunk', async () => {
    const s = await start({
      burst: true,
      burstEventsPerWrite: 8,
      defaults: { outputTokens: 20, reasoningChunks: 5 },
    });
    const data = sseData((await send(s.url, '/v1/chat/completions', { body: chatBody() })).body);
    expect(data).toHaveLength(1 + 20 + 2);
    const deltas = data.slice(1, 21).map((c) => (c as { choices: { delta: object }[] }).choices[0]!.delta);
    expect(deltas.filter((d) => 'reasoning_content' in d)).toHaveLength(5);
    expect(deltas.slice(5).every((d) => 'content' in d)).toBe(true);
    expect(data[20]).toMatchObject({ choices: [{ finish_reason: 'length' }] });
    expect(s.log[0]!.writes.length).toBe(3);
  });

  it('stops writing when the client goes away mid-burst', async () => {
    const s = await start({ burst: true, defaults: { outputTokens: 5_000_000 } });
    const r = await send(s.url, '/v1/completions', {
      body: completionBody(),
      onPiece: (_text, destroy) => destroy(),
    });
    expect(r.complete).toBe(false);
    for (let i = 0; i < 100 && s.log[0]!.outcome === 'pending'; i++)
      await new Promise((ok) => setTimeout(ok, 10));
    expect(s.log[0]!.outcome).toBe('client-closed');
    expect(s.log[0]!.chunks).toBeLessThan(5_000_000);
    expect(s.stats()).toMatchObject({ inFlight: 0, clientClosed: 1 });
  });
});
