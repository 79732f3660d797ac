import type { PointSpec } from '../schema/run-dir.ts';
import {
  chooseTimeScale,
  hostSlowdown,
  type ScaleChoice,
  unsustainableScale,
} from '../sim/engine/time-scale.ts';
import { setupFromRow } from '../sim/serve/setup-from.ts';

/**
 * The time scale a simulated point runs at: the one given, or (auto) the fastest this host sustains for
 * it; with a note for the log, and a warning when a given scale is beyond what the host sustains.
 */

export interface ResolvedScale {
  scale: number;
  note: string;
  warning: string | null;
}

let slowdown: number | null = null;

/** Measured once per process: the host's speed does not change between the points of one sweep. */
function hostFactor(): number {
  slowdown ??= hostSlowdown();
  return slowdown;
}

/**
 * The load the scale is sized for. An agentic point has no fixed lengths: it is sized for a 64k-token
 * context and two sequences per user (a root turn and a subagent), a heavy step of a coding session; the
 * engine's lag check still marks the point invalid if the host could not keep up. Its megabyte prompts
 * (read, parsed, matched against the prefix cache) cost host time a decode step does not show: the scale
 * keeps a quarter of what the step alone would allow.
 */
const AGENTIC_SIZING = { isl: 65_536, osl: 512, seqsPerUser: 2, headroom: 4 };

function loadOf(spec: Pick<PointSpec, 'conc' | 'bench'>): { isl: number; osl: number; concurrency: number } {
  const b = spec.bench;
  if (b.kind === 'fixed-seq-len') return { isl: b.isl, osl: b.osl, concurrency: spec.conc };
  return {
    isl: AGENTIC_SIZING.isl,
    osl: AGENTIC_SIZING.osl,
    concurrency: spec.conc * AGENTIC_SIZING.seqsPerUser,
  };
}

export function resolveSimScale(spec: Pick<PointSpec, 'row' | 'conc' | 'bench' | 'engine'>): ResolvedScale {
  const given = spec.engine.simTimeScale;
  let choice: ScaleChoice;
  try {
    choice = chooseTimeScale(setupFromRow(spec.row), loadOf(spec), hostFactor());
  } catch (err) {
    // The engine itself will say what is wrong with the row when it starts.
    const scale = typeof given === 'number' ? given : 1;
    return { scale, note: `time scale ${scale}x (${(err as Error).message})`, warning: null };
  }
  const why = `a decode step of ${choice.stepMs.toFixed(1)} ms at concurrency ${choice.seqs} needs about ${choice.hostStepMs.toFixed(2)} ms of this host's time`;
  if (typeof given === 'number')
    return { scale: given, note: `time scale ${given}x (given)`, warning: unsustainableScale(given, choice) };
  if (spec.bench.kind === 'agentic-coding') {
    const scale = Math.max(1, Math.floor(choice.scale / AGENTIC_SIZING.headroom));
    return {
      scale,
      note: `time scale ${scale}x (auto: ${why}; 1/${AGENTIC_SIZING.headroom} of that for an agentic replay, whose long prompts cost the engine host time too)`,
      warning: null,
    };
  }
  return { scale: choice.scale, note: `time scale ${choice.scale}x (auto: ${why})`, warning: null };
}
