import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { monotonicMs } from '../src/client/clock.ts';
import { runLoad } from '../src/client/load.ts';
import { endpointPath } from '../src/client/payload.ts';
import { runPhase } from '../src/client/runner.ts';
import { createTransport } from '../src/client/transport.ts';
import type { RequestRecord } from '../src/schema/request-record.ts';
import { type ConversationSession, conversationSpec } from '../src/workload/conversation-driver.ts';
import { DONE, type DriverRequest, type PhaseDriver, WAIT } from '../src/workload/driver.ts';
import { fixedSeqLenPhases } from '../src/workload/fixed-seq-len-driver.ts';
import { buildConversationPayload, type ChatMessage, type PayloadOptions } from '../src/workload/payload.ts';
import { benchmarkRun } from './support/phase-run.ts';

/**
 * The workload seam (workload/driver.ts) against a real loopback server: a request that depends on an
 * earlier one goes only after it finished, with its output; per-request headers reach the server; DONE
 * ends the phase; in worker mode a session stays on one thread and the concurrency holds globally.
 * Worker mode needs `npm run build` (dist/client-worker.mjs).
 */

interface Seen {
  n: number;
  arrivedMs: number;
  endedMs: number;
  session: string | null;
  messages: ChatMessage[];
}

/** A chat server that answers request n (in arrival order) with the text `reply-n` after `delayMs`. */
async function chatServer(delayMs: number) {
  const seen: Seen[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const server = http.createServer((req, res) => {
    const arrivedMs = performance.now();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { messages: ChatMessage[] };
      const entry: Seen = {
        n: seen.length,
        arrivedMs,
        endedMs: Number.NaN,
        session: (req.headers['x-session-id'] as string | undefined) ?? null,
        messages: body.messages,
      };
      seen.push(entry);
      setTimeout(() => {
        const event = (o: object) => `data: ${JSON.stringify(o)}\n\n`;
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        inFlight--;
        entry.endedMs = performance.now();
        res.end(
          event({ choices: [{ index: 0, delta: { content: `reply-${entry.n}` }, finish_reason: null }] }) +
            event({ choices: [{ index: 0, delta: {}, finish_reason: 'length' }] }) +
            event({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 1 } }) +
            'data: [DONE]\n\n',
        );
      }, delayMs);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    seen,
    maxInFlight: () => maxInFlight,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let closeServer: (() => Promise<void>) | null = null;
afterEach(async () => {
  await closeServer?.();
  closeServer = null;
});

async function serve(delayMs: number) {
  const s = await chatServer(delayMs);
  closeServer = s.close;
  return s;
}

const payload: PayloadOptions = { endpoint: 'chat', model: 'm', ignoreEos: true };
const transportFor = (url: string) => ({
  baseUrl: new URL(url),
  endpoint: 'chat' as const,
  path: endpointPath('chat'),
  timeoutMs: 10_000,
  apiKey: null,
});

function sessions(count: number, turns: number): ConversationSession[] {
  return Array.from({ length: count }, (_, s) => ({
    id: `s${s}`,
    turns: Array.from({ length: turns }, (_, t) => ({
      user: `s${s} turn ${t}`,
      maxTokens: 1,
      inputTokens: 3,
    })),
  }));
}

/** Each session's turns reached the server in order, each after the previous one ended, with its reply. */
function expectConversations(seen: Seen[], count: number, turns: number) {
  expect(seen).toHaveLength(count * turns);
  for (let s = 0; s < count; s++) {
    const mine = seen.filter((x) => x.session === `s${s}`);
    expect(mine.map((x) => x.messages.at(-1)!.content)).toEqual(
      Array.from({ length: turns }, (_, t) => `s${s} turn ${t}`),
    );
    for (let t = 1; t < turns; t++) {
      const prev = mine[t - 1]!;
      expect(mine[t]!.arrivedMs).toBeGreaterThanOrEqual(prev.endedMs);
      // The conversation so far, with the previous turn's generated text as the assistant's message.
      expect(mine[t]!.messages.at(-2)).toEqual({ role: 'assistant', content: `reply-${prev.n}` });
      expect(mine[t]!.messages).toHaveLength(2 * t + 1);
    }
  }
}

describe('client: the workload driver seam', () => {
  it('sends a request that depends on an earlier one only after it finished, with its output', async () => {
    const server = await serve(30);
    const sent: number[] = [];
    const completed: string[] = [];
    let firstText: string | null = null;
    const request = (index: number, content: string): DriverRequest => ({
      index,
      promptIndex: index,
      body: buildConversationPayload(payload, [{ role: 'user', content }], 1),
      maxTokens: 1,
      inputTokens: { target: 3, client: 3 },
      headers: { 'x-session-id': `req-${index}` },
      arrivalOffsetMs: null,
    });
    const driver: PhaseDriver = {
      next() {
        if (sent.length === 2) return DONE;
        if (sent.length === 1 && firstText === null) return WAIT;
        sent.push(sent.length);
        return sent.length === 1 ? request(0, 'first') : request(1, `after ${firstText}`);
      },
      complete(r: DriverRequest, record: RequestRecord, text: string) {
        expect(record.index).toBe(r.index);
        completed.push(text);
        if (r.index === 0) firstText = text;
      },
    };
    const records: RequestRecord[] = [];
    const transport = createTransport(transportFor(server.url));
    try {
      await runPhase(benchmarkRun(driver, { slots: 4, onRecord: (r) => records.push(r) }), transport);
    } finally {
      transport.close();
    }
    expect(records.map((r) => [r.index, r.ok])).toEqual([
      [0, true],
      [1, true],
    ]);
    expect(completed).toEqual(['reply-0', 'reply-1']);
    expect(server.seen.map((x) => [x.session, x.messages[0]!.content])).toEqual([
      ['req-0', 'first'],
      ['req-1', 'after reply-0'],
    ]);
    expect(server.seen[1]!.arrivedMs).toBeGreaterThanOrEqual(server.seen[0]!.endedMs);
  });

  it('a driver that waits with nothing in flight is an error, not a hang', async () => {
    const server = await serve(0);
    const transport = createTransport(transportFor(server.url));
    const run = runPhase(benchmarkRun({ next: () => WAIT, complete() {} }), transport);
    await expect(run).rejects.toThrow(/waits for a request, but none is in flight/);
    transport.close();
  });

  it('the plain-HTTP transport tells its read hook of each socket read, with its time, until taken back', async () => {
    const server = await serve(0);
    const transport = createTransport(transportFor(server.url));
    const reads: number[] = [];
    transport.onRead?.((t) => reads.push(t));
    const body = buildConversationPayload(payload, [{ role: 'user', content: 'hello' }], 1);
    const first = await transport.send(body, new AbortController().signal);
    expect(first.error).toBeNull();
    expect(reads.length).toBeGreaterThan(0);
    for (const t of reads) expect(t).toBeGreaterThanOrEqual(first.sentMs);
    expect(reads.at(-1)).toBeLessThanOrEqual(first.doneMs);
    const seen = reads.length;
    transport.onRead?.(null);
    expect((await transport.send(body, new AbortController().signal)).error).toBeNull();
    expect(reads).toHaveLength(seen);
    transport.close();
  });

  it('a driver that waits for a time, with nothing in flight, is asked again then (a think time)', async () => {
    const server = await serve(0);
    const transport = createTransport(transportFor(server.url));
    const wakeAt = monotonicMs() + 40;
    let handedAt: number | null = null;
    let asked = 0;
    const driver: PhaseDriver = {
      next() {
        asked++;
        if (handedAt !== null) return DONE;
        if (monotonicMs() < wakeAt) return WAIT;
        handedAt = monotonicMs();
        return {
          index: 0,
          promptIndex: 0,
          body: buildConversationPayload(payload, [{ role: 'user', content: 'after the think time' }], 1),
          maxTokens: 1,
          inputTokens: { target: 3, client: 3 },
          headers: null,
          arrivalOffsetMs: null,
        };
      },
      wakeAtMs: () => wakeAt,
      complete() {},
    };
    const records: RequestRecord[] = [];
    try {
      await runPhase(benchmarkRun(driver, { onRecord: (r) => records.push(r) }), transport);
    } finally {
      transport.close();
    }
    expect(records.map((r) => r.ok)).toEqual([true]);
    expect(handedAt!).toBeGreaterThanOrEqual(wakeAt);
    // Once before the time, once at it (the request), once after it (DONE): a timer, not a busy loop.
    expect(asked).toBe(3);
    expect(server.seen.map((x) => x.messages[0]!.content)).toEqual(['after the think time']);
  });

  it('replays conversations in this thread: turns in order, session headers, every turn recorded', async () => {
    const server = await serve(15);
    const res = await runLoad({
      transport: transportFor(server.url),
      phases: { warmup: null, benchmark: conversationSpec(payload, sessions(3, 3), 'x-session-id') },
      concurrency: 2,
      workers: 1,
      lockstep: false,
      signal: new AbortController().signal,
    });
    expectConversations(server.seen, 3, 3);
    expect(server.maxInFlight()).toBe(2);
    expect(res.records.map((r) => r.index)).toEqual([...Array(9).keys()]);
    expect(new Set(res.records.map((r) => r.promptIndex))).toEqual(new Set([...Array(9).keys()]));
    expect(res.records.every((r) => r.ok && r.phase === 'benchmark')).toBe(true);
    expect(res.texts.every((t) => /^reply-\d+$/.test(t))).toBe(true);
  });

  it('refuses lockstep with the simulated engine for a workload whose requests wait on others', async () => {
    const server = await serve(0);
    const run = runLoad({
      transport: transportFor(server.url),
      phases: { warmup: null, benchmark: conversationSpec(payload, sessions(1, 2), null) },
      concurrency: 2,
      workers: 1,
      lockstep: true,
      signal: new AbortController().signal,
    });
    await expect(run).rejects.toThrow(/lockstep .* independent requests/);
    expect(server.seen).toHaveLength(0);
  });

  it('in worker threads: a session stays on one thread, the concurrency holds across threads', async () => {
    const server = await serve(15);
    const res = await runLoad({
      transport: transportFor(server.url),
      phases: {
        warmup: conversationSpec(payload, sessions(1, 2), 'x-session-id'),
        benchmark: conversationSpec(payload, sessions(6, 3), 'x-session-id'),
      },
      concurrency: 3,
      workers: 2,
      lockstep: false,
      signal: new AbortController().signal,
    });
    const bench = res.records.filter((r) => r.phase === 'benchmark');
    expect(res.records.filter((r) => r.phase === 'warmup')).toHaveLength(2);
    expectConversations(server.seen.slice(2), 6, 3);
    expect(server.maxInFlight()).toBeLessThanOrEqual(3);
    expect(bench.map((r) => r.index)).toEqual([...Array(18).keys()]);
    const threadOf = new Map<number, Set<number>>();
    for (const r of bench) {
      const session = Math.floor(r.promptIndex / 3);
      threadOf.set(session, (threadOf.get(session) ?? new Set()).add(r.worker));
    }
    expect([...threadOf.values()].map((w) => w.size)).toEqual([1, 1, 1, 1, 1, 1]);
    expect(new Set(bench.map((r) => r.worker))).toEqual(new Set([0, 1]));
  });

  it('fixed-seq-len in worker threads: one global dispatch order, the concurrency never exceeded', async () => {
    const server = await serve(5);
    const requests = Array.from({ length: 20 }, (_, i) => ({
      body: buildConversationPayload(payload, [{ role: 'user', content: `p${i}` }], 1),
      maxTokens: 1,
      targetInputTokens: 3,
      clientInputTokens: 3,
    }));
    const res = await runLoad({
      transport: transportFor(server.url),
      phases: fixedSeqLenPhases(requests, 3, null),
      concurrency: 4,
      workers: 3,
      lockstep: false,
      signal: new AbortController().signal,
    });
    expect(server.maxInFlight()).toBeLessThanOrEqual(4);
    const warm = res.records.filter((r) => r.phase === 'warmup');
    const bench = res.records.filter((r) => r.phase === 'benchmark');
    expect(warm.map((r) => r.promptIndex)).toEqual([0, 0, 0]);
    // One counter for all threads: request i of the phase is prompt i, whichever thread sent it.
    expect(bench.map((r) => [r.index, r.promptIndex])).toEqual([...Array(20).keys()].map((i) => [i, i]));
    expect(new Set(bench.map((r) => r.worker))).toEqual(new Set([0, 1, 2]));
  });
});
