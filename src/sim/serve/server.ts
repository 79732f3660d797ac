import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ENGINE_CLOCK_PROTOCOL,
  LOCKSTEP_HEADER,
  type LockstepTag,
  parseLockstep,
  SIMULATOR_HEADER,
  TIME_SCALE_HEADER,
} from '../../schema/sim-protocol.ts';
import type { RowSetup } from '../engine/aggregate.ts';
import { isDisaggSetup } from '../engine/aggregate.ts';
import type { ResolvedSim } from '../engine/config.ts';
import { type FinishInfo, SimRequestError } from '../engine/engine.ts';
import { BLOCK_SIZE } from '../engine/kv-cache.ts';
import { Pacer } from '../engine/pacer.ts';
import {
  BadRequest,
  contextOverflowBody,
  DEFAULT_MAX_TOKENS,
  type Endpoint,
  type EngineStamp,
  errorBody,
  Payloads,
  promptText,
  readGenerationRequest,
  stampEvent,
  usageOf,
} from '../openai-wire.ts';
import { SIMULATOR_VERSION } from '../version.ts';
import { backendOf, type PoolRouterFor } from './backend.ts';
import { evalTextFor, type SimEvalOptions } from './eval-answer.ts';
import { kvRoutes } from './kv-routes.ts';
import { LockstepTracker } from './lockstep.ts';
import { clockStats, prometheusText } from './metrics-text.ts';
import { GENERATION_PATHS, prefixBlockHashes } from './prefix-hash.ts';
import { PromptIds } from './prompt-ids.ts';
import { poolRoute } from './route-info.ts';

/**
 * `infx sim serve`: the simulated engine behind an OpenAI-compatible HTTP API. Requests go into the
 * continuous-batching engine; its steps are paced on the wall clock, `timeScale` times faster than real
 * time (pacer.ts), and each step's tokens are written to their streams when their step ends. Every chunk
 * carries the engine's own timestamp and every response the time scale and simulator version, and a
 * client that sends the lockstep header gets a clock that waits for it (schema/sim-protocol.ts).
 */

export interface SimServeOptions {
  /** One engine, or separate prefill and decode pools (a disaggregated point). */
  setup: RowSetup;
  /** Simulated ms per wall ms (1: real time). */
  timeScale: number;
  port?: number;
  host?: string;
  /** Name served in /v1/models and echoed in responses; default the setup's model. */
  servedModelName?: string;
  /**
   * Token ids of a prompt (the CLI passes the built-in tokenizer): exact usage counts and prefix-cache
   * blocks. Without it, tokens are estimated as characters / 4.
   */
  tokenize?: (text: string) => number[];
  /** Requests longer than this are refused as a context overflow; default the model's max context. */
  maxModelLen?: number;
  /** Server log lines (vLLM-style start-up facts such as the KV cache size). */
  log?: (line: string) => void;
  /** Called after each response is complete (fault injection counts them). */
  onRequestFinished?: () => void;
  /** Wall ms the engine waits for a request a lockstep client owes it (default pacer.ts). */
  lockstepTimeoutMs?: number;
  /** The router code of a pool's engines (aggregated or disaggregated rows); default least-loaded. */
  poolRouter?: PoolRouterFor;
  /** Answer eval prompts from a dataset with a simulated accuracy (eval-answer.ts). */
  evalAnswers?: SimEvalOptions;
}

export interface SimServer {
  readonly url: string;
  readonly port: number;
  /** The engine (for a disaggregated point: a decode worker's) as resolved against the catalog. */
  readonly resolved: ResolvedSim;
  readonly disaggregated: boolean;
  close(): Promise<void>;
}

const GENERATION: Readonly<Record<string, Endpoint>> = GENERATION_PATHS;

/** Single-token words (under common BPE vocabularies) that generated text cycles through. */
const WORDS = [' the', ' of', ' and', ' to', ' in', ' a', ' is', ' that', ' for', ' it'];
const fillerOf = (from: number, to: number) => {
  let s = '';
  for (let i = from; i < to; i++) s += WORDS[i % WORDS.length];
  return s;
};

interface Live {
  onToken(total: number, t: number): void;
  onFinish(info: FinishInfo): void;
}

/** A lockstep request: its tag and the engine time its phase began. */
interface Locked {
  tag: LockstepTag;
  originMs: number;
}

