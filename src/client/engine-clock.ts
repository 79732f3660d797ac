import type { EngineLag } from '../schema/point-result.ts';

/**
 * How a simulated engine kept to its schedule (`GET /infx/clock`, schema/sim-protocol.ts), read before
 * and after the measured phase; the difference is what happened while the point was measured.
 */

export interface ClockReading {
  steps: number;
  events: number;
  missedDeadlines: number;
  behindMs: number;
  lockstepWaits: number;
  lockstepWaitMs: number;
  lockstepTimeouts: number;
}

const MAX_BYTES = 64 * 1024;

/** Null when the server does not answer it (not infx's simulated engine, or an older one). */
export async function readEngineClock(baseUrl: URL, timeoutMs = 2000): Promise<ClockReading | null> {
  try {
    const res = await fetch(new URL('/infx/clock', baseUrl), { signal: AbortSignal.timeout(timeoutMs) });
    if (res.status !== 200) {
      await res.body?.cancel();
      return null;
    }
    const text = await boundedText(res, MAX_BYTES);
    if (text === null) return null;
    const j = JSON.parse(text) as Record<string, unknown>;
    const n = (k: string) => {
      const v = j[k];
      return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : null;
    };
    const r = {
      steps: n('steps'),
      events: n('events'),
      missedDeadlines: n('missed_deadlines'),
      behindMs: n('behind_ms'),
      lockstepWaits: n('lockstep_waits'),
      lockstepWaitMs: n('lockstep_wait_ms'),
      lockstepTimeouts: n('lockstep_timeouts'),
    };
    if (Object.values(r).some((v) => v === null)) return null;
    return r as ClockReading;
  } catch {
    return null;
  }
}

/** The body as text, or null (and the body cancelled) once it passes `max` bytes. */
async function boundedText(res: Response, max: number): Promise<string | null> {
  if (res.body === null) return '';
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const part of res.body) {
    size += part.length;
    // Leaving the loop cancels the body.
    if (size > max) return null;
    parts.push(part);
  }
  return Buffer.concat(parts).toString('utf8');
}

/** What happened between two readings. */
export function lagBetween(before: ClockReading | null, after: ClockReading | null): EngineLag | null {
  if (before === null || after === null) return null;
  const d = (k: keyof ClockReading) => Math.max(0, after[k] - before[k]);
  return {
    steps: Math.round(d('events')),
    missedDeadlines: Math.round(d('missedDeadlines')),
    behindMs: Math.round(d('behindMs') * 1000) / 1000,
    lockstepWaits: Math.round(d('lockstepWaits')),
    lockstepWaitMs: Math.round(d('lockstepWaitMs') * 1000) / 1000,
    lockstepTimeouts: Math.round(d('lockstepTimeouts')),
  };
}
