import { describe, expect, it } from 'vitest';
import {
  sglangChunkedPrefill,
  sglangCudaGraphMaxBs,
  vllmCudaGraphCeiling,
  vllmDefaultMaxNumSeqs,
} from './engine-defaults.ts';

describe("engines' GPU-dependent defaults", () => {
  it('vLLM: 1,024 sequences from 70 GiB (not on an A100), a graph ceiling of at most 512 tokens', () => {
    expect(vllmDefaultMaxNumSeqs(141, 'h200')).toBe(1024);
    expect(vllmDefaultMaxNumSeqs(80, 'a100-80gb')).toBe(256);
    expect(vllmDefaultMaxNumSeqs(48, 'l40s')).toBe(256);
    expect(vllmCudaGraphCeiling(1024, 1, 8192)).toBe(512);
    expect(vllmCudaGraphCeiling(64, 2, 8192)).toBe(256);
    expect(vllmCudaGraphCeiling(1024, 4, 256)).toBe(256);
  });

  it('SGLang: the chunk and the graph batch follow memory tiers, the graph batch tp too', () => {
    expect([24, 48, 80, 141, 180, 288].map(sglangChunkedPrefill)).toEqual([
      2048, 4096, 8192, 8192, 16384, 16384,
    ]);
    expect(sglangChunkedPrefill(undefined)).toBe(8192);
    expect([24, 48, 80, 141, 180].map((m) => sglangCudaGraphMaxBs(m, 1))).toEqual([24, 32, 256, 256, 512]);
    expect([24, 48, 80, 141, 180].map((m) => sglangCudaGraphMaxBs(m, 8))).toEqual([80, 160, 512, 512, 512]);
  });
});
