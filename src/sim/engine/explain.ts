import {
  sglangCudaGraphMaxBs,
  vllmCudaGraphCeiling,
  vllmDefaultMaxNumSeqs,
} from '../../catalog/engine-defaults.ts';
import { GIB } from '../../catalog/memory.ts';
import { isAggregate } from './aggregate.ts';
import { DEFAULT_GPU_MEMORY_UTILIZATION, resolveSim, type SimSetup } from './config.ts';
import type { DpBalanceOptions } from './dp-balancer.ts';
import { DEFAULT_BATCHED_TOKENS, engineFamily, schedulerProfile } from './engine-profile.ts';
import type { StepBreakdown } from './perf-model.ts';
import {
  type PointOutcome,
  type RowSetupOptions,
  setupOfRow,
  singleEngineAt,
  withBatchCaps,
} from './rows.ts';
import { rowKvProfile } from './script-kv.ts';
import { type SpecShape, specOfRow } from './spec-recipe.ts';
import {
  trtAdpTimeoutIters,
  trtCudaGraphBatch,
  trtKvMemoryFraction,
  trtPiecewiseCudaGraphs,
  trtScriptBudget,
} from './trt-recipe.ts';

/**
 * `sim predict --explain`: for one point, where the memory of each engine goes (budget, weights, reserve, KV
 * pool, KV capacity, with the KV dtype and memory-fraction rule and why), and what binds each phase — one
 * prefill chunk and a steady decode batch timed by the roofline, with the largest term named (compute,
 * memory bandwidth, communication, fixed per-step cost), and whether the KV cache caps the decode batch.
 */

export interface MemoryExplain {
  pool: 'engine' | 'prefill' | 'decode';
  workers: number;
  accelerator: string;
  precision: string;
  kvPrecision: string;
  kvReason: string;
  gpuMemoryUtilization: number;
  fractionOf: 'total' | 'free';
  fractionReason: string;
  /** Per rank, GiB. */
  memoryGiB: number;
  budgetGiB: number;
  weightsGiB: number;
  reserveGiB: number;
  kvPoolGiB: number;
  kvBytesPerToken: number;
  /** Tokens of KV one engine holds. */
  kvCapacityTokens: number;
  maxNumSeqs: number;
  maxNumBatchedTokens: number;
  /** Whether decodes take from that budget, and the framework rule behind both. */
  decodesInBudget: boolean;
  budgetReason: string;
  /** TensorRT-LLM's attention-DP balancer (dp-balancer.ts), where the engine runs it. */
  dpBalance?: DpBalanceOptions;
  /** Whose timeout_iters the balancer runs with (trt-recipe.ts). */
  dpBalanceReason?: string;
  cudaGraphs: CudaGraphExplain;
}

/**
 * The engine's CUDA graph capture ceiling by its own default (recipes may state another): decode steps
 * above it run without graphs, slower than the roofline the simulator times them by (not modelled).
 */
export interface CudaGraphExplain {
  /** Per DP rank (per engine without DP attention); null where the simulator does not know it. */
  ceiling: number | null;
  unit: 'tokens' | 'requests';
  reason: string;
}

export type Binding = 'compute' | 'memory bandwidth' | 'communication' | 'fixed per-step cost';

export interface PhaseExplain {
  phase: 'prefill' | 'decode';
  /** Decode: the batch per DP rank in the ceiling's unit, when it is above the CUDA graph ceiling. */
  aboveCudaGraphs?: { batch: number; ceiling: number; unit: CudaGraphExplain['unit'] };
  seqs: number;
  newTokensPerSeq: number;
  context: number;
  breakdown: StepBreakdown;
  binding: Binding;
  /** Decode: the batch the KV cache allows, when it is below the users one engine serves. */
  kvLimitedSeqs: number | null;
  /** Prefill with DP-attention: the chunk runs on one of this many ranks, which wait for it. */
  oneOfRanks?: number;
  /** Prefill: the least a step carrying a prompt takes where the engine runs such steps eagerly. */
  eagerFloorMs?: { ms: number; engine: string };
}

