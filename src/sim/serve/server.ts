import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { TIME_SCALE_HEADER } from '../../schema/sim-protocol.ts';
import { createSimEngine, type ResolvedSim, type SimSetup } from '../engine/config.ts';
import { DisaggCluster, type DisaggSetup } from '../engine/disagg.ts';
import { type FinishInfo, SimRequestError } from '../engine/engine.ts';
import { BLOCK_SIZE } from '../engine/kv-cache.ts';
import type { EngineGauges, EngineHooks, SimRequest } from '../engine/types.ts';
import {
  BadRequest,
  contextOverflowBody,
  DEFAULT_MAX_TOKENS,
  type Endpoint,
  errorBody,
  Payloads,
  promptText,
  readGenerationRequest,
  usageOf,
} from '../openai-wire.ts';
import { prometheusText } from './metrics-text.ts';
import { prefixBlockHashes } from './prefix-hash.ts';

/**
 * `infx sim serve`: the simulated engine behind an OpenAI-compatible HTTP API. Requests go into the
 * continuous-batching engine; its steps run in real time scaled by `timeScale`, and each step's tokens
 * are written to their streams when the wall clock reaches the step's end. Every response carries the
 * time scale, so a client can convert what it measures to simulated time.
 */

export interface SimServeOptions {
  /** One engine, or separate prefill and decode pools (a disaggregated point). */
  setup: SimSetup | DisaggSetup;
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
}

export interface SimServer {
  readonly url: string;
  readonly port: number;
  /** The engine (for a disaggregated point: a decode worker's) as resolved against the catalog. */
  readonly resolved: ResolvedSim;
  readonly disaggregated: boolean;
  close(): Promise<void>;
}

/** What the HTTP layer needs from one engine or a prefill/decode cluster. */
interface Backend {
  submit(req: SimRequest): void;
  abort(id: string): boolean;
  gauges(): EngineGauges;
  runRealtime(options: { timeScale: number; signal?: AbortSignal }): Promise<void>;
  resolved: ResolvedSim;
  gpus: number;
  kvTokens: number;
  describe: Record<string, unknown>;
}

const isDisagg = (s: SimSetup | DisaggSetup): s is DisaggSetup => 'prefill' in s && 'decode' in s;

function backendOf(setup: SimSetup | DisaggSetup, hooks: EngineHooks): Backend {
  if (isDisagg(setup)) {
    const cluster = new DisaggCluster(setup, hooks);
    const pool = (r: ResolvedSim, workers: number) => ({
      workers,
      gpus_per_worker: r.gpus,
      tp: r.par.tp,
      pp: r.par.pp,
      ep: r.par.ep,
      dp_attn: r.par.dpAttn,
    });
    return {
      submit: (req) => cluster.submit(req),
      abort: (id) => cluster.abort(id),
      gauges: () => cluster.gauges(),
      runRealtime: (o) => cluster.runRealtime(o),
      resolved: cluster.decodeResolved,
      gpus: cluster.gpus,
      kvTokens: cluster.gauges().kvCapacityTokens,
      describe: {
        prefill: pool(cluster.prefillResolved, setup.prefill.workers),
        decode: pool(cluster.decodeResolved, setup.decode.workers),
        kv_transfer_ms_per_1k_tokens: Number(cluster.transferMs(1000).toFixed(3)),
      },
    };
  }
  const { engine, resolved } = createSimEngine(setup, hooks);
  return {
    submit: (req) => engine.submit(req),
    abort: (id) => engine.abort(id),
    gauges: () => engine.gauges(),
    runRealtime: (o) => engine.runRealtime(o),
    resolved,
    gpus: resolved.gpus,
    kvTokens: resolved.kvBlocks * BLOCK_SIZE,
    describe: { tp: resolved.par.tp, pp: resolved.par.pp, ep: resolved.par.ep, dp_attn: resolved.par.dpAttn },
  };
}

const GENERATION: Readonly<Record<string, Endpoint>> = {
  '/v1/completions': 'completions',
  '/v1/chat/completions': 'chat',
};

/** Single-token words (under common BPE vocabularies) that generated text cycles through. */
const WORDS = [' the', ' of', ' and', ' to', ' in', ' a', ' is', ' that', ' for', ' it'];
const textOf = (from: number, to: number) => {
  let s = '';
  for (let i = from; i < to; i++) s += WORDS[i % WORDS.length];
  return s;
};

interface Live {
  onToken(total: number): void;
  onFinish(info: FinishInfo): void;
}

