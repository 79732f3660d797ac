import { findAccelerator } from '../../catalog/index.ts';
import type { Precision } from '../../schema/catalog.ts';
import { type FrameworkProfile, frameworkProfile, type KvCacheDtype } from './engine-profile.ts';

/**
 * The KV-cache dtype the reference's single-node fixed-length scripts
 * (`benchmarks/single_node/fixed_seq_len/*.sh`, as of its commit 843c6254f) set with `--kv-cache-dtype`
 * for SGLang, vLLM and ATOM, where the framework's `auto` would keep BF16 for FP8 weights:
 * - ATOM (DeepSeek-R1, DeepSeek-V4, Qwen3.5): `kv_cache_dtype: fp8` in every script;
 * - vLLM, DeepSeek-V4: `--kv-cache-dtype fp8` on every GPU;
 * - SGLang, DeepSeek-R1: `fp8_e4m3` on B200, B300 and the MI300X/MI325X/MI355X scripts, not on H200;
 * - SGLang, Qwen3.5: `fp8_e4m3` on B200, B300, H100, H200 and RTX PRO 6000, not on the AMD GPUs;
 * - SGLang, DeepSeek-V4: `fp8_e4m3` on MI355X, not on H200 or B300.
 * A row no script here covers (other models, multi-node and agentic rows) keeps the framework's rule.
 */
export function scriptKvDtype(r: Record<string, unknown>): { kv: 'fp8'; reason: string } | null {
  if ('prefill' in r || 'decode' in r) return null;
  if (!Number.isInteger(r.isl) || !Number.isInteger(r.osl)) return null;
  const fw = r.framework;
  const prefix = r['model-prefix'];
  const gpu = findAccelerator(String(r.runner ?? ''))?.id ?? '';
  const sets = (flag: string) => ({
    kv: 'fp8' as const,
    reason: `the reference's ${prefix} ${fw} script on ${gpu}: ${flag}`,
  });
  if (fw === 'atom' && SCRIPTED.has(String(prefix))) return sets('kv_cache_dtype fp8');
  if (fw === 'vllm' && prefix === 'dsv4') return sets('--kv-cache-dtype fp8');
  if (fw !== 'sglang') return null;
  const on = SGLANG_FP8_KV[String(prefix)];
  return on?.includes(gpu) ? sets('--kv-cache-dtype fp8_e4m3') : null;
}

/** The models the reference's single-node fixed-length scripts cover (ATOM's set FP8 KV for each). */
const SCRIPTED: ReadonlySet<string> = new Set(['dsr1', 'dsv4', 'qwen3.5']);

/** The GPUs on which the reference's SGLang scripts of a model set `--kv-cache-dtype fp8_e4m3`. */
const SGLANG_FP8_KV: Readonly<Record<string, readonly string[]>> = {
  dsr1: ['b200', 'b300', 'mi300x', 'mi325x', 'mi355x'],
  'qwen3.5': ['b200', 'b300', 'h100', 'h200', 'rtx6000pro'],
  dsv4: ['mi355x'],
};

/**
 * A row's KV dtype and memory semantics: the framework's rule (engine-profile.ts), with the KV dtype its
 * reference script sets where `--kv-cache-dtype` is auto. Predict, explain and serve read it.
 */
export function rowKvProfile(r: Record<string, unknown>, override: KvCacheDtype = 'auto'): FrameworkProfile {
  const profile = frameworkProfile(
    String(r.framework ?? ''),
    r.precision as Precision,
    String(r.model ?? ''),
    override,
  );
  if (override !== 'auto') return profile;
  const script = scriptKvDtype(r);
  return script ? { ...profile, kvPrecision: script.kv, kvReason: script.reason } : profile;
}