export interface PointExplain {
  memory: MemoryExplain[];
  phases: PhaseExplain[];
  /** Speculative decoding as the prediction ran it, with where each number came from; null without it. */
  spec: SpecShape | null;
}

const gib = (b: number) => b / GIB;

function binding(b: StepBreakdown): Binding {
  const parts: [Binding, number][] = [
    ['compute', b.computeBoundMs],
    ['memory bandwidth', b.memoryBoundMs],
    ['communication', b.commMs],
    ['fixed per-step cost', b.floorMs + b.eagerMs + b.overheadMs + b.draftMs],
  ];
  return parts.reduce((a, p) => (p[1] > a[1] ? p : a))[0];
}

/** The explanation of one point: a matrix row at one concurrency (as predictRows reads it). */
export function explainPoint(
  row: Record<string, unknown>,
  conc: number,
  opts: RowSetupOptions = {},
): PointExplain {
  const rowSetup = setupOfRow(row, opts, 'row', conc);
  // The batch caps the prediction runs with (rows.ts): a disaggregated worker takes its share of the users.
  const setup = 'prefill' in rowSetup ? withBatchCaps(rowSetup, conc) : rowSetup;
  const isl = row.isl as number;
  const osl = row.osl as number;
  const profile = rowKvProfile(row, opts.kvCacheDtype);
  const pools: {
    pool: MemoryExplain['pool'];
    workers: number;
    setup: SimSetup;
    users: number;
    seqs?: number;
  }[] =
    'prefill' in setup
      ? [
          { pool: 'prefill', workers: setup.prefill.workers, setup: setup.prefill.setup, users: conc },
          {
            pool: 'decode',
            workers: setup.decode.workers,
            setup: setup.decode.setup,
            users: Math.ceil(conc / setup.decode.workers),
          },
        ]
      : isAggregate(setup)
        ? [
            {
              pool: 'engine',
              workers: setup.replicas,
              setup: setup.setup,
              users: Math.ceil(conc / setup.replicas),
            },
          ]
        : // The steady predictor runs max(256, conc) sequences at once (predict.ts), with the recipe's MTP budget.
          [
            {
              pool: 'engine',
              workers: 1,
              setup: { ...singleEngineAt(setup, row, conc, opts), maxNumSeqs: Math.max(256, conc) },
              users: conc,
            },
          ];
  const single = !('prefill' in setup) && !isAggregate(setup);
  const resolved = pools.map((p) => ({ ...p, r: resolveSim(p.setup) }));
  const framework = String(row.framework ?? '');
  const memory = resolved.map(({ pool, workers, r, setup: s }): MemoryExplain => {
    const family = engineFamily(framework);
    const sched = schedulerProfile(family, s.dpAttn ? (s.tp ?? 1) : 1, framework, r.accelerator.memoryGiB);
    const budget = r.engineOptions.maxNumBatchedTokens ?? DEFAULT_BATCHED_TOKENS;
    return {
      pool,
      workers,
      accelerator: r.accelerator.id,
      precision: r.precision,
      kvPrecision: r.kvPrecision,
      kvReason: profile.kvReason,
      gpuMemoryUtilization: s.gpuMemoryUtilization ?? DEFAULT_GPU_MEMORY_UTILIZATION,
      fractionOf: profile.memoryFractionOf,
      fractionReason: fractionReason(profile.memoryReason, single, row, conc, opts),
      memoryGiB: r.accelerator.memoryGiB,
      budgetGiB: gib(r.plan.budgetBytes),
      weightsGiB: gib(r.plan.weightBytesPerRank),
      reserveGiB: gib(r.plan.reserveBytes),
      kvPoolGiB: gib(r.plan.kvBytesPerRank),
      kvBytesPerToken: r.plan.kvBytesPerTokenPerRank,
      kvCapacityTokens: r.kvBlocks * 16,
      maxNumSeqs: r.engineOptions.maxNumSeqs ?? 256,
      maxNumBatchedTokens: budget,
      decodesInBudget: r.engineOptions.decodesInBudget ?? true,
      budgetReason: budgetReason(
        s,
        sched,
        framework,
        single ? { row, conc } : null,
        single ? opts.maxNumTokensPerRank : undefined,
      ),
      ...(r.engineOptions.dpBalance
        ? { dpBalance: r.engineOptions.dpBalance, dpBalanceReason: trtAdpTimeoutIters(row).reason }
        : {}),
      cudaGraphs: cudaGraphs(
        family,
        framework,
        r.accelerator,
        s,
        budget,
        piecewise(s, row, conc, opts),
        single ? { row, conc } : null,
      ),
    };
  });
  const pre = resolved[0]!;
  const dec = resolved[resolved.length - 1]!;
  const chunk = Math.min(isl, pre.r.engineOptions.maxNumBatchedTokens ?? 8192);
  const prefill = pre.r.perf.breakdown([{ newTokens: chunk, context: 0 }]);
  const width = 1 + (dec.r.engineOptions.spec?.draftTokens ?? 0);
  const context = isl + Math.floor(osl / 2);
  const fit = Math.floor((dec.r.kvBlocks * 16) / (context + width));
  const users = Math.min(dec.users, dec.r.engineOptions.maxNumSeqs ?? 256);
  const seqs = Math.max(1, Math.min(users, fit));
  const entries = Array.from({ length: seqs }, () => ({ newTokens: width, context }));
  const decode = dec.r.perf.breakdown(entries, width > 1 ? seqs : 0);
  const graphs = (memory[memory.length - 1] as MemoryExplain).cudaGraphs;
  const ranks = dec.setup.dpAttn ? (dec.setup.tp ?? 1) : 1;
  const perRank = Math.ceil(seqs / ranks) * (graphs.unit === 'tokens' ? width : 1);
  const above =
    graphs.ceiling !== null && perRank > graphs.ceiling
      ? { aboveCudaGraphs: { batch: perRank, ceiling: graphs.ceiling, unit: graphs.unit } }
      : {};
  const method = row['spec-decoding'];
  const spec =
    method === 'mtp' || method === 'draft_model' ? specOfRow(row, method, opts, conc, 'row') : null;
  return {
    memory,
    spec,
    phases: [
      {
        phase: 'prefill',
        seqs: 1,
        newTokensPerSeq: chunk,
        context: 0,
        breakdown: prefill,
        binding: binding(prefill),
        kvLimitedSeqs: null,
        // As the step model charges it (PerfModel.placesPrefillOnRanks): not where TensorRT-LLM balances them.
        ...(pre.r.perf.placesPrefillOnRanks ? { oneOfRanks: pre.setup.tp ?? 1 } : {}),
        ...(pre.r.perf.eagerMixedStepFloorMs > 0
          ? { eagerFloorMs: { ms: pre.r.perf.eagerMixedStepFloorMs, engine: framework } }
          : {}),
      },
      {
        phase: 'decode',
        ...above,
        seqs,
        newTokensPerSeq: width,
        context,
        breakdown: decode,
        binding: binding(decode),
        kvLimitedSeqs: fit < users ? fit : null,
      },
    ],
  };
}