export async function startSimServer(opts: SimServeOptions): Promise<SimServer> {
  const live = new Map<string, Live>();
  const engine = backendOf(opts.setup, {
    onToken: (id, total) => live.get(id)?.onToken(total),
    onFinish: (id, info) => {
      const l = live.get(id);
      live.delete(id);
      l?.onFinish(info);
    },
  });
  const resolved = engine.resolved;
  const served = opts.servedModelName ?? resolved.model.id;
  const maxModelLen = opts.maxModelLen ?? resolved.model.maxContext;
  const scaleHeader = { [TIME_SCALE_HEADER]: String(opts.timeScale) };
  const stop = new AbortController();
  const loop = engine.runRealtime({ timeScale: opts.timeScale, signal: stop.signal });
  let next = 0;

  opts.log?.(
    `GPU KV cache size: ${engine.kvTokens} tokens (${resolved.model.id} ${resolved.precision} on ` +
      `${engine.gpus}x ${resolved.accelerator.id}, ${JSON.stringify(engine.describe)}); time scale ${opts.timeScale}x`,
  );

  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
      ...scaleHeader,
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
            model: resolved.model.id,
            hardware: resolved.accelerator.id,
            gpus: engine.gpus,
            precision: resolved.precision,
            ...engine.describe,
            kv_cache_tokens: engine.kvTokens,
          },
        },
      ],
    });
  }

  function generate(endpoint: Endpoint, body: Record<string, unknown>, res: http.ServerResponse) {
    const req = readGenerationRequest(endpoint, body);
    const text = promptText(endpoint, body);
    const ids = opts.tokenize?.(text);
    const promptTokens = Math.max(1, ids ? ids.length : req.promptTokens);
    const maxTokens = Math.max(1, req.maxTokens ?? DEFAULT_MAX_TOKENS);
    if (promptTokens + maxTokens > maxModelLen) {
      json(res, 400, contextOverflowBody(maxModelLen, promptTokens, maxTokens));
      return;
    }
    const k = next++;
    const id = `r${k}`;
    const payloads = new Payloads(endpoint, k, served, 'sim');
    let emitted = 0;
    let started = false;
    const start = () => {
      if (started || !req.stream) return;
      started = true;
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        ...scaleHeader,
      });
      if (endpoint === 'chat') res.write(payloads.roleEvent());
    };
    live.set(id, {
      onToken(total) {
        if (!req.stream) {
          emitted = total;
          return;
        }
        start();
        res.write(payloads.chunkEvent(textOf(emitted, total), 'content', null));
        emitted = total;
      },
      onFinish(info) {
        if (info.reason === 'abort') return;
        const finish = info.reason === 'length' ? 'length' : 'stop';
        const usage = usageOf(promptTokens, info.outputTokens);
        if (!req.stream) {
          json(res, 200, payloads.body(textOf(0, info.outputTokens), '', finish, usage));
          opts.onRequestFinished?.();
          return;
        }
        start();
        res.write(payloads.chunkEvent('', 'content', finish));
        if (req.includeUsage) res.write(payloads.usageEvent(usage));
        res.end('data: [DONE]\n\n', () => opts.onRequestFinished?.());
      },
    });
    res.on('close', () => {
      if (live.has(id)) engine.abort(id);
    });
    try {
      engine.submit({
        id,
        promptTokens,
        maxTokens,
        ignoreEos: body.ignore_eos === true,
        ...(ids ? { prefixHashes: prefixBlockHashes(ids, BLOCK_SIZE) } : {}),
      });
    } catch (err) {
      live.delete(id);
      if (!(err instanceof SimRequestError)) throw err;
      json(res, 400, errorBody(err.message, 'invalid_request_error', 'context_length_exceeded'));
    }
  }

  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const endpoint = GENERATION[path];
    if (req.method === 'GET' && path === '/health') return json(res, 200, { status: 'ok' });
    if (req.method === 'GET' && path === '/v1/models') return models(res);
    if (req.method === 'GET' && path === '/metrics') {
      const text = prometheusText(engine.gauges(), served, engine.kvTokens);
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4', ...scaleHeader });
      return res.end(text);
    }
    if (!endpoint || req.method !== 'POST')
      return json(res, 404, errorBody(`no route ${req.method} ${path}`, 'not_found_error', 404));
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(parts).toString('utf8'));
      } catch {
        return json(res, 400, errorBody('the request body is not valid JSON', 'invalid_request_error', 400));
      }
      try {
        generate(endpoint, body as Record<string, unknown>, res);
      } catch (err) {
        if (!(err instanceof BadRequest)) throw err;
        json(res, 400, errorBody(err.message, 'invalid_request_error', 400, err.param));
      }
    });
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
    disaggregated: isDisagg(opts.setup),
    close: async () => {
      stop.abort();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await loop;
    },
  };
}
