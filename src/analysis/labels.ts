import type { ConfigIdentity, CurveEngine, EngineKind, Pool } from '../schema/curve.ts';

/**
 * Short human labels of a config (dashboard-spec §4.3.2 parallelism labels): `h200 sglang fp8 tp8`,
 * `b200 sglang fp4 dep8 mtp`, `gb200 dynamo-trt fp4 1×dep8+2×tep16`.
 */

/** TP8, TEP8 (tp = ep), DEP8 (tp = ep with DP attention), TP8-EP4, plus pp/pcp/dcp above 1. */
export function poolLabel(p: Pool): string {
  let s: string;
  if (p.ep > 1 && p.ep === p.tp) s = `${p.dpAttn ? 'dep' : 'tep'}${p.tp}`;
  else s = `tp${p.tp}${p.ep > 1 ? `-ep${p.ep}` : ''}${p.dpAttn ? '-dpa' : ''}`;
  if (p.pp > 1) s += `-pp${p.pp}`;
  if (p.pcp > 1) s += `-pcp${p.pcp}`;
  if (p.dcp > 1) s += `-dcp${p.dcp}`;
  return s;
}

export function parallelismLabel(id: Omit<ConfigIdentity, 'isl' | 'osl'>): string {
  if (!id.multiNode) return poolLabel(id.decode);
  return `${id.prefill.workers}×${poolLabel(id.prefill)}+${id.decode.workers}×${poolLabel(id.decode)}`;
}

/** The deployment: hardware, framework, precision, parallelism, speculative decoding and disagg if any. */
export function configLabel(id: Omit<ConfigIdentity, 'isl' | 'osl'>): string {
  const parts = [id.hardware, id.framework, id.precision, parallelismLabel(id)];
  if (id.specDecoding !== 'none') parts.push(id.specDecoding);
  if (id.disagg) parts.push('disagg');
  return parts.join(' ');
}

const kTokens = (n: number) => (n % 1024 === 0 ? `${n / 1024}k` : String(n));

/** The workload: model and sequence lengths, `dsr1 1k/1k`. */
export const workloadLabel = (id: ConfigIdentity) => `${id.model} ${kTokens(id.isl)}/${kTokens(id.osl)}`;

/** Model, workload and deployment: what names a config when several workloads are shown together. */
export const fullLabel = (id: ConfigIdentity) => `${workloadLabel(id)} ${configLabel(id)}`;

/** What every label of a simulated curve carries: results of infx's simulated engine are no measurements. */
export const SIMULATED = 'simulated';

/** ` (simulated)` after the label of a simulated curve; nothing for a real one. */
export const engineSuffix = (kind: EngineKind) => (kind === 'simulated' ? ` (${SIMULATED})` : '');

/** Model, workload, deployment, and `(simulated)` when a simulated engine served it. */
export const curveLabel = (id: ConfigIdentity, kind: EngineKind) => fullLabel(id) + engineSuffix(kind);

/** An agentic-coding curve's label, as the run page names it: `dsv4 agentic mi300x vllm fp4 tp8 kvnone`. */
export const agenticLabel = (id: Omit<ConfigIdentity, 'isl' | 'osl'>, kvOffload: string, kind: EngineKind) =>
  `${id.model} agentic ${configLabel(id)} kv${kvOffload}${engineSuffix(kind)}`;

/** `simulated · infx-sim/0.1.0+m2`, `simulated · simulator version not recorded`, or `real engine`. */
export function engineLabel(e: CurveEngine): string {
  if (e.kind === 'real') return 'real engine';
  return `${SIMULATED} · ${e.simulator ?? 'simulator version not recorded'}`;
}
