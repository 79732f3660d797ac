import { findAccelerator } from '../../catalog/index.ts';

/**
 * What the reference's single-node TensorRT-LLM scripts (`benchmarks/single_node/fixed_seq_len/*_trt*.sh`)
 * set per point that a row does not carry: piecewise CUDA graphs (below), the KV memory fraction, the token
 * budget and the attention-DP balancer's timeout (further down).
 *
 * Piecewise CUDA graphs (`torch_compile_config.enable_piecewise_cuda_graph`, in the DeepSeek-R1 B200 scripts
 * `dsr1_{fp4,fp8}_b200_trt{,_mtp}.sh`) let a step that carries a prompt replay captured graphs around
 * attention instead of launching every kernel. The H200 scripts and the other models' never turn them on.
 */

type Row = Record<string, unknown>;

/** The script's rule that turns piecewise CUDA graphs on at this point, or null where it leaves them off. */
export function trtPiecewiseCudaGraphs(r: Row, conc: number): string | null {
  if (r.framework !== 'trt' || r['model-prefix'] !== 'dsr1') return null;
  if ('prefill' in r || 'decode' in r) return null;
  if (findAccelerator(String(r.runner ?? ''))?.id !== 'b200') return null;
  const isl = r.isl;
  const osl = r.osl;
  const oneK = isl === 1024 && osl === 1024;
  const dp = r['dp-attn'] === true;
  const mtp = r['spec-decoding'] === 'mtp';
  if (r.precision === 'fp4' && !mtp) {
    return oneK && r.tp === 8 && r.ep === 8 ? 'dsr1_fp4_b200_trt.sh: 1k/1k at TP8 EP8' : null;
  }
  if (r.precision === 'fp4') {
    if (oneK && (conc === 32 || conc === 64)) return 'dsr1_fp4_b200_trt_mtp.sh: 1k/1k at 32 or 64 users';
    return oneK && conc === 128 && !dp
      ? 'dsr1_fp4_b200_trt_mtp.sh: 1k/1k at 128 users without DP-attention'
      : null;
  }
  if (r.precision === 'fp8' && !mtp) {
    return (oneK || (isl === 8192 && osl === 1024)) && conc >= 64
      ? 'dsr1_fp8_b200_trt.sh: 1k/1k or 8k/1k at 64 users or more'
      : null;
  }
  if (r.precision === 'fp8') {
    if (dp) return null;
    if (oneK && conc <= 4) return null;
    if (isl === 8192 && osl === 1024 && conc <= 16) return null;
    return 'dsr1_fp8_b200_trt_mtp.sh: on without DP-attention (off at 1k/1k up to 4 users, 8k/1k up to 16)';
  }
  return null;
}

/** A single-node TensorRT-LLM row as its script reads it: model, GPU, MTP, DP-attention, tp, script name. */
interface ScriptRow {
  prefix: unknown;
  gpu: string | undefined;
  mtp: boolean;
  dp: boolean;
  tp: number;
  script: string;
}

/** The row's script view, or null for rows no single-node TensorRT-LLM script runs (other engines, pools). */
function scriptRow(r: Row, mtp = r['spec-decoding'] === 'mtp'): ScriptRow | null {
  if (r.framework !== 'trt' || 'prefill' in r || 'decode' in r) return null;
  const prefix = r['model-prefix'];
  const gpu = findAccelerator(String(r.runner ?? ''))?.id;
  return {
    prefix,
    gpu,
    mtp,
    dp: r['dp-attn'] === true,
    tp: Number.isInteger(r.tp) ? (r.tp as number) : 1,
    script: `${prefix}_${r.precision}_${gpu}_trt${mtp ? '_mtp' : ''}.sh`,
  };
}

/**
 * `kv_cache_config.free_gpu_memory_fraction` of the reference's single-node TensorRT-LLM scripts
 * (`benchmarks/single_node/fixed_seq_len/{model}_{precision}_{gpu}_trt{,_mtp}.sh`, as of its commit
 * 843c6254f): the share of the memory left after the weights that the KV cache takes, and the rule that
 * sets it. Null for rows no script here covers (they keep the simulator's default, 0.9).
 */
