import { type Agent, request } from 'node:http';
import { nowMs } from '../../src/sim/scripted/clock.ts';

/** Plain node:http helpers for the tests of the scripted server (src/sim/scripted), independent of infx's client. */

export interface Received {
  status: number | null;
  headers: Record<string, string | string[] | undefined>;
  /** Body pieces as the socket delivered them, with the monotonic time of each. */
  pieces: { atMs: number; text: string }[];
  body: string;
  /** Set when the request or the response failed (reset, premature close, …). */
  error: NodeJS.ErrnoException | null;
  /** The response body ended properly (not cut). */
  complete: boolean;
  sentMs: number;
  doneMs: number;
}

export interface SendOptions {
  method?: string;
  body?: unknown;
  agent?: Agent;
  /** Give up (destroy the request) after this long, for hangs. */
  abortAfterMs?: number;
  /** Called with the first piece of the body: lets a test close the request mid-stream. */
  onPiece?: (text: string, destroy: () => void) => void;
}

export function send(base: string, path: string, opts: SendOptions = {}): Promise<Received> {
  const url = new URL(path, base);
  const payload =
    opts.body === undefined
      ? undefined
      : typeof opts.body === 'string'
        ? opts.body
        : JSON.stringify(opts.body);
  return new Promise((resolve) => {
    const out: Received = {
      status: null,
      headers: {},
      pieces: [],
      body: '',
      error: null,
      complete: false,
      sentMs: nowMs(),
      doneMs: 0,
    };
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      out.doneMs = nowMs();
      out.body = out.pieces.map((p) => p.text).join('');
      resolve(out);
    };
    const req = request(url, {
      method: opts.method ?? (payload === undefined ? 'GET' : 'POST'),
      agent: opts.agent ?? false,
      headers: payload === undefined ? {} : { 'Content-Type': 'application/json' },
    });
    const timer =
      opts.abortAfterMs === undefined
        ? undefined
        : setTimeout(() => {
            req.destroy();
            settle();
          }, opts.abortAfterMs);
    req.on('error', (err) => {
      out.error = err;
      settle();
    });
    req.on('response', (res) => {
      out.status = res.statusCode ?? null;
      out.headers = res.headers;
      res.setEncoding('utf8');
      res.on('data', (text: string) => {
        out.pieces.push({ atMs: nowMs(), text });
        opts.onPiece?.(text, () => req.destroy());
      });
      res.on('end', () => {
        out.complete = true;
        settle();
      });
      res.on('error', (err) => {
        out.error = err;
        settle();
      });
      res.on('close', settle);
    });
    out.sentMs = nowMs();
    req.end(payload);
  });
}

/** The JSON payloads of an SSE body (`data: [DONE]` as the string '[DONE]'); throws on a malformed event. */
export function sseData(body: string): unknown[] {
  return body
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .map((l) => {
      if (!l.startsWith('data: ')) throw new Error(`not an SSE data line: ${l}`);
      const data = l.slice(6);
      return data === '[DONE]' ? data : JSON.parse(data);
    });
}

export const completionBody = (extra: Record<string, unknown> = {}) => ({
  model: 'scripted',
  prompt: 'x'.repeat(40),
  max_tokens: 5,
  stream: true,
  stream_options: { include_usage: true },
  ignore_eos: true,
  ...extra,
});

export const chatBody = (extra: Record<string, unknown> = {}) => ({
  model: 'scripted',
  messages: [{ role: 'user', content: 'x'.repeat(40) }],
  max_completion_tokens: 5,
  stream: true,
  stream_options: { include_usage: true },
  ...extra,
});
