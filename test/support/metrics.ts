import type { PointResult } from '../../src/schema/point-result.ts';

/** Client health with nothing measured and nothing wrong: the neutral value for aggregation tests. */
export const UNMEASURED_CLIENT: PointResult['client'] = Object.freeze({
  workers: 1,
  eventLoopDelayMs: { p50: null, p99: null, max: null },
  eventLoopUtilization: null,
  cpuPercent: null,
  sendLagMs: { p50: null, p99: null, max: null },
  clientLimited: false,
  reasons: [],
});
