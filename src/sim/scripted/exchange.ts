import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ScriptedDefaults, ScriptedFault, ScriptedScript } from '../../schema/scripted-script.ts';
import { SIMULATOR_HEADER } from '../../schema/sim-protocol.ts';
import {
  BadRequest,
  type Channel,
  contextOverflowBody,
  DEFAULT_MAX_TOKENS,
  DONE_EVENT,
  errorBody,
  type FinishReason,
  type GenerationRequest,
  MALFORMED_EVENT,
  Payloads,
  readGenerationRequest,
  usageOf,
} from '../openai-wire.ts';
import { SCRIPTED_VERSION } from '../version.ts';
import { nowMs, type Scheduled, type Scheduler } from './clock.ts';
import type { Outcome, ServerEvent, WriteRecord } from './log.ts';

/** What an exchange needs from its server. */
export interface ExchangeHost {
  readonly script: ScriptedScript;
  readonly scheduler: Scheduler;
  readonly logWrites: boolean;
  readonly maxBodyBytes: number;
  /** The request is ready to start: the server starts it now or when its serial turn comes. */
  ready(ex: Exchange): void;
  /** The exchange is over (response ended or connection closed). Called once. */
  finished(ex: Exchange): void;
}

// No Connection header of our own: Node sends `Connection: keep-alive` unless the client asked to close,
// and then closes the socket after the response as it should.
/** Results measured against the scripted server are labelled simulated, with this as the simulator. */
const SCRIPTED = { [SIMULATOR_HEADER]: SCRIPTED_VERSION } as const;

const SSE_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache',
  ...SCRIPTED,
} as const;

type StreamFault = Extract<ScriptedFault, { kind: 'truncate' | 'malformed' }>;

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  let type = 'application/json';
  if (typeof body === 'string') {
    try {
      JSON.parse(body);
    } catch {
      type = 'text/plain; charset=utf-8';
    }
  }
  res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(text), ...SCRIPTED });
  res.end(text);
}

