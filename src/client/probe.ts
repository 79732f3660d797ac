import http from 'node:http';
import https from 'node:https';
import { InfxError } from '../schema/errors.ts';
import { ENGINE_CLOCK_PROTOCOL, SIMULATOR_HEADER, TIME_SCALE_HEADER } from '../schema/sim-protocol.ts';

/**
 * Before a run: is the server there, which models does it serve, and is it infx's simulated engine (it
 * says so in its headers and in /v1/models: its version, its time scale, and whether it keeps the
 * engine-clock protocol of schema/sim-protocol.ts)?
 */

export interface ServerProbe {
  models: string[];
  timeScale: number | null;
  /** The simulator's version when the server is infx's simulated (or scripted) engine; else null. */
  simulator: string | null;
  /** It stamps chunks with its own clock and keeps lockstep (schema/sim-protocol.ts). */
  engineClock: boolean;
  /** GPUs the simulated engine says it simulates (`infx.gpus` in /v1/models); null for other servers. */
  gpus: number | null;
}

export class ProbeError extends InfxError {}

/**
 * A /v1/models answer larger than this is not read further (its model list is all we need); the probe
 * goes on without a model list.
 */
const MAX_BODY_BYTES = 1024 * 1024;

export function probeServer(
  baseUrl: URL,
  timeoutMs = 10_000,
  apiKey: string | null = null,
): Promise<ServerProbe> {
  const url = new URL('/v1/models', baseUrl);
  const mod = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'accept-encoding': 'identity' };
    if (apiKey) headers.authorization = `Bearer ${apiKey}`;
    let settled = false;
    const done = (f: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      f();
    };
    const req = mod.get(url, { headers, timeout: timeoutMs }, (res) => {
      const parts: Buffer[] = [];
      let size = 0;
      const finish = () =>
        done(() => {
          const scale = Number(res.headers[TIME_SCALE_HEADER]);
          const timeScale = Number.isFinite(scale) && scale > 0 ? scale : null;
          const header = res.headers[SIMULATOR_HEADER];
          const info =
            res.statusCode === 200
              ? describe(Buffer.concat(parts).toString('utf8'))
              : { models: [], sim: null };
          // Some servers do not serve /v1/models; the run itself will tell whether generation works.
          resolve({
            models: info.models,
            timeScale,
            simulator: typeof header === 'string' && header !== '' ? header : (info.sim?.simulator ?? null),
            engineClock: info.sim?.clock === ENGINE_CLOCK_PROTOCOL,
            gpus: info.sim?.gpus ?? null,
          });
        });
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size <= MAX_BODY_BYTES) parts.push(c);
        else {
          finish();
          res.destroy();
        }
      });
      res.on('end', finish);
      res.on('error', (err) => done(() => reject(new ProbeError(`reading ${url.href}: ${err.message}`))));
    });
    // The socket timeout is per read; this bounds the whole exchange (a server can trickle bytes, in
    // the headers or the body), whatever state the request is in.
    const deadline = setTimeout(() => {
      const err = new ProbeError(`no complete answer from ${url.href} within ${timeoutMs / 1000} s`);
      done(() => reject(err));
      req.destroy(err);
    }, timeoutMs);
    req.on('timeout', () =>
      req.destroy(new ProbeError(`no answer from ${url.href} within ${timeoutMs / 1000} s`)),
    );
    req.on('error', (err: NodeJS.ErrnoException) =>
      done(() =>
        reject(
          err instanceof ProbeError
            ? err
            : new ProbeError(
                `cannot reach the server at ${url.href}: ${err.code ?? ''} ${err.message}`.trim(),
              ),
        ),
      ),
    );
  });
}

interface SimInfo {
  simulator: string | null;
  clock: unknown;
  gpus: number | null;
}

function describe(body: string): { models: string[]; sim: SimInfo | null } {
  try {
    const json = JSON.parse(body) as { data?: { id?: unknown; infx?: Record<string, unknown> }[] };
    const data = Array.isArray(json.data) ? json.data : [];
    const infx = data.find((m) => m?.infx && typeof m.infx === 'object')?.infx;
    return {
      models: data.map((m) => m?.id).filter((id): id is string => typeof id === 'string'),
      sim: infx
        ? {
            simulator: typeof infx.simulator === 'string' ? infx.simulator : null,
            clock: infx.clock,
            gpus: Number.isSafeInteger(infx.gpus) && (infx.gpus as number) > 0 ? (infx.gpus as number) : null,
          }
        : null,
    };
  } catch {
    return { models: [], sim: null };
  }
}
