import { describe, expect, it } from 'vitest';
import { fixedRow } from '../../../test/rows.ts';
import type { SimSetup } from './config.ts';
import { resolveSim } from './config.ts';
import { explainPoint, formatExplain } from './explain.ts';
import { setupOfRow } from './rows.ts';
import { rowKvProfile, scriptKvDtype } from './script-kv.ts';

/** The KV dtype the reference's single-node scripts set with --kv-cache-dtype (issue 21, part 1). */

// The reference's own layout of a single-node row (test/rows.ts), as DeepSeek-R1 FP8 on MI300X under SGLang.
const row = (over: Record<string, unknown> = {}): Record<string, unknown> =>
  fixedRow({
    model: 'deepseek-ai/DeepSeek-R1-0528',
    'model-prefix': 'dsr1',
    conc: 16,
    ...over,
  }) as unknown as Record<string, unknown>;
const kv = (r: Record<string, unknown>) => scriptKvDtype(r)?.kv ?? null;

describe("the reference scripts' --kv-cache-dtype", () => {
  it('FP8 where the script sets it, per framework, model and GPU', () => {
    expect(kv(row())).toBe('fp8');
    expect(kv(row({ runner: 'b200' }))).toBe('fp8');
    expect(kv(row({ runner: 'h200' }))).toBeNull();
    expect(kv(row({ 'model-prefix': 'qwen3.5', runner: 'h100' }))).toBe('fp8');
    expect(kv(row({ 'model-prefix': 'qwen3.5', runner: 'mi355x' }))).toBeNull();
    expect(kv(row({ 'model-prefix': 'dsv4', runner: 'h200' }))).toBeNull();
    expect(kv(row({ 'model-prefix': 'dsv4', framework: 'vllm', runner: 'h200' }))).toBe('fp8');
    expect(kv(row({ framework: 'atom', runner: 'mi355x' }))).toBe('fp8');
    expect(kv(row({ framework: 'atom', 'model-prefix': 'glm5' }))).toBeNull();
  });

  it('not for rows no single-node fixed-length script covers: other models, multi-node, agentic', () => {
    expect(kv(row({ 'model-prefix': 'kimik2.5' }))).toBeNull();
    expect(kv(row({ framework: 'vllm' }))).toBeNull();
    expect(kv({ ...row(), prefill: {}, decode: {} })).toBeNull();
    const { isl: _isl, osl: _osl, ...agentic } = row();
    expect(kv(agentic)).toBeNull();
  });

  it('doubles the KV tokens an FP8 row holds, and --kv-cache-dtype still decides', () => {
    const tokens = (r: Record<string, unknown>, opts = {}) =>
      resolveSim(setupOfRow(r, opts) as SimSetup).kvBlocks * 16;
    expect(rowKvProfile(row()).kvPrecision).toBe('fp8');
    expect(rowKvProfile(row(), 'bf16')).toMatchObject({ kvPrecision: 'bf16', kvReason: '--kv-cache-dtype' });
    expect(tokens(row()) / tokens(row(), { kvCacheDtype: 'bf16' })).toBeCloseTo(2, 2);
    const text = formatExplain(explainPoint(row(), 16)).join('\n');
    expect(text).toMatch(
      /KV cache: fp8 \(the reference's dsr1 sglang script on mi300x: --kv-cache-dtype fp8_e4m3\)/,
    );
    const h200 = formatExplain(explainPoint(row({ runner: 'h200' }), 16)).join('\n');
    expect(h200).toMatch(/KV cache: bf16 \(sglang: kv-cache-dtype auto, the activation dtype\)/);
  });
});