function cudaGraphs(
  family: ReturnType<typeof engineFamily>,
  framework: string,
  acc: { id: string; memoryGiB: number },
  s: SimSetup,
  budget: number,
  piecewiseReason: string | null,
  /** A single engine's row and users, for its reference script's limits (trt-recipe.ts). */
  single: { row: Record<string, unknown>; conc: number } | null,
): CudaGraphExplain {
  const name = framework || 'no framework';
  const tp = s.tp ?? 1;
  const ranks = s.dpAttn ? tp : 1;
  if (family === 'vllm') {
    const seqs = vllmDefaultMaxNumSeqs(acc.memoryGiB, acc.id);
    const tokens = 1 + (s.spec?.draftTokens ?? 0);
    return {
      ceiling: vllmCudaGraphCeiling(seqs, tokens, Math.floor(budget / ranks)),
      unit: 'tokens',
      reason: `${name}: vLLM's default on a GPU of ${acc.memoryGiB} GiB, min(2 × its default max_num_seqs ${seqs} × ${tokens} decode token${tokens > 1 ? 's' : ''}, 512, the budget)`,
    };
  }
  if (family === 'sglang')
    return {
      ceiling: sglangCudaGraphMaxBs(acc.memoryGiB, tp),
      unit: 'requests',
      reason: `${name}: --cuda-graph-max-bs, SGLang's default on a GPU of ${acc.memoryGiB} GiB at tp ${tp}`,
    };
  const script = single ? trtCudaGraphBatch(single.row, single.conc) : null;
  if (piecewiseReason !== null)
    return {
      ceiling: script?.batch ?? null,
      unit: 'requests',
      reason: `${name}: piecewise CUDA graphs, so steps that carry a prompt replay graphs too (${piecewiseReason}); ${script ? script.reason : "decode batch limits come from the recipe's cuda_graph_config, not known here"}`,
    };
  if (script) return { ceiling: script.batch, unit: 'requests', reason: `${name}: ${script.reason}` };
  return {
    ceiling: null,
    unit: 'requests',
    reason:
      family === 'trt'
        ? `${name}: cuda_graph_config comes from the recipe's extra options; not known here`
        : `${name}: not modelled`,
  };
}

