import type { RequestRecord } from '../schema/request-record.ts';

/**
 * The clocks a point's figures can be computed on. A record holds the client's own monotonic stamps (wall
 * ms) and, against infx's simulated engine, the engine's stamps (engine ms). On the engine clock the
 * figures depend on nothing this machine does; on the wall clock against a server that runs `scale`
 * times faster than real time, wall ms × scale are the simulated ms.
 */

export type FiguresClock = 'engine' | 'wall';

const round = (t: number) => Math.round(t * 1000) / 1000;

/** A record with the engine's stamps in place of the client's (the request was sent when it arrived). */
export function engineView(r: RequestRecord): RequestRecord {
  const e = r.engine;
  if (e === null) return r;
  const last = e.lastTokenMs ?? e.firstTokenMs ?? e.arrivalMs;
  return {
    ...r,
    scheduledMs: e.scheduledMs ?? e.arrivalMs,
    sentMs: e.arrivalMs,
    firstByteMs: e.arrivalMs,
    firstTokenMs: e.firstTokenMs,
    lastTokenMs: e.lastTokenMs,
    doneMs: last,
    chunkGapsMs: e.chunkGapsMs,
  };
}

/** A record's wall times × scale: the simulated-time reading of a wall-clock measurement. */
export function scaledView(r: RequestRecord, scale: number): RequestRecord {
  if (scale === 1) return r;
  const s = (t: number) => round(t * scale);
  const n = (t: number | null) => (t === null ? null : s(t));
  return {
    ...r,
    scheduledMs: s(r.scheduledMs),
    sentMs: s(r.sentMs),
    firstByteMs: n(r.firstByteMs),
    firstTokenMs: n(r.firstTokenMs),
    lastTokenMs: n(r.lastTokenMs),
    doneMs: n(r.doneMs),
    chunkGapsMs: r.chunkGapsMs.map(s),
  };
}

/** Whether a record carries the engine stamps its figures need (arrival, and tokens when it succeeded). */
export function engineTimed(r: RequestRecord): boolean {
  const e = r.engine;
  if (e === null) return false;
  return !r.ok || (e.firstTokenMs !== null && e.lastTokenMs !== null);
}

/**
 * The engine clock when it was asked for and every successful measured request carries engine stamps;
 * otherwise the wall clock, with the reason.
 */
export function chooseClock(
  records: readonly RequestRecord[],
  engineClock: boolean,
): { clock: FiguresClock; reason: string | null } {
  if (!engineClock) return { clock: 'wall', reason: null };
  const unstamped = records.filter((r) => r.phase === 'benchmark' && r.ok && !engineTimed(r)).length;
  if (unstamped === 0) return { clock: 'engine', reason: null };
  return {
    clock: 'wall',
    reason: `${unstamped} successful request(s) came back without the engine's timestamps: the figures are on the client's wall clock`,
  };
}