export async function startSimServer(opts: SimServeOptions): Promise<SimServer> {
  const live = new Map<string, Live>();
  const engine = backendOf(
    opts.setup,
    {
      onToken: (id, total, t) => live.get(id)?.onToken(total, t),
      onFinish: (id, info) => {
        const l = live.get(id);
        live.delete(id);
        l?.onFinish(info);
      },
    },
    opts.poolRouter,
  );
  const resolved = engine.resolved;
  const promptIds = opts.tokenize ? new PromptIds(opts.tokenize) : null;
  const served = opts.servedModelName ?? resolved.model.id;
  const maxModelLen = opts.maxModelLen ?? resolved.model.maxContext;
  const headers = { [TIME_SCALE_HEADER]: String(opts.timeScale), [SIMULATOR_HEADER]: SIMULATOR_VERSION };
  const stop = new AbortController();
  let tracker: LockstepTracker | null = null;
  const pacer = new Pacer({
    timeScale: opts.timeScale,
    signal: stop.signal,
    ...(opts.lockstepTimeoutMs !== undefined ? { lockstepTimeoutMs: opts.lockstepTimeoutMs } : {}),
    onLockstepTimeout: () => {
      const gone = tracker?.abandonOwing() ?? [];
      opts.log?.(
        `lockstep: no request from ${gone.length ? `phase ${gone.join(', ')}` : 'the client'} in time; the engine goes on without it`,
      );
    },
  });
  tracker = new LockstepTracker(pacer);
  const lockstep = tracker;
  const loop = engine.run(pacer);
  let next = 0;
  const ev = opts.evalAnswers;

  opts.log?.(
    `GPU KV cache size: ${engine.kvTokens} tokens (${resolved.model.id} ${resolved.precision} on ` +
      `${engine.gpus}x ${resolved.accelerator.id}, ${JSON.stringify(engine.describe)}); time scale ${opts.timeScale}x; ${SIMULATOR_VERSION}`,
  );
  if (ev)
    opts.log?.(
      `eval answers: ${ev.table.questions} questions of ${ev.table.file}, answered right with simulated accuracy ${ev.accuracy} (seed ${ev.seed})`,
    );

  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
      ...headers,
    });
    res.end(text);
  };

  function models(res: http.ServerResponse) {
    json(res, 200, {
      object: 'list',
      data: [
        {
          id: served,
          object: 'model',
          owned_by: 'infx-sim',
          max_model_len: maxModelLen,
          infx: {
            time_scale: opts.timeScale,
            simulator: SIMULATOR_VERSION,
            clock: ENGINE_CLOCK_PROTOCOL,
            model: resolved.model.id,
            hardware: resolved.accelerator.id,
            gpus: engine.gpus,
            precision: resolved.precision,
            ...engine.describe,
            kv_cache_tokens: engine.kvTokens,
            ...(ev
              ? {
                  eval_accuracy: {
                    accuracy: ev.accuracy,
                    simulated: true,
                    seed: ev.seed,
                    questions: ev.table.questions,
                    dataset: ev.table.file,
                  },
                }
              : {}),
          },
        },
      ],
    });
  }

  /** Validates and admits one generation request; false when it was answered without entering the engine. */
  function generate(
    endpoint: Endpoint,
    body: Record<string, unknown>,
    res: http.ServerResponse,
    lock: Locked | null,
    request: { headers: http.IncomingHttpHeaders; raw: Buffer },
  ): boolean {
    const req = readGenerationRequest(endpoint, body);
    // As vLLM: a model it does not serve is a 404, not silently served as the one it does.
    if (typeof body.model === 'string' && body.model !== served) {
      json(res, 404, errorBody(`The model \`${body.model}\` does not exist.`, 'NotFoundError', 404, 'model'));
      return false;
    }
    const ids = promptIds?.of(endpoint, body);
    const promptTokens = Math.max(1, ids ? ids.length : req.promptTokens);
    const maxTokens = Math.max(1, req.maxTokens ?? DEFAULT_MAX_TOKENS);
    if (promptTokens + maxTokens > maxModelLen) {
      json(res, 400, contextOverflowBody(maxModelLen, promptTokens, maxTokens));
      return false;
    }
    // A dataset question gets its simulated answer; any other prompt the filler words.
    const answer = ev ? evalTextFor(ev, promptText(endpoint, body), body.stop) : null;
    const textOf = answer ? (a: number, b: number) => answer.text(a, b, fillerOf) : fillerOf;
    const k = next++;
    const id = `r${k}`;
    const payloads = new Payloads(endpoint, k, served, 'sim');
    let emitted = 0;
    let started = false;
    let left = false;
    let arrival = 0;
    let first: number | null = null;
    const dueMs = lock && lock.tag.atMs !== null ? lock.originMs + lock.tag.atMs : null;
    const leave = () => {
      if (left) return;
      left = true;
      if (lock) lockstep.leave(lock.tag);
    };
    const firstStamp = (t: number): EngineStamp =>
      dueMs === null ? { t, arrival } : { t, arrival, scheduled: dueMs };
    const start = (t: number) => {
      if (started || !req.stream) return;
      started = true;
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...headers });
      if (endpoint === 'chat') res.write(stampEvent(payloads.roleEvent(), firstStamp(t)));
    };
    const stampAt = (t: number): EngineStamp =>
      emitted === 0 && endpoint !== 'chat' ? firstStamp(t) : { t };
    live.set(id, {
      onToken(total, t) {
        first ??= t;
        if (!req.stream) {
          emitted = total;
          return;
        }
        start(t);
        res.write(stampEvent(payloads.chunkEvent(textOf(emitted, total), 'content', null), stampAt(t)));
        emitted = total;
      },
      onFinish(info) {
        if (info.reason === 'abort') return leave();
        const finish = info.reason === 'length' ? 'length' : 'stop';
        const usage = usageOf(promptTokens, info.outputTokens);
        const t = info.finishMs;
        // The client's next request is owed from this moment: lockstep holds the clock until it arrives.
        leave();
        if (!req.stream) {
          const stamp: EngineStamp = {
            arrival,
            first: first ?? t,
            last: t,
            ...(dueMs === null ? {} : { scheduled: dueMs }),
          };
          json(res, 200, payloads.body(textOf(0, info.outputTokens), '', finish, usage, stamp));
          opts.onRequestFinished?.();
          return;
        }
        start(t);
        res.write(stampEvent(payloads.chunkEvent('', 'content', finish), { t }));
        if (req.includeUsage) res.write(stampEvent(payloads.usageEvent(usage), { t }));
        res.end('data: [DONE]\n\n', () => opts.onRequestFinished?.());
      },
    });
    let admitted = false;
    let gone = false;
    res.on('close', () => {
      gone = true;
      if (live.has(id) && admitted) engine.abort(id);
      live.delete(id);
      leave();
    });
    const admit = (atMs?: number) => {
      if (gone) return;
      try {
        const prefixHashes = ids ? prefixBlockHashes(ids, BLOCK_SIZE) : undefined;
        arrival = engine.submit(
          {
            id,
            promptTokens,
            maxTokens,
            ignoreEos: body.ignore_eos === true,
            ...(answer ? { stopAfter: answer.tokens } : {}),
            ...(prefixHashes ? { prefixHashes } : {}),
          },
          atMs,
          engine.routed
            ? poolRoute(request.headers, body, request.raw.toString('utf8'), promptTokens, prefixHashes)
            : null,
        );
        admitted = true;
      } catch (err) {
        live.delete(id);
        if (!(err instanceof SimRequestError)) throw err;
        json(res, 400, errorBody(err.message, 'invalid_request_error', 'context_length_exceeded'));
        leave();
      }
    };
    // Open loop: the request waits in the engine's front door until it is due (on the engine clock).
    if (dueMs !== null && dueMs > pacer.virtualNow()) pacer.schedule(dueMs, (t) => admit(t));
    else admit();
    return true;
  }

  function handle(
    endpoint: Endpoint,
    raw: Buffer,
    res: http.ServerResponse,
    lockHeader: string | null,
    reqHeaders: http.IncomingHttpHeaders,
  ) {
    let lock: Locked | null = null;
    let tag: LockstepTag | null = null;
    if (lockHeader !== null) {
      const parsed = parseLockstep(lockHeader);
      if (typeof parsed === 'string')
        return json(
          res,
          400,
          errorBody(
            `invalid ${LOCKSTEP_HEADER} header: ${parsed}`,
            'invalid_request_error',
            400,
            LOCKSTEP_HEADER,
          ),
        );
      tag = parsed;
    }
    // A lockstep request is handled at one instant of simulated time: its arrival is stamped before its
    // phase's hold (if any) is updated.
    if (tag) pacer.hold();
    try {
      if (tag) {
        const origin = lockstep.arrive(tag);
        if (origin !== null) lock = { tag, originMs: origin };
      }
      let admitted = false;
      try {
        const body = parseJson(raw);
        if (body === undefined) {
          json(res, 400, errorBody('the request body is not valid JSON', 'invalid_request_error', 400));
          return;
        }
        admitted = generate(endpoint, body as Record<string, unknown>, res, lock, {
          headers: reqHeaders,
          raw,
        });
      } catch (err) {
        if (!(err instanceof BadRequest)) throw err;
        json(res, 400, errorBody(err.message, 'invalid_request_error', 400, err.param));
      } finally {
        if (!admitted && lock) lockstep.leave(lock.tag);
      }
    } finally {
      if (tag) pacer.release();
    }
  }

  const kv = kvRoutes(engine, json);
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const endpoint = GENERATION[path];
    if (req.method === 'GET' && path === '/health') return json(res, 200, { status: 'ok' });
    if (req.method === 'GET' && path === '/v1/models') return models(res);
    if (req.method === 'GET' && path === '/infx/clock')
      return json(res, 200, clockStats(pacer, engine.gauges(), lockstep.stats));
    if (kv(req, res, path)) return;
    if (req.method === 'GET' && path === '/metrics') {
      const text = prometheusText(
        engine.gauges(),
        served,
        engine.kvTokens,
        clockStats(pacer, engine.gauges(), lockstep.stats),
      );
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4', ...headers });
      return res.end(text);
    }
    if (!endpoint || req.method !== 'POST')
      return json(res, 404, errorBody(`no route ${req.method} ${path}`, 'not_found_error', 404));
    const lockHeader = req.headers[LOCKSTEP_HEADER];
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () =>
      handle(
        endpoint,
        Buffer.concat(parts),
        res,
        typeof lockHeader === 'string' ? lockHeader : null,
        req.headers,
      ),
    );
  });
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.on('connection', (socket) => socket.setNoDelay(true));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = opts.host ?? '127.0.0.1';
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    resolved,
    disaggregated: isDisaggSetup(opts.setup),
    close: async () => {
      stop.abort();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await loop;
    },
  };
}

function parseJson(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    return undefined;
  }
}