/** Where a pool's token budget comes from: the options, the MTP scripts' rule (singleEngineAt), or the framework. */
function budgetReason(
  s: SimSetup,
  sched: { maxNumBatchedTokens: number; reason: string },
  framework: string,
  script: { row: Record<string, unknown>; conc: number } | null,
  perRankOption: number | undefined,
): string {
  if (perRankOption !== undefined) return `set by the options: max_num_tokens ${perRankOption} per DP rank`;
  const b = script ? trtScriptBudget(script.row, script.conc, s.spec?.draftTokens ?? 0) : null;
  if (b) return `${framework}: ${b.reason}${s.dpAttn && (s.tp ?? 1) > 1 ? ` (× ${s.tp})` : ''}`;
  return sched.reason;
}

/** What the memory fraction is a share of, and where its value comes from: the options, the script, the default. */
function fractionReason(
  memoryReason: string,
  single: boolean,
  row: Record<string, unknown>,
  conc: number,
  opts: RowSetupOptions,
): string {
  if (opts.gpuMemoryUtilization !== undefined) return `${memoryReason}; --gpu-memory-utilization`;
  const kv = single ? trtKvMemoryFraction(row, conc) : null;
  return kv ? `${memoryReason}; the reference's ${kv.reason}` : `${memoryReason}; the default`;
}

/** Why a pool's engine runs piecewise CUDA graphs, or null where it does not. */
function piecewise(
  s: SimSetup,
  row: Record<string, unknown>,
  conc: number,
  opts: RowSetupOptions,
): string | null {
  if (!s.piecewiseCudaGraphs) return null;
  return opts.piecewiseCudaGraphs !== undefined ? 'set by the options' : trtPiecewiseCudaGraphs(row, conc);
}

const f1 = (x: number) => x.toFixed(1);
const f2 = (x: number) => x.toFixed(2);

