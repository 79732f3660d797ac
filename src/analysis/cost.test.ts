import { describe, expect, it } from 'vitest';
import { curvePoint, identity } from '../../test/support/curve-points.ts';
import { accelerator } from '../catalog/index.ts';
import { costPerMillionTokens, gpuHourPrice, millionTokensPerGpuHour, pointCost } from './cost.ts';

describe('costPerMillionTokens', () => {
  it('price / (tok/s/GPU × 3600) × 1e6', () => {
    // $2/GPU-h at 1000 tok/s/GPU: 3.6 M tokens per GPU-hour → 2 / 3.6 = $0.5556 per M tokens.
    expect(costPerMillionTokens(2, 1000)).toBeCloseTo(2 / 3.6, 12);
    // $3/GPU-h at 2500 tok/s/GPU: 9 M tok/h → $0.3333.
    expect(costPerMillionTokens(3, 2500)).toBeCloseTo(1 / 3, 12);
    expect(millionTokensPerGpuHour(2500)).toBe(9);
  });

  it('N/A for unknown price, missing or non-positive throughput', () => {
    expect(costPerMillionTokens(null, 1000)).toBeNull();
    expect(costPerMillionTokens(2, null)).toBeNull();
    expect(costPerMillionTokens(2, 0)).toBeNull();
    expect(costPerMillionTokens(2, Number.NaN)).toBeNull();
  });
});

describe('gpuHourPrice', () => {
  it('the catalog price of the base GPU, the flag over it, unknown hardware as unknown', () => {
    expect(gpuHourPrice('h200')).toEqual({
      perGpuHour: accelerator('h200').pricePerGpuHour,
      source: 'catalog',
    });
    expect(gpuHourPrice('h200', 1.41)).toEqual({ perGpuHour: 1.41, source: 'flag' });
    expect(gpuHourPrice('tpu-v9')).toEqual({ perGpuHour: null, source: 'unknown' });
    expect(gpuHourPrice('tpu-v9', 4)).toEqual({ perGpuHour: 4, source: 'flag' });
  });
});

describe('pointCost', () => {
  it('total and output cost, and measured energy', () => {
    const p = curvePoint({ intvty: 50, tput: 1800, output: 900, joules: 0.42, config: identity() });
    const c = pointCost(p, 3.6);
    // 1800 tok/s/GPU = 6.48 M tok/GPU-h → 3.6 / 6.48 = $0.5556/M; output 900 → 3.24 M/h → $1.1111/M.
    expect(c.perMillionTotal).toBeCloseTo(3.6 / 6.48, 12);
    expect(c.perMillionOutput).toBeCloseTo(3.6 / 3.24, 12);
    expect(c.joulesPerOutputToken).toBe(0.42);
    expect(pointCost(curvePoint({ intvty: 50, tput: 1800 })).joulesPerOutputToken).toBeNull();
  });
});
