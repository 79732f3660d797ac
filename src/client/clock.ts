/**
 * The client's clock: CLOCK_MONOTONIC in milliseconds. `process.hrtime` is shared by every thread and
 * process on the host (unlike `performance.now()`, whose origin is per thread), so records stamped in
 * worker threads line up with each other and with a local server's own log.
 */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}