export function trtKvMemoryFraction(r: Row, conc: number): { fraction: number; reason: string } | null {
  const row = scriptRow(r);
  if (!row) return null;
  const { prefix, gpu, mtp, dp, script } = row;
  const at = (fraction: number, rule: string) => ({ fraction, reason: `${script}: ${rule}` });
  if (prefix === 'dsr1' && gpu === 'h200' && r.precision === 'fp8') return at(0.75, '0.75');
  if (prefix === 'dsr1' && gpu === 'b200' && r.precision === 'fp4') return at(0.8, '0.8');
  if (prefix === 'dsr1' && gpu === 'b200' && r.precision === 'fp8') {
    if (mtp) return dp ? at(0.7, '0.7 with DP-attention') : at(0.8, '0.8 without DP-attention');
    return r.isl === 8192 && r.osl === 1024 && r.tp === 4
      ? at(0.75, '0.75 at 8k/1k on TP4')
      : at(0.8, '0.8 (0.75 only at 8k/1k on TP4)');
  }
  if (prefix === 'dsv4' && (gpu === 'b200' || gpu === 'b300') && r.precision === 'fp4') {
    const withDp = mtp ? 0.6 : 0.7;
    return dp ? at(withDp, `${withDp} with DP-attention`) : at(0.9, '0.9 without DP-attention');
  }
  if (prefix === 'qwen3.5' && gpu === 'b200' && r.precision === 'fp4') {
    if (!mtp) return at(0.9, '0.9');
    if (dp)
      return conc >= 1024
        ? at(0.8, '0.8 with DP-attention at 1,024 users or more')
        : at(0.9, '0.9 with DP-attention below 1,024 users');
    const key = `${r.isl}_tp${r.tp}_ep${r.ep ?? 1}`;
    const fraction = QWEN35_MTP_FRACTION[key] ?? 0.8;
    return at(
      fraction,
      `${fraction} at ISL ${r.isl}, TP ${r.tp}, EP ${r.ep ?? 1} (its table by layout; 0.8 elsewhere)`,
    );
  }
  return null;
}

/** qwen3.5_fp4_b200_trt_mtp.sh without DP-attention: the fraction per ISL, TP and EP it was tuned at. */
const QWEN35_MTP_FRACTION: Readonly<Record<string, number>> = {
  '1024_tp2_ep1': 0.6,
  '1024_tp2_ep2': 0.75,
  '1024_tp8_ep8': 0.8,
  '8192_tp2_ep1': 0.7,
  '8192_tp2_ep2': 0.6,
  '8192_tp4_ep4': 0.75,
  '8192_tp8_ep8': 0.8,
};

const up64 = (n: number) => Math.ceil(n / 64) * 64;

/**
 * `--max_num_tokens` of the reference's single-node TensorRT-LLM scripts (as of 843c6254f), per DP rank
 * where DP-attention is on (each rank schedules its own batch), with `draftTokens` drafts per step:
 * - DeepSeek-R1 with MTP: ⌈((MTP + 1) · max_batch_size + ISL + 64) / 64⌉ · 64, max_batch_size = conc / tp
 *   with DP-attention, else conc (as the scripts of January 2026 set it, when the DP-attention MTP points
 *   of docs/sim-fidelity.md ran; today's B200 scripts divide by 8 for FP8 and by 4 for FP4); without MTP
 *   ⌈(conc + ISL + 64) / 64⌉ · 64, at least 8,192;
 * - DeepSeek-V4: ISL + 256 (with MTP plus (MTP + 1) · max(conc, 16)), at least 8,192;
 * - Qwen3.5: 32,768 at 8k/1k, 16,384 at 1k/1k, else ISL + OSL + 256, at least 8,192.
 * Null for rows no script here covers (the framework's default budget).
 */
export function trtScriptBudget(
  r: Row,
  conc: number,
  draftTokens: number,
): { perRank: number; reason: string } | null {
  const isl = Number(r.isl);
  const osl = Number(r.osl);
  const row = scriptRow(r, r['spec-decoding'] === 'mtp' && draftTokens > 0);
  if (!row || !Number.isInteger(isl) || !Number.isInteger(osl)) return null;
  const { prefix, mtp, dp, tp, script } = row;
  const at = (perRank: number, rule: string) => ({
    perRank,
    reason: `the reference's ${script}: max_num_tokens ${rule}${dp ? ' per DP rank' : ''}`,
  });
  if (prefix === 'dsr1') {
    if (!mtp)
      return at(Math.max(8192, up64(conc + isl + 64)), '⌈(conc + ISL + 64) / 64⌉ · 64, at least 8192');
    const batch = dp ? Math.max(1, Math.floor(conc / tp)) : conc;
    return at(
      up64((draftTokens + 1) * batch + isl + 64),
      `⌈((MTP + 1) · ${dp ? 'conc / tp' : 'conc'} + ISL + 64) / 64⌉ · 64`,
    );
  }
  if (prefix === 'dsv4') {
    return mtp
      ? at(
          Math.max(8192, isl + (draftTokens + 1) * Math.max(conc, 16) + 256),
          'ISL + (MTP + 1) · max(conc, 16) + 256, at least 8192',
        )
      : at(Math.max(8192, isl + 256), 'ISL + 256, at least 8192');
  }
  if (prefix === 'qwen3.5') {
    if (isl === 8192 && osl === 1024) return at(32768, '32768 at 8k/1k');
    if (isl === 1024 && osl === 1024) return at(16384, '16384 at 1k/1k');
    return at(Math.max(8192, isl + osl + 256), 'ISL + OSL + 256, at least 8192');
  }
  return null;
}

