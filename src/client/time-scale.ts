import type { RequestRecord } from '../schema/request-record.ts';

/**
 * Against a simulated engine that runs `scale` times faster than real time, a wall-clock millisecond is
 * `scale` simulated ones: records are converted so every latency and rate is in simulated time,
 * comparable with real hardware. Client-health figures stay in wall time (they are about this machine).
 */
export function toSimulatedTime(records: RequestRecord[], scale: number): void {
  const s = (t: number) => Math.round(t * scale * 1000) / 1000;
  const n = (t: number | null) => (t === null ? null : s(t));
  for (const r of records) {
    r.scheduledMs = s(r.scheduledMs);
    r.sentMs = s(r.sentMs);
    r.firstByteMs = n(r.firstByteMs);
    r.firstTokenMs = n(r.firstTokenMs);
    r.lastTokenMs = n(r.lastTokenMs);
    r.doneMs = n(r.doneMs);
    r.chunkGapsMs = r.chunkGapsMs.map(s);
  }
}
