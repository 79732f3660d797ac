/**
 * What infx's simulated engine tells its clients beyond the OpenAI API, and what a client may tell it.
 * Other clients ignore all of it: the headers are unknown to them and the `infx` field of a chunk is an
 * extra key they never read.
 *
 * Server → client:
 * - every response carries `x-infx-time-scale` (simulated ms per wall ms) and `x-infx-simulator` (the
 *   simulator's version); `/v1/models` repeats both as `infx.time_scale` / `infx.simulator`, with
 *   `infx.clock` = ENGINE_CLOCK_PROTOCOL when the engine stamps chunks and keeps lockstep;
 * - every streamed chunk carries `"infx": {"t": ms}`, the engine time its tokens were produced; the first
 *   chunk of a stream adds `"arrival"` (when the request joined the engine's queue) and, in an open loop,
 *   `"scheduled"` (when it was due); a non-streamed body carries `"infx": {"arrival", "first", "last"}`.
 *
 * Client → server (LOCKSTEP_HEADER on each generation request), `phase=ID;conc=C;total=N;index=I[;at=MS]`:
 * the client runs phase ID with C requests in flight and N in all, this is request I, and in an open loop
 * it is due MS engine-ms after the phase began. The engine then does not advance its clock while the
 * client still owes it a request (fewer than C in flight and fewer than N received), so the client's
 * turnaround costs no simulated time, and it holds an open-loop request until its due time.
 */

export const TIME_SCALE_HEADER = 'x-infx-time-scale';
export const SIMULATOR_HEADER = 'x-infx-simulator';
export const LOCKSTEP_HEADER = 'x-infx-lockstep';

/** Version of the stamps-and-lockstep protocol above, announced as `infx.clock` in /v1/models. */
export const ENGINE_CLOCK_PROTOCOL = 1;

export interface LockstepTag {
  phase: string;
  conc: number;
  total: number;
  index: number;
  /** Open loop: due time in engine ms after the phase began; null in a closed loop. */
  atMs: number | null;
}

export function formatLockstep(t: LockstepTag): string {
  return `phase=${t.phase};conc=${t.conc};total=${t.total};index=${t.index}${t.atMs === null ? '' : `;at=${t.atMs}`}`;
}

/** Parses a lockstep header; a string says what is wrong with it. */
export function parseLockstep(value: string): LockstepTag | string {
  const fields = new Map<string, string>();
  for (const part of value.split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) return `'${part}' is not key=value`;
    fields.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  const phase = fields.get('phase');
  if (!phase || phase.length > 200) return 'phase must be a non-empty id of at most 200 characters';
  const int = (k: string, min: number) => {
    const v = Number(fields.get(k));
    return Number.isSafeInteger(v) && v >= min ? v : null;
  };
  const conc = int('conc', 1);
  const total = int('total', 1);
  const index = int('index', 0);
  if (conc === null || total === null || index === null)
    return 'conc and total must be integers >= 1 and index an integer >= 0';
  if (index >= total) return `index ${index} is not below total ${total}`;
  let atMs: number | null = null;
  if (fields.has('at')) {
    atMs = Number(fields.get('at'));
    if (!(Number.isFinite(atMs) && atMs >= 0)) return 'at must be a number of ms >= 0';
  }
  return { phase, conc, total, index, atMs };
}
