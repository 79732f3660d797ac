import { createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import {
  FAULT_KINDS,
  type FaultKind,
  type ScriptedScript,
  type ScriptedScriptInput,
} from '../../schema/scripted-script.ts';
import { type Endpoint, errorBody } from '../openai-wire.ts';
import { nowMs, Scheduler } from './clock.ts';
import { Exchange, type ExchangeHost, sendJson } from './exchange.ts';
import type { LogLevel, ServerEvent } from './log.ts';
import { parseScript, settingsFor } from './script.ts';

/**
 * The scripted OpenAI-compatible server: every generation request is answered exactly as its script says
 * (timing, token counts, usage, faults), so a benchmark client's measurements can be checked against it.
 *
 * Routes: POST /v1/completions, POST /v1/chat/completions (SSE when `stream: true`, else one JSON body),
 * GET /v1/models, GET /health. Anything else: 404 (405 for a wrong method on a known path), JSON error body.
 */

export interface ScriptedServerOptions {
  /** 0 (the default): an ephemeral port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** What each event records (default 'writes': every socket write; 'requests': the summary only). */
  log?: LogLevel;
  /** Keep every event in `log` (default true). Long runs turn it off and take events from `onEvent`. */
  keepLog?: boolean;
  /** Called once per generation request when it is over, with its final event. */
  onEvent?: (event: ServerEvent) => void;
  /**
   * How long before a deadline the scheduler stops sleeping and polls the clock (default 1 ms). The last
   * sub-millisecond is always polled, so writes land within tens of microseconds of their deadlines on an
   * idle loop; a larger value can absorb late timers on a busy machine at the cost of CPU.
   */
  spinMs?: number;
  /** Largest request body accepted (default 256 MiB); larger gets 413. */
  maxBodyBytes?: number;
  /** Send one uncounted GET /health to itself before returning, so no client request is the first (default true). */
  warmup?: boolean;
}

export interface ScriptedServerStats {
  /** Generation requests received (the next arrival index k). */
  requests: number;
  /** Received and not yet over. */
  inFlight: number;
  /** The most in flight at once. */
  maxInFlight: number;
  /** Serial mode: read and waiting for their turn. */
  queued: number;
  /** Outcome counts of the requests that are over. */
  ok: number;
  badRequests: number;
  clientClosed: number;
  serverClosed: number;
  faults: Record<FaultKind, number>;
  /** Requests to other routes (models, health, 404s). */
  otherRequests: number;
}

export interface ScriptedServer {
  /** http://HOST:PORT, without a trailing slash. */
  readonly url: string;
  readonly port: number;
  readonly host: string;
  readonly script: ScriptedScript;
  /** One event per generation request in arrival order (k), updated as it is served (empty without keepLog). */
  readonly log: ServerEvent[];
  stats(): ScriptedServerStats;
  /** Stops listening, cuts every open connection (hung ones included) and resolves when all are closed. */
  close(): Promise<void>;
}

const GENERATION_PATHS: Readonly<Record<string, Endpoint>> = {
  '/v1/completions': 'completions',
  '/v1/chat/completions': 'chat',
};

/** Marks the server's own warm-up request, which no count or log includes. */
const WARMUP_HEADER = 'x-infx-scripted-warmup';

/**
 * One GET /health to itself before the server is handed out: the first request through Node's HTTP server
 * costs about a millisecond more than later ones (code not yet compiled), which a client would otherwise
 * see in the first request's TTFT.
 */
function warmUp(url: string): Promise<void> {
  return new Promise((resolve) => {
    const req = request(`${url}/health`, { agent: false, headers: { [WARMUP_HEADER]: '1' } }, (res) => {
      res.resume();
      res.on('end', () => resolve());
      res.on('error', () => resolve());
    });
    req.on('error', () => resolve());
    req.end();
  });
}

function newEvent(k: number, endpoint: Endpoint): ServerEvent {
  return {
    k,
    endpoint,
    stream: null,
    arrivalMs: nowMs(),
    bodyReadMs: null,
    startMs: null,
    endMs: null,
    bodyBytes: 0,
    status: null,
    fault: null,
    outcome: 'pending',
    promptTokens: null,
    maxTokens: null,
    chunks: 0,
    tokens: 0,
    bytes: 0,
    writes: [],
  };
}

export async function startScriptedServer(
  script: ScriptedScriptInput | ScriptedScript,
  options: ScriptedServerOptions = {},
): Promise<ScriptedServer> {
  const parsed = parseScript(script);
  const logLevel = options.log ?? 'writes';
  const keepLog = options.keepLog ?? true;
  const log: ServerEvent[] = [];
  const live = new Set<Exchange>();
  const queue: Exchange[] = [];
  let turnTaken = false;
  let closing: Promise<void> | null = null;
  let onIdle: (() => void) | null = null;
  const counts = {
    requests: 0,
    maxInFlight: 0,
    ok: 0,
    badRequests: 0,
    clientClosed: 0,
    serverClosed: 0,
    otherRequests: 0,
  };
  const faults = Object.fromEntries(FAULT_KINDS.map((f) => [f, 0])) as Record<FaultKind, number>;

  const nextTurn = () => {
    while (closing === null && queue.length > 0) {
      const next = queue.shift()!;
      if (next.isClosed) continue;
      next.holdsTurn = true;
      next.begin(nowMs());
      return;
    }
    turnTaken = false;
  };

  const host: ExchangeHost = {
    script: parsed,
    scheduler: new Scheduler(options.spinMs ?? 1),
    logWrites: logLevel === 'writes',
    maxBodyBytes: options.maxBodyBytes ?? 256 * 1024 * 1024,
    ready(ex) {
      if (!parsed.serial) {
        ex.begin(ex.ev.bodyReadMs!);
      } else if (!turnTaken) {
        turnTaken = true;
        ex.holdsTurn = true;
        ex.begin(ex.ev.bodyReadMs!);
      } else {
        queue.push(ex);
      }
    },
    finished(ex) {
      live.delete(ex);
      const { outcome, fault } = ex.ev;
      if (outcome === 'ok') counts.ok++;
      else if (outcome === 'bad-request') counts.badRequests++;
      else if (outcome === 'client-closed') counts.clientClosed++;
      else if (outcome === 'server-closed') counts.serverClosed++;
      if (fault !== null) faults[fault]++;
      if (ex.holdsTurn) {
        ex.holdsTurn = false;
        nextTurn();
      }
      options.onEvent?.(ex.ev);
      if (live.size === 0) onIdle?.();
    },
  };

  const generation = (req: IncomingMessage, res: ServerResponse, endpoint: Endpoint) => {
    const ev = newEvent(counts.requests++, endpoint);
    if (keepLog) log.push(ev);
    const ex = new Exchange(ev, req, res, host);
    live.add(ex);
    counts.maxInFlight = Math.max(counts.maxInFlight, live.size);
    ex.receive(settingsFor(parsed, ev.k));
  };

  const other = (req: IncomingMessage, res: ServerResponse, path: string) => {
    if (req.headers[WARMUP_HEADER] === undefined) counts.otherRequests++;
    if (path === '/health' || path === '/v1/models') {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.setHeader('Allow', 'GET, HEAD');
        sendJson(res, 405, errorBody(`${req.method} not allowed on ${path}`, 'invalid_request_error', 405));
      } else if (path === '/health') {
        res.writeHead(200, { 'Content-Length': 0 });
        res.end();
      } else {
        sendJson(res, 200, {
          object: 'list',
          data: [
            {
              id: parsed.model,
              object: 'model',
              created: 0,
              owned_by: 'infx',
              ...(parsed.maxModelLen === null ? {} : { max_model_len: parsed.maxModelLen }),
            },
          ],
        });
      }
      return;
    }
    sendJson(res, 404, errorBody(`not found: ${req.method} ${path}`, 'not_found_error', 404));
  };

  const server = createServer({ noDelay: true, keepAlive: true }, (req, res) => {
    const path = (req.url ?? '/').split('?', 1)[0]!;
    const endpoint = GENERATION_PATHS[path];
    if (endpoint === undefined) {
      other(req, res, path);
    } else if (req.method !== 'POST') {
      counts.otherRequests++;
      res.setHeader('Allow', 'POST');
      sendJson(res, 405, errorBody(`${req.method} not allowed on ${path}`, 'invalid_request_error', 405));
    } else {
      generation(req, res, endpoint);
    }
  });
  // Clients keep connections for the whole run; never let the server be the side that drops an idle one first.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 0;
  server.on('connection', (socket: Socket) => socket.setNoDelay(true));

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const hostName = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${hostName}:${address.port}`;
  if (options.warmup ?? true) await warmUp(url);

  return {
    url,
    port: address.port,
    host: address.address,
    script: parsed,
    log,
    stats: () => ({
      ...counts,
      inFlight: live.size,
      queued: queue.filter((ex) => !ex.isClosed).length,
      faults: { ...faults },
    }),
    close: () => {
      closing ??= (async () => {
        for (const ex of live) ex.abort('server-closed');
        host.scheduler.clear();
        const idle = new Promise<void>((resolve) => {
          onIdle = resolve;
          if (live.size === 0) resolve();
        });
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        await idle; // every exchange has seen its connection close and reported its event
      })();
      return closing;
    },
  };
}