/** Indented lines for a terminal, under the point's own line. */
export function formatExplain(e: PointExplain): string[] {
  const out: string[] = [];
  for (const m of e.memory) {
    const who =
      m.pool === 'engine' ? `engine${m.workers > 1 ? ` ×${m.workers}` : ''}` : `${m.pool} ×${m.workers}`;
    out.push(
      `  memory (${who}, ${m.accelerator}, per rank): ${f1(m.memoryGiB)} GiB; budget ${f1(m.budgetGiB)} GiB ` +
        `(${m.gpuMemoryUtilization} of ${m.fractionOf === 'free' ? 'the memory free after weights' : 'the GPU'}: ` +
        `${m.fractionReason}) = weights ${f1(m.weightsGiB)} + reserve ${f1(m.reserveGiB)} + KV ${f1(m.kvPoolGiB)}`,
    );
    out.push(
      `  KV cache: ${m.kvPrecision} (${m.kvReason}), ${m.kvBytesPerToken} B/token/rank, ` +
        `${m.kvCapacityTokens} tokens per engine; max ${m.maxNumSeqs} seqs`,
    );
    out.push(
      `  token budget: ${m.maxNumBatchedTokens} per step${m.decodesInBudget ? '' : ' for prefill chunks (decodes outside it)'} (${m.budgetReason})`,
      ...(m.dpBalance
        ? [
            `  attention-DP balancer: a prompt waits until each of the ${m.dpBalance.ranks} ranks has one, at most ${m.dpBalance.timeoutSteps} steps (attention_dp_config enable_balance, timeout_iters ${m.dpBalance.timeoutSteps}: ${m.dpBalanceReason})`,
          ]
        : []),
    );
    const g = m.cudaGraphs;
    out.push(
      g.ceiling === null
        ? `  CUDA graphs: ${g.reason}`
        : `  CUDA graphs: decode batches up to ${g.ceiling} ${g.unit} per rank (${g.reason})`,
    );
  }
  if (e.spec) {
    const k = e.spec.draftTokens;
    out.push(
      `  speculative decoding: ${e.spec.method}, ${k} draft token${k > 1 ? 's' : ''} per step (${e.spec.draftSource}); ` +
        `acceptance length ${e.spec.acceptanceLength} (${e.spec.alSource})`,
    );
  }
  for (const p of e.phases) {
    const b = p.breakdown;
    out.push(
      `  ${p.phase}: ${p.seqs} seq × ${p.newTokensPerSeq} tokens at context ${p.context}: ${f2(b.totalMs)} ms/step ` +
        `(GEMMs ${f2(b.gemmPhaseMs)} and attention ${f2(b.attentionPhaseMs)}, one after the other, ` +
        `each the larger of its compute and its memory reads: compute ${f2(b.computeMs)}, memory ${f2(b.memoryMs)}; comm ${f2(b.commMs)}, ` +
        `fixed ${f2(b.floorMs + b.eagerMs + b.overheadMs + b.draftMs)}) — bound by ${p.binding}` +
        (p.kvLimitedSeqs !== null ? `; the KV cache caps the batch at ${p.kvLimitedSeqs} seqs` : '') +
        (p.eagerFloorMs
          ? `; ${p.eagerFloorMs.engine} runs a step that carries a prompt without CUDA graphs, so it takes at least ${f2(p.eagerFloorMs.ms)} ms${b.eagerMs > 0 ? ` (${f2(b.eagerMs)} ms more than its kernels take)` : ''}`
          : '') +
        (p.oneOfRanks
          ? `; with DP-attention a lone request's prefill runs on one of ${p.oneOfRanks} ranks, and the others wait for it`
          : '') +
        (p.aboveCudaGraphs
          ? `; ${p.aboveCudaGraphs.batch} ${p.aboveCudaGraphs.unit} per rank is above the CUDA graph ceiling (${p.aboveCudaGraphs.ceiling}): the engine runs those steps without graphs, slower than this estimate (not modelled)`
          : ''),
    );
  }
  return out;
}

/** The explanation of a predicted outcome of `predictRows(doc)`; null for points not predicted. */
export function explainOutcome(
  doc: unknown,
  o: PointOutcome,
  opts: RowSetupOptions = {},
): PointExplain | null {
  if (o.status !== 'ok' || o.conc === null) return null;
  const rows = Array.isArray(doc) ? doc : [doc];
  return explainPoint(rows[o.row] as Record<string, unknown>, o.conc, opts);
}
