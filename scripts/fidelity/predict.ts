/**
 * A fidelity point as a matrix row, predicted by the simulator's public entry point (`predictRows`,
 * what `infx sim predict` runs) with the point's lengths rule, and read as the point's kind of
 * interactivity. Nothing here models anything: the numbers are whatever the current model predicts.
 */
import { DEFAULT_GPU_MEMORY_UTILIZATION } from '../../src/sim/engine/config.ts';
import { type PointOutcome, predictRows } from '../../src/sim/engine/rows.ts';
import type { FidelityPoint } from './points.ts';
import type { Prediction } from './table.ts';

const worker = (p: { 'num-worker': number; tp: number; ep: number; 'dp-attn': boolean }) => ({
  ...p,
  pp: 1,
  'dcp-size': 1,
  'pcp-size': 1,
});

/** The matrix row `infx sim predict` would read for this point. */
export function rowOf(p: FidelityPoint): Record<string, unknown> {
  const r = p.row;
  const common = {
    image: 'n/a',
    model: r.model,
    'model-prefix': r['model-prefix'],
    precision: r.precision,
    framework: r.framework,
    runner: r.runner,
    isl: r.isl,
    osl: r.osl,
    'spec-decoding': r['spec-decoding'],
    conc: [r.conc],
    'max-model-len': r.isl + r.osl + 256,
    'exp-name': p.id,
    'run-eval': false,
  };
  if (r.prefill && r.decode) {
    return { ...common, prefill: worker(r.prefill), decode: worker(r.decode), disagg: true };
  }
  return {
    ...common,
    tp: r.tp,
    pp: 1,
    'dcp-size': 1,
    'pcp-size': 1,
    ep: r.ep ?? 1,
    'dp-attn': r['dp-attn'] ?? false,
    disagg: false,
  };
}

/** Range ratio of the point's lengths rule: InferenceX's [0.8·L, L], or exactly L. */
export const rangeRatioOf = (p: FidelityPoint): number => (p.lengths === 'random' ? 0.8 : 1);

/** Reads an outcome as the point's metrics: (T) the predicted interactivity, (E) OSL / median E2E. */
export function toPrediction(p: FidelityPoint, o: PointOutcome | undefined): Prediction {
  if (o === undefined) return { error: 'the predictor returned no outcome' };
  // The catalog's unknown-model message lists every known model; the table needs only the first clause.
  if (o.status !== 'ok') return { error: o.reason.replace(/: known: [\s\S]*$/, '') };
  const pr = o.prediction;
  const interactivity = p.measured.kind === 'T' ? pr.interactivity : p.row.osl / (pr.e2eMs.median / 1000);
  return { tputPerGpu: pr.throughputPerGpu, interactivity };
}

/** Sources measured with the reference's own scripts (InferenceX's runs and dashboard). */
const REFERENCE_SOURCES: ReadonlySet<string> = new Set(['IX', 'IXD']);

export function predictPoint(p: FidelityPoint): Prediction {
  const outcomes = predictRows(rowOf(p), {
    rangeRatio: rangeRatioOf(p),
    seed: 0,
    ...(p.spec ? { draftTokens: p.spec['draft-tokens'], acceptanceLength: p.spec['acceptance-length'] } : {}),
    ...(p.recipe?.['piecewise-cuda-graphs'] !== undefined
      ? { piecewiseCudaGraphs: p.recipe['piecewise-cuda-graphs'] }
      : {}),
    ...(p.recipe?.['max-num-tokens'] !== undefined
      ? { maxNumTokensPerRank: p.recipe['max-num-tokens'] }
      : {}),
    // The KV memory fraction of the reference's scripts (trt-recipe.ts) is theirs: a measurement made
    // with other configs (a vendor's blog, NIM) keeps the simulator's default unless its recipe says.
    ...(p.recipe?.['free-gpu-memory-fraction'] !== undefined
      ? { gpuMemoryUtilization: p.recipe['free-gpu-memory-fraction'] }
      : REFERENCE_SOURCES.has(p.source)
        ? {}
        : { gpuMemoryUtilization: DEFAULT_GPU_MEMORY_UTILIZATION }),
  });
  return toPrediction(p, outcomes[0]);
}
