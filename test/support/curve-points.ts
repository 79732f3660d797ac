import type { ConfigIdentity, CurveEngine, CurvePoint } from '../../src/schema/curve.ts';
import { configKey } from '../../src/store/identity.ts';

/** Hand-made curve points for the tests of src/analysis and the dashboard's CSV export. */

export const identity = (over: Partial<ConfigIdentity> = {}): ConfigIdentity => {
  const pool = { tp: 8, ep: 1, dpAttn: false, pp: 1, dcp: 1, pcp: 1, workers: 0, gpus: 8 };
  return {
    model: 'dsr1',
    hardware: 'h200',
    framework: 'sglang',
    precision: 'fp8',
    specDecoding: 'none',
    disagg: false,
    multiNode: false,
    prefill: pool,
    decode: { ...pool },
    isl: 1024,
    osl: 1024,
    ...over,
  };
};

export interface PointFields {
  conc?: number;
  tput: number | null;
  intvty: number | null;
  runId?: string;
  config?: ConfigIdentity;
  valid?: boolean;
  ttftMs?: number | null;
  e2elMs?: number | null;
  output?: number | null;
  joules?: number | null;
  /** Default: a real engine. */
  engine?: CurveEngine;
}

export function curvePoint(f: PointFields): CurvePoint {
  const config = f.config ?? identity();
  const conc = f.conc ?? 1;
  const runId = f.runId ?? 'run';
  const ttft = f.ttftMs ?? null;
  const e2el = f.e2elMs ?? null;
  const i = f.intvty;
  const engine = f.engine ?? { kind: 'real', simulator: null };
  return {
    runId,
    pointId: `${runId}-c${conc}`,
    attempt: 1,
    configKey: configKey(config, engine.kind),
    config,
    engine,
    conc,
    gpus: config.prefill.gpus,
    image: 'img',
    createdAt: '2026-01-01T00:00:00.000Z',
    valid: f.valid ?? true,
    metrics: {
      tputPerGpu: f.tput,
      outputTputPerGpu: f.output ?? (f.tput === null ? null : f.tput / 2),
      inputTputPerGpu: f.tput === null ? null : f.tput / 2,
      interactivity: { median: i, p90: i === null ? null : i * 0.9, p99: i === null ? null : i * 0.8 },
      ttftMs: { median: ttft, p90: ttft === null ? null : ttft * 1.5, p99: ttft === null ? null : ttft * 2 },
      e2elMs: {
        median: e2el,
        p90: e2el === null ? null : e2el * 1.2,
        p99: e2el === null ? null : e2el * 1.4,
      },
      joulesPerOutputToken: f.joules ?? null,
    },
  };
}

/** A curve from (interactivity, throughput) pairs, at concurrencies 1, 2, 4, … */
export const curve = (pairs: readonly (readonly [number, number])[], over: Partial<PointFields> = {}) =>
  pairs.map(([intvty, tput], k) => curvePoint({ conc: 2 ** k, intvty, tput, ...over }));
