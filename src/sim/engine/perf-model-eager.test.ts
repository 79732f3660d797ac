import { describe, expect, it } from 'vitest';
import { dsr1H200Row } from '../../../test/rows.ts';
import { accelerator, model } from '../../catalog/index.ts';
import type { EngineFamily } from './engine-profile.ts';
import { explainPoint, formatExplain } from './explain.ts';
import { EAGER_LAYER_US, runsMixedStepsEagerly } from './perf-constants.ts';
import { PerfModel } from './perf-model.ts';

/**
 * Steps that carry a prompt where the engine replays CUDA graphs for decode-only batches alone
 * (TensorRT-LLM, SGLang): such a step takes at least the layers' eager launch time, unless its own work is
 * longer.
 */

const dsr1 = model('dsr1');
const perf = (family: EngineFamily) =>
  new PerfModel({
    model: dsr1,
    accelerator: accelerator('h200'),
    precision: 'fp8',
    kvPrecision: 'fp8',
    par: { tp: 8, ep: 8, pp: 1, dpAttn: false },
    family,
  });
const decodes = Array.from({ length: 64 }, () => ({ newTokens: 1, context: 2048 }));
const floorMs = (dsr1.layers * EAGER_LAYER_US) / 1000;

describe('eager steps with a prompt', () => {
  it('TensorRT-LLM and SGLang run them eagerly; vLLM replays piecewise graphs', () => {
    expect(runsMixedStepsEagerly('trt')).toBe(true);
    expect(runsMixedStepsEagerly('sglang')).toBe(true);
    expect(runsMixedStepsEagerly('vllm')).toBe(false);
    expect(perf('trt').eagerMixedStepFloorMs).toBeCloseTo(floorMs, 9);
    expect(perf('vllm').eagerMixedStepFloorMs).toBe(0);
  });

  it('a 1k prompt among decodes: the step takes the floor on TensorRT-LLM, its kernels alone on vLLM', () => {
    const mixed = [...decodes, { newTokens: 1024, context: 0 }];
    const trt = perf('trt').breakdown(mixed);
    const vllm = perf('vllm').breakdown(mixed);
    expect(vllm.eagerMs).toBe(0);
    expect(vllm.totalMs).toBeLessThan(floorMs);
    expect(trt.eagerMs).toBeGreaterThan(0);
    // The core (kernels, communication, floors) is raised to the eager floor; overhead and draft come on top.
    expect(trt.totalMs - trt.overheadMs - trt.draftMs).toBeCloseTo(floorMs, 9);
  });

  it('a decode-only step replays its graph, and a long prompt hides the launches behind its GEMMs', () => {
    const trt = perf('trt');
    expect(trt.breakdown(decodes).eagerMs).toBe(0);
    const long = trt.breakdown([...decodes, { newTokens: 8192, context: 0 }]);
    expect(long.totalMs).toBeGreaterThan(floorMs);
    expect(long.eagerMs).toBe(0);
  });

  it('sim predict --explain says it on the prefill line, for TensorRT-LLM and not for vLLM', () => {
    const row = (framework: string) => dsr1H200Row({ framework, osl: 1024, 'max-model-len': 2304 });
    const trt = explainPoint(row('trt'), 64);
    expect(trt.phases[0]?.eagerFloorMs).toEqual({ ms: floorMs, engine: 'trt' });
    expect(formatExplain(trt).join('\n')).toContain(
      `trt runs a step that carries a prompt without CUDA graphs, so it takes at least ${floorMs.toFixed(2)} ms`,
    );
    const vllm = explainPoint(row('vllm'), 64);
    expect(vllm.phases[0]?.eagerFloorMs).toBeUndefined();
    expect(formatExplain(vllm).join('\n')).not.toContain('without CUDA graphs, so');
  });
});
