import { findAccelerator } from '../../catalog/index.ts';

/**
 * What the reference's single-node TensorRT-LLM scripts for DeepSeek-R1 on B200
 * (`benchmarks/single_node/fixed_seq_len/dsr1_{fp4,fp8}_b200_trt{,_mtp}.sh`) switch per point that a row
 * does not carry: piecewise CUDA graphs (`torch_compile_config.enable_piecewise_cuda_graph`), which let a
 * step that carries a prompt replay captured graphs around attention instead of launching every kernel.
 * The H200 scripts and the other models' TensorRT-LLM scripts never turn them on.
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