/**
 * `attention_dp_config.timeout_iters` a single TensorRT-LLM engine with DP-attention runs with: the
 * reference's DeepSeek-R1 scripts set 60, its Qwen3.5 scripts 500; the others keep TensorRT-LLM's default,
 * 50. (Their `batching_wait_iters`, 0, 10 or 30 steps of waiting for more prompts once every rank has one,
 * is not modelled.)
 */
export function trtAdpTimeoutIters(r: Row): { steps: number; reason: string } {
  if (r['model-prefix'] === 'dsr1') return { steps: 60, reason: "the reference's dsr1 scripts" };
  if (r['model-prefix'] === 'qwen3.5') return { steps: 500, reason: "the reference's qwen3.5 scripts" };
  return { steps: TRT_ADP_DEFAULT_TIMEOUT_ITERS, reason: "TensorRT-LLM's default" };
}

/** TensorRT-LLM's default `attention_dp_config.timeout_iters` (AttentionDpConfig). */
export const TRT_ADP_DEFAULT_TIMEOUT_ITERS = 50;

/**
 * `cuda_graph_config.max_batch_size` of the reference's single-node TensorRT-LLM scripts (as of 843c6254f):
 * the largest decode batch, in requests per rank, that replays a captured graph. DeepSeek-R1: 128 on H200;
 * on B200 conc, with DP-attention conc / 4 (FP4) or conc / 8 (FP8 with MTP). DeepSeek-V4: max(conc, 16),
 * at most 1,024 on B300. Qwen3.5: its max_batch_size (by layout without MTP; conc / 8 with MTP and
 * DP-attention, else conc). Null for rows no script here covers.
 */
export function trtCudaGraphBatch(r: Row, conc: number): { batch: number; reason: string } | null {
  const row = scriptRow(r);
  if (!row) return null;
  const { prefix, gpu, mtp, dp, tp, script } = row;
  const at = (batch: number, rule: string) => ({
    batch: Math.max(1, batch),
    reason: `the reference's ${script}: cuda_graph_config.max_batch_size ${rule}`,
  });
  const part = (k: number) => (conc < k ? conc : Math.floor(conc / k));
  if (prefix === 'dsr1' && gpu === 'h200') return at(128, '128');
  if (prefix === 'dsr1' && gpu === 'b200') {
    if (!dp) return at(conc, 'conc');
    if (r.precision === 'fp4') return at(part(4), 'conc / 4 with DP-attention');
    return mtp ? at(part(8), 'conc / 8 with DP-attention') : at(conc, 'conc');
  }
  if (prefix === 'dsv4' && (gpu === 'b200' || gpu === 'b300')) {
    const b = Math.max(conc, 16);
    return gpu === 'b300' && b > 1024 ? at(1024, 'max(conc, 16), at most 1024') : at(b, 'max(conc, 16)');
  }
  if (prefix === 'qwen3.5' && gpu === 'b200') {
    if (mtp) return dp ? at(Math.floor(conc / 8), 'conc / 8 with DP-attention') : at(conc, 'conc');
    if (dp && (tp === 4 || tp === 8))
      return at(tp === 4 ? 256 : 128, `its max_batch_size at TP${tp} with DP-attention`);
    if (tp === 2)
      return r.ep === 2 && conc >= 32 ? at(32, '32 at TP2 EP2 from 32 users') : at(256, '256 at TP2');
    return tp >= 4 ? at(512, '512 at TP4 or more') : at(Math.max(conc, 16), 'max(conc, 16)');
  }
  return null;
}