function waitDrain(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** One generation request, from arrival to the end of its response. */
export class Exchange {
  private timer: Scheduled | null = null;
  private closed = false;
  private settings!: ScriptedDefaults;
  private request!: GenerationRequest;
  private payloads!: Payloads;
  private start = 0;
  private tokens = 0;
  private nChunks = 0;
  /** Whether this exchange holds the serial turn (set by the server). */
  holdsTurn = false;

  constructor(
    readonly ev: ServerEvent,
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly host: ExchangeHost,
  ) {
    res.on('close', () => this.onClose());
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Reads the body (or resets the connection, when that is the scripted fault). */
  receive(settings: ScriptedDefaults): void {
    this.settings = settings;
    if (settings.fault?.kind === 'reset') {
      this.fail('reset');
      this.req.socket.resetAndDestroy();
      return;
    }
    const parts: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    this.req.on('data', (part: Buffer) => {
      size += part.length;
      if (tooLarge) return;
      if (size > this.host.maxBodyBytes) {
        tooLarge = true;
        parts.length = 0;
        this.badRequest(413, `request body over ${this.host.maxBodyBytes} bytes`);
        return;
      }
      parts.push(part);
    });
    this.req.on('end', () => {
      this.ev.bodyBytes = size;
      if (tooLarge || this.closed) return;
      this.ev.bodyReadMs = nowMs();
      this.parse(parts.length === 1 ? parts[0]! : Buffer.concat(parts, size));
    });
  }

  private parse(raw: Buffer): void {
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch (err) {
      this.badRequest(400, `invalid JSON body: ${(err as Error).message}`);
      return;
    }
    try {
      this.request = readGenerationRequest(this.ev.endpoint, body);
    } catch (err) {
      if (!(err instanceof BadRequest)) throw err;
      this.badRequest(400, err.message, err.param);
      return;
    }
    const s = this.settings;
    this.ev.stream = this.request.stream;
    this.ev.maxTokens = this.request.maxTokens;
    this.ev.promptTokens = s.promptTokens ?? this.request.promptTokens;
    this.tokens = s.outputTokens ?? this.request.maxTokens ?? DEFAULT_MAX_TOKENS;
    this.nChunks = Math.ceil(this.tokens / s.tokensPerChunk);
    this.payloads = new Payloads(this.ev.endpoint, this.ev.k, this.host.script.model);
    this.host.ready(this);
  }

  private badRequest(status: number, message: string, param: string | null = null): void {
    this.ev.outcome = 'bad-request';
    this.ev.status = status;
    sendJson(this.res, status, errorBody(message, 'invalid_request_error', status, param));
  }

  private fail(kind: ScriptedFault['kind']): void {
    this.ev.fault = kind;
    this.ev.outcome = 'fault';
  }

  /** The script's clock started at `startMs` (body read, or the serial turn came): answer as scripted. */
  begin(startMs: number): void {
    if (this.closed) return;
    this.start = startMs;
    this.ev.startMs = startMs;
    const fault = this.settings.fault;
    const { maxModelLen } = this.host.script;
    const asked = this.request.maxTokens ?? this.tokens;
    const prompt = this.ev.promptTokens!;
    if (fault?.kind === 'context-overflow' || (maxModelLen !== null && prompt + asked > maxModelLen)) {
      const limit =
        (fault?.kind === 'context-overflow' ? fault.maxContextTokens : undefined) ??
        maxModelLen ??
        Math.max(1, prompt + asked - 1);
      this.fail('context-overflow');
      this.ev.status = 400;
      sendJson(this.res, 400, contextOverflowBody(limit, prompt, asked));
      return;
    }
    if (fault?.kind === 'http') {
      this.fail('http');
      this.ev.status = fault.status;
      sendJson(
        this.res,
        fault.status,
        fault.body ??
          errorBody(
            `scripted HTTP ${fault.status}`,
            fault.status >= 500 ? 'server_error' : 'invalid_request_error',
            fault.status,
          ),
      );
      return;
    }
    if (fault?.kind === 'hang-before-headers') {
      this.fail('hang-before-headers');
      return;
    }
    if (this.request.stream) this.beginStream(fault);
    else this.beginJson(fault);
  }

  // ---- streaming ----

  private beginStream(fault: ScriptedFault | null): void {
    this.ev.status = 200;
    this.res.writeHead(200, SSE_HEADERS);
    this.res.flushHeaders();
    if (fault?.kind === 'hang') {
      this.fail('hang');
      return;
    }
    const streamFault = fault?.kind === 'truncate' || fault?.kind === 'malformed' ? fault : null;
    let prefix = '';
    if (this.ev.endpoint === 'chat') {
      const role = this.payloads.roleEvent();
      if (this.settings.roleChunk === 'with-first-token') prefix = role;
      else this.write(role, { chunk: null, chunks: 0, tokens: 0, events: 1, deadlineMs: null });
    }
    if (this.host.script.burst) void this.streamBurst(prefix, streamFault);
    else this.streamPaced(prefix, streamFault);
  }

  private deadline(n: number): number {
    return this.start + this.settings.ttftMs + n * this.settings.itlMs;
  }

  private chunkTokens(n: number): number {
    return Math.min(this.settings.tokensPerChunk, this.tokens - n * this.settings.tokensPerChunk);
  }

  private channel(n: number): Channel {
    return this.ev.endpoint === 'chat' && n < this.settings.reasoningChunks ? 'reasoning' : 'content';
  }

  private finishReason(): FinishReason {
    const asked = this.request.maxTokens;
    return asked !== null && this.tokens < asked ? 'stop' : 'length';
  }

  private chunkEvent(n: number): string {
    return this.payloads.chunkEvent(
      this.settings.tokenText.repeat(this.chunkTokens(n)),
      this.channel(n),
      n === this.nChunks - 1 ? this.finishReason() : null,
    );
  }

  private usage() {
    const s = this.settings;
    return usageOf(this.ev.promptTokens! + s.usageOffset.prompt, this.ev.tokens + s.usageOffset.completion);
  }

  /** The usage event (when asked for and scripted) and [DONE]. */
  private trailer(): { text: string; events: number } {
    if (this.request.includeUsage && this.settings.usage) {
      return { text: this.payloads.usageEvent(this.usage()) + DONE_EVENT, events: 2 };
    }
    return { text: DONE_EVENT, events: 1 };
  }

  private stopAt(fault: StreamFault | null): number {
    return fault === null ? this.nChunks : Math.min(fault.afterChunks, this.nChunks);
  }

  private streamPaced(rolePrefix: string, fault: StreamFault | null): void {
    const stopAt = this.stopAt(fault);
    let prefix = rolePrefix;
    const step = (n: number) => {
      const deadlineMs = this.deadline(n);
      this.timer = this.host.scheduler.at(deadlineMs, () => {
        this.timer = null;
        if (this.closed) return;
        if (n === stopAt) {
          this.endStream(prefix, fault, deadlineMs);
          return;
        }
        let text = prefix + this.chunkEvent(n);
        let events = prefix === '' ? 1 : 2;
        prefix = '';
        const meta = { chunk: n, chunks: 1, tokens: this.chunkTokens(n), events, deadlineMs };
        if (n === this.nChunks - 1 && fault === null) {
          this.countTokens(meta);
          const trailer = this.trailer();
          text += trailer.text;
          events += trailer.events;
          this.ev.outcome = 'ok';
          this.write(text, { ...meta, events }, true, false);
          return;
        }
        this.write(text, meta);
        step(n + 1);
      });
    };
    step(0);
  }

  private async streamBurst(rolePrefix: string, fault: StreamFault | null): Promise<void> {
    const stopAt = this.stopAt(fault);
    const perWrite = this.host.script.burstEventsPerWrite;
    const tokensPerChunk = this.settings.tokensPerChunk;
    // Batches of identical middle chunks are encoded once and written again and again.
    const batches = new Map<string, Buffer>();
    let prefix = rolePrefix;
    let n = 0;
    while (n < stopAt) {
      if (this.closed) return;
      const first = n;
      const end = Math.min(stopAt, n + perWrite);
      n = end;
      const meta = { chunk: first, chunks: end - first, tokens: 0, events: end - first, deadlineMs: null };
      if (prefix === '' && end < this.nChunks && this.channel(first) === this.channel(end - 1)) {
        const key = `${this.channel(first)}:${end - first}`;
        let batch = batches.get(key);
        if (batch === undefined) {
          batch = Buffer.from(this.chunkEvent(first).repeat(end - first));
          batches.set(key, batch);
        }
        meta.tokens = (end - first) * tokensPerChunk;
        if (!this.write(batch, meta)) await waitDrain(this.res);
        continue;
      }
      let text = prefix;
      for (let i = first; i < end; i++) {
        text += this.chunkEvent(i);
        meta.tokens += this.chunkTokens(i);
      }
      if (prefix !== '') meta.events++;
      prefix = '';
      if (end === this.nChunks && fault === null) {
        this.countTokens(meta);
        const trailer = this.trailer();
        this.ev.outcome = 'ok';
        this.write(text + trailer.text, { ...meta, events: meta.events + trailer.events }, true, false);
        return;
      }
      if (!this.write(text, meta)) await waitDrain(this.res);
    }
    if (!this.closed) this.endStream(prefix, fault, null);
  }

  /** After the last token chunk: the scripted stream fault, or the trailer of an empty stream. */
  private endStream(prefix: string, fault: StreamFault | null, deadlineMs: number | null): void {
    const none = { chunk: null, chunks: 0, tokens: 0, deadlineMs };
    if (fault === null) {
      const trailer = this.trailer();
      this.ev.outcome = 'ok';
      const events = trailer.events + (prefix === '' ? 0 : 1);
      this.write(prefix + trailer.text, { ...none, events }, true);
      return;
    }
    this.fail(fault.kind);
    if (fault.kind === 'malformed') {
      this.write(prefix + MALFORMED_EVENT, { ...none, events: prefix === '' ? 1 : 2 }, true);
    } else if (fault.clean) {
      this.res.end();
    } else {
      this.cutConnection();
    }
  }

  // ---- non-streaming ----

  private beginJson(fault: ScriptedFault | null): void {
    if (fault?.kind === 'hang') {
      this.fail('hang');
      this.ev.status = 200;
      this.res.writeHead(200, { 'Content-Type': 'application/json', ...SCRIPTED });
      this.res.flushHeaders();
      return;
    }
    const at = this.host.script.burst ? nowMs() : this.deadline(Math.max(0, this.nChunks - 1));
    this.timer = this.host.scheduler.at(at, () => {
      this.timer = null;
      if (this.closed) return;
      this.sendBody(fault, this.host.script.burst ? null : at);
    });
  }

  private sendBody(fault: ScriptedFault | null, deadlineMs: number | null): void {
    let content = '';
    let reasoning = '';
    for (let n = 0; n < this.nChunks; n++) {
      const text = this.settings.tokenText.repeat(this.chunkTokens(n));
      if (this.channel(n) === 'reasoning') reasoning += text;
      else content += text;
    }
    this.ev.chunks = this.nChunks;
    this.ev.tokens = this.tokens;
    const usage = this.settings.usage ? this.usage() : null;
    const body = JSON.stringify(this.payloads.body(content, reasoning, this.finishReason(), usage));
    const meta = {
      chunk: this.nChunks > 0 ? 0 : null,
      chunks: this.nChunks,
      tokens: this.tokens,
      events: 0,
      deadlineMs,
    };
    this.ev.status = 200;
    if (fault?.kind === 'malformed') {
      this.fail('malformed');
      this.res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': 9, ...SCRIPTED });
      this.write('{not json', { ...meta, chunk: null, chunks: 0, tokens: 0 }, true, false);
      return;
    }
    this.res.writeHead(200, {
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(body),
      ...SCRIPTED,
    });
    if (fault?.kind === 'truncate') {
      this.fail('truncate');
      this.write(
        body.slice(0, body.length >> 1),
        { ...meta, chunk: null, chunks: 0, tokens: 0 },
        false,
        false,
      );
      this.cutConnection();
      return;
    }
    this.ev.outcome = 'ok';
    this.write(body, meta, true, false);
  }

  // ---- writes and the end ----

  /** Ends the connection mid-body: what was written is flushed, then FIN, then the socket is closed. */
  private cutConnection(): void {
    const socket = this.res.socket;
    if (socket === null) return;
    socket.once('finish', () => socket.destroy());
    socket.end();
  }

  private countTokens(meta: Omit<WriteRecord, 'bytes' | 'writtenMs'>): void {
    this.ev.chunks += meta.chunks;
    this.ev.tokens += meta.tokens;
  }

  /** Writes (and logs) one piece of the body; returns false when the socket wants a drain first. */
  private write(
    text: string | Buffer,
    meta: Omit<WriteRecord, 'bytes' | 'writtenMs'>,
    end = false,
    count = true,
  ): boolean {
    if (count) this.countTokens(meta);
    const bytes = typeof text === 'string' ? Buffer.byteLength(text) : text.length;
    this.ev.bytes += bytes;
    const writtenMs = nowMs();
    if (this.host.logWrites) this.ev.writes.push({ ...meta, bytes, writtenMs });
    if (end) {
      this.res.end(text);
      return true;
    }
    const ok = this.res.write(text);
    // Node corks a response's socket until the next tick; flush now, so the logged time is the send time
    // even when one timer callback writes to hundreds of streams.
    const socket = this.res.socket;
    if (socket?.writableCorked) socket.uncork();
    return ok;
  }

  /** The server is closing: stop writing; the connection is closed by the server. */
  abort(outcome: Outcome): void {
    if (this.ev.outcome === 'pending') this.ev.outcome = outcome;
    this.timer?.cancel();
    this.timer = null;
  }

  private onClose(): void {
    if (this.closed) return;
    this.closed = true;
    this.timer?.cancel();
    this.timer = null;
    if (this.ev.outcome === 'pending') this.ev.outcome = 'client-closed';
    this.ev.endMs = nowMs();
    this.host.finished(this);
  }
}
