import http from 'node:http';
import https from 'node:https';
import { TIME_SCALE_HEADER } from '../schema/sim-protocol.ts';

/**
 * Before a run: is the server there, which models does it serve, and does it run in scaled time (the
 * simulated engine announces its speed-up in this header, so reported latencies can be read as
 * simulated time)?
 */

export interface ServerProbe {
  models: string[];
  timeScale: number | null;
}

export class ProbeError extends Error {}

export function probeServer(
  baseUrl: URL,
  timeoutMs = 10_000,
  apiKey: string | null = null,
): Promise<ServerProbe> {
  const url = new URL('/v1/models', baseUrl);
  const mod = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = apiKey ? { authorization: `Bearer ${apiKey}` } : {};
    const req = mod.get(url, { headers, timeout: timeoutMs }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => {
        const scale = Number(res.headers[TIME_SCALE_HEADER]);
        const timeScale = Number.isFinite(scale) && scale > 0 ? scale : null;
        if (res.statusCode !== 200) {
          // Some servers do not serve /v1/models; the run itself will tell whether generation works.
          resolve({ models: [], timeScale });
          return;
        }
        resolve({ models: modelIds(Buffer.concat(parts).toString('utf8')), timeScale });
      });
      res.on('error', reject);
    });
    req.on('timeout', () =>
      req.destroy(new ProbeError(`no answer from ${url.href} within ${timeoutMs / 1000} s`)),
    );
    req.on('error', (err: NodeJS.ErrnoException) =>
      reject(
        err instanceof ProbeError
          ? err
          : new ProbeError(`cannot reach the server at ${url.href}: ${err.code ?? ''} ${err.message}`.trim()),
      ),
    );
  });
}

function modelIds(body: string): string[] {
  try {
    const json = JSON.parse(body) as { data?: { id?: unknown }[] };
    return (json.data ?? []).map((m) => m.id).filter((id): id is string => typeof id === 'string');
  } catch {
    return [];
  }
}
