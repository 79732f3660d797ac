import { type EventLoopUtilization, monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { PointResult } from '../schema/point-result.ts';

/**
 * Is the client keeping up? Each client thread watches its own event loop while a phase runs; the
 * point is marked client-limited (invalid) when any thread was saturated or requests left late.
 */

type ClientHealth = PointResult['client'];

export interface ThreadHealth {
  eventLoopDelayMs: { p50: number; p99: number; max: number };
  eventLoopUtilization: number;
}

/** Thresholds above which the client, not the server, is taken to have set the pace. */
export const CLIENT_LIMITS = {
  eventLoopUtilization: 0.9,
  eventLoopDelayP99Ms: 20,
  sendLagP99Ms: 10,
} as const;

export function watchThread(): { stop(): ThreadHealth } {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const elu0: EventLoopUtilization = performance.eventLoopUtilization();
  return {
    stop() {
      delay.disable();
      const elu = performance.eventLoopUtilization(elu0);
      const ms = (ns: number) => (Number.isFinite(ns) ? ns / 1e6 : 0);
      return {
        eventLoopDelayMs: {
          p50: ms(delay.percentile(50)),
          p99: ms(delay.percentile(99)),
          max: ms(delay.max),
        },
        eventLoopUtilization: elu.utilization,
      };
    },
  };
}

function quantile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const k = ((sorted.length - 1) * p) / 100;
  const f = Math.floor(k);
  const lo = sorted[f] as number;
  const hi = sorted[Math.min(f + 1, sorted.length - 1)] as number;
  return lo + (k - f) * (hi - lo);
}

/**
 * `paceFree`: the figures are on a lockstep engine's clock, which waits for the client, so the client's
 * pace cannot move them; its health is still reported, but never makes the point client-limited.
 */
export function assessClient(
  threads: readonly ThreadHealth[],
  sendLagsMs: readonly number[],
  cpuPercent: number | null,
  paceFree = false,
): ClientHealth {
  const worst = (f: (t: ThreadHealth) => number) => (threads.length ? Math.max(...threads.map(f)) : null);
  const lags = [...sendLagsMs].sort((a, b) => a - b);
  const health: ClientHealth = {
    workers: Math.max(1, threads.length),
    eventLoopDelayMs: {
      p50: worst((t) => t.eventLoopDelayMs.p50),
      p99: worst((t) => t.eventLoopDelayMs.p99),
      max: worst((t) => t.eventLoopDelayMs.max),
    },
    eventLoopUtilization: worst((t) => t.eventLoopUtilization),
    cpuPercent,
    sendLagMs: { p50: quantile(lags, 50), p99: quantile(lags, 99), max: lags.length ? lags.at(-1)! : null },
    clientLimited: false,
    reasons: [],
  };
  const elu = health.eventLoopUtilization;
  if (elu !== null && elu >= CLIENT_LIMITS.eventLoopUtilization)
    health.reasons.push(
      `a client thread was busy ${(elu * 100).toFixed(0)}% of the time (limit ${CLIENT_LIMITS.eventLoopUtilization * 100}%): add --workers`,
    );
  const eld = health.eventLoopDelayMs.p99;
  if (eld !== null && eld >= CLIENT_LIMITS.eventLoopDelayP99Ms)
    health.reasons.push(
      `client event-loop delay p99 ${eld.toFixed(1)} ms (limit ${CLIENT_LIMITS.eventLoopDelayP99Ms} ms): timestamps may be late`,
    );
  const lag = health.sendLagMs.p99;
  if (lag !== null && lag >= CLIENT_LIMITS.sendLagP99Ms)
    health.reasons.push(
      `requests left the client late: send lag p99 ${lag.toFixed(1)} ms (limit ${CLIENT_LIMITS.sendLagP99Ms} ms)`,
    );
  if (paceFree && health.reasons.length > 0) {
    health.reasons = health.reasons.map(
      (r) => `${r} (no effect: the figures are on the lockstep engine's clock)`,
    );
    return health;
  }
  health.clientLimited = health.reasons.length > 0;
  return health;
}
