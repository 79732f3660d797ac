import type { EngineInfo } from '../schema/point-result.ts';
import type { FiguresClock } from './clock-view.ts';

/**
 * Did the engine keep up? A simulated engine runs on the wall clock, scaled, and reports how far its
 * schedule slipped while the point was measured. On the engine clock a slip changes no figure (only how
 * long the point took), but a lockstep wait that ran out does: the engine went on without a request the
 * client owed it, so the client's delay became simulated time. On the wall clock every slipped
 * millisecond is measured as engine time.
 */

export const ENGINE_LIMITS = {
  /** Wall clock: the share of the measured window the engine's schedule may slip. */
  behindShare: 0.02,
  /** Engine clock: lockstep waits that may run out. */
  lockstepTimeouts: 0,
} as const;

export type EngineFacts = Pick<EngineInfo, 'kind' | 'simulator' | 'timeScale' | 'lockstep' | 'lag'>;

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

export function assessEngine(
  facts: EngineFacts,
  clock: FiguresClock,
  wallWindowMs: number,
  notes: readonly string[] = [],
): EngineInfo {
  const reasons: string[] = [...notes];
  let limited = false;
  const lag = facts.lag;
  if (lag !== null && clock === 'engine' && lag.lockstepTimeouts > ENGINE_LIMITS.lockstepTimeouts) {
    limited = true;
    reasons.push(
      `the engine waited in vain ${lag.lockstepTimeouts} time(s) for a request the client owed it and went on without it: client delays entered the engine clock`,
    );
  }
  if (lag !== null && clock === 'wall' && wallWindowMs > 0) {
    const share = lag.behindMs / wallWindowMs;
    if (share > ENGINE_LIMITS.behindShare) {
      limited = true;
      reasons.push(
        `the engine fell behind its schedule by ${lag.behindMs.toFixed(0)} ms, ${pct(share)} of the measured window (limit ${pct(ENGINE_LIMITS.behindShare)}), and these figures are on the wall clock: lower --sim-time-scale or measure on the engine clock`,
      );
    }
  }
  return {
    kind: facts.kind,
    simulator: facts.simulator,
    timeScale: facts.timeScale,
    clock,
    lockstep: facts.lockstep,
    lag,
    engineLimited: limited,
    reasons,
  };
}
