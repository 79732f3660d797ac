import {
  GIB,
  kvBytesPerTokenPerRank,
  memoryPlan,
  type Parallelism,
  stateBytesPerSeqPerRank,
  weightBytesPerRank,
} from '../catalog/index.ts';
import type { AcceleratorSpec, ModelSpec, Precision } from '../schema/catalog.ts';
import type { CheckPoint, Pool } from './points.ts';
import {
  AGENTIC_FANOUT,
  AGENTIC_MIN_TOKENS_PER_SEQUENCE,
  type EngineFamily,
  ESTIMATE_MARGIN,
  engineFamily,
  INDEXER_BATCHED_TOKENS,
  INDEXER_BYTES_PER_ELEMENT,
  MTP_DRAFT_LAYERS,
} from './rules.ts';

/**
 * The memory arithmetic of one engine pool of one point: what each rank must hold to start, and whether
 * the KV left holds the point's running set. Bytes throughout; messages in GiB (2^30 bytes).
 */

export interface EngineSettings {
  gpuMemoryUtilization: number;
  /** KV-cache precision; 'auto' picks per model (see kvPrecisionFor). */
  kvCacheDtype: 'auto' | Precision;
  /** Engine reserve per rank, GiB; undefined: the catalog's DEFAULT_RESERVE_GIB. */
  reserveGiB?: number | undefined;
  /** Engram tables held in host memory (vLLM `--engram-config '{"cpu_offload":true}'`); default: on the GPU. */
  engramOffload?: boolean | undefined;
}

/** A DSA-style indexer: sparse attention on an MLA model (DeepSeek-V3.2/V4, GLM-5). */
export const hasIndexer = (m: ModelSpec) => m.sparseAttentionTopK !== null && m.attention.kind === 'MLA';

/**
 * The engines' `--kv-cache-dtype auto`: the activation dtype (bf16), except for DSA models, whose sparse MLA
 * kernels cache an fp8 latent (DeepSeek-V3.2/V4 in vLLM and SGLang).
 */
export function kvPrecisionFor(m: ModelSpec, dtype: EngineSettings['kvCacheDtype']): Precision {
  if (dtype !== 'auto') return dtype;
  return hasIndexer(m) ? 'fp8' : 'bf16';
}

export interface PoolPlan {
  acc: AcceleratorSpec;
  family: EngineFamily;
  util: number;
  kvPrecision: Precision;
  par: Parallelism;
  /** Engines in the pool. */
  engines: number;
  /** What the utilization bounds: memory × u (vllm, sglang), or the whole memory (trtllm). */
  budget: number;
  weights: number;
  draft: number;
  reserve: number;
  indexer: number;
  /** Engram tables on a rank (row-sharded over TP); 0 when the model has none or they live in host memory. */
  engram: number;
  /** What is charged against the budget before KV, by name (weights first). */
  parts: Array<[string, number]>;
  /** The KV pool of one rank (negative: the bytes missing for even one token). */
  kvPool: number;
  /** KV bytes per token on one rank (MTP draft layer and context-parallel split included). */
  kvPerToken: number;
  statePerSeq: number;
  maxModelLen: number;
  /** Bytes one max-model-len sequence needs on a rank. */
  startNeed: number;
  /** The running set on one rank (null: not checked), tokens per sequence, and bytes needed. */
  seqsPerRank: number | null;
  ctxTokens: number;
  runNeed: number;
  /** Host DRAM of the KV offload tier per rank. */
  dramPerRank: number;
}

const ceilDiv = (a: number, b: number) => Math.ceil(a / b);

/** The KV pool of a rank under each engine's reading of the utilization fraction (see EngineFamily). */
function kvPoolOf(
  family: EngineFamily,
  memory: number,
  util: number,
  c: { weights: number; draft: number; reserve: number; indexer: number; engram: number },
): { budget: number; parts: Array<[string, number]>; kvPool: number } {
  const weights: Array<[string, number]> = [['weights', c.weights]];
  if (c.draft > 0) weights.push(['MTP draft', c.draft]);
  if (c.engram > 0) weights.push(['Engram tables (GPU-resident)', c.engram]);
  const overhead: Array<[string, number]> = [['engine reserve', c.reserve]];
  if (c.indexer > 0) overhead.push(['indexer buffer', c.indexer]);
  const sum = (xs: Array<[string, number]>) => xs.reduce((n, [, b]) => n + b, 0);
  if (family === 'sglang') {
    const budget = memory * util;
    const spill = Math.max(0, sum(overhead) - (memory - budget));
    const parts =
      spill > 0
        ? [...weights, ['reserve and buffers beyond the other 1 − u', spill] as [string, number]]
        : weights;
    return { budget, parts, kvPool: budget - sum(parts) };
  }
  const parts = [...weights, ...overhead];
  if (family === 'trtllm') {
    const free = memory - sum(parts);
    return { budget: memory, parts, kvPool: free > 0 ? free * util : free };
  }
  const budget = memory * util;
  return { budget, parts, kvPool: budget - sum(parts) };
}

/** How to free a rank's GPU-resident Engram tables. */
const ENGRAM_FIX = (bytes: number) =>
  `hold the ${gib(bytes)} of Engram tables in host memory: --engram-config '{"cpu_offload":true}' in the recipe ` +
  '(vLLM on CUDA; ROCm rejects the flag), then check with infx check --engram-offload';

export function planPool(
  point: CheckPoint,
  pool: Pool,
  m: ModelSpec,
  acc: AcceleratorSpec,
  precision: Precision,
  s: EngineSettings,
): PoolPlan {
  const par: Parallelism = { tp: pool.tp, pp: pool.pp, ep: pool.ep, dpAttn: pool.dpAttn };
  const kvPrecision = kvPrecisionFor(m, s.kvCacheDtype);
  const util = s.gpuMemoryUtilization;
  const base = memoryPlan(acc, m, {
    precision,
    kvPrecision,
    par,
    gpuMemoryUtilization: util,
    ...(s.reserveGiB === undefined ? {} : { reserveGiB: s.reserveGiB }),
  });
  const mtp = point.specDecoding === 'mtp';
  // A prefill-context-parallel group shares one copy of the weights (tp=1 pcp=8 could not hold them
  // otherwise): weights shard over tp × pcp. Optimistic where an engine replicates them across PCP ranks.
  const weights =
    pool.pcp > 1
      ? weightBytesPerRank(m, precision, { ...par, tp: pool.tp * pool.pcp })
      : base.weightBytesPerRank;
  const draft = mtp ? (weights / m.layers) * MTP_DRAFT_LAYERS : 0;
  const maxModelLen = point.maxModelLen ?? m.maxContext;
  const indexer = hasIndexer(m) ? INDEXER_BATCHED_TOKENS * maxModelLen * INDEXER_BYTES_PER_ELEMENT : 0;
  const engram = m.engramTablesGiB && !s.engramOffload ? (m.engramTablesGiB * GIB) / pool.tp : 0;
  const family = engineFamily(point.framework);
  const { budget, parts, kvPool } = kvPoolOf(family, acc.memoryGiB * GIB, util, {
    weights,
    draft,
    reserve: base.reserveBytes,
    indexer,
    engram,
  });
  const draftKv = mtp && m.kvLayers > 0 ? (m.kvLayers + MTP_DRAFT_LAYERS) / m.kvLayers : 1;
  const kvPerToken = (kvBytesPerTokenPerRank(m, kvPrecision, par) * draftKv) / (pool.dcp * pool.pcp);
  const statePerSeq = stateBytesPerSeqPerRank(m, par);
  const agentic = point.scenario === 'agentic-coding';
  const ctxTokens = agentic ? AGENTIC_MIN_TOKENS_PER_SEQUENCE : point.isl! + point.osl!;
  let seqsPerRank: number | null = null;
  if (pool.sequences !== null) {
    const perEngine = ceilDiv(pool.sequences, pool.engines);
    seqsPerRank = pool.dpAttn ? ceilDiv(perEngine, pool.tp) : perEngine;
  }
  const gpusPerEngine = pool.tp * pool.pp * pool.pcp;
  return {
    acc,
    family,
    util,
    kvPrecision,
    par,
    engines: pool.engines,
    budget,
    weights,
    draft,
    reserve: base.reserveBytes,
    indexer,
    engram,
    parts,
    kvPool,
    kvPerToken,
    statePerSeq,
    maxModelLen,
    startNeed: maxModelLen * kvPerToken + statePerSeq,
    seqsPerRank,
    ctxTokens,
    runNeed: seqsPerRank === null ? 0 : seqsPerRank * (ctxTokens * kvPerToken + statePerSeq),
    dramPerRank: (pool.offloadDramGb * 1e9) / (pool.engines * gpusPerEngine),
  };
}

export const gib = (bytes: number) => {
  const v = bytes / GIB;
  return `${Math.abs(v) < 0.1 && v !== 0 ? v.toFixed(3) : v.toFixed(1)} GiB`;
};
const num = (bytes: number) => Math.round((bytes / GIB) * 10) / 10;

/** A finding before the config key and point are attached. */
export interface MemoryFinding {
  severity: 'error' | 'warning';
  rule: 'memory.weights' | 'memory.kv-context' | 'memory.kv-running-set';
  message: string;
  fix: string;
  numbers: Record<string, number>;
}

function budgetText(p: PoolPlan): string {
  const mem = `${p.acc.memoryGiB} GiB`;
  if (p.family === 'sglang')
    return `static budget ${gib(p.budget)} (${mem} × ${p.util} mem-fraction-static, weights and KV)`;
  if (p.family === 'trtllm') return `${mem} of memory (KV gets ${p.util} of what is left)`;
  return `budget ${gib(p.budget)} (${mem} × ${p.util})`;
}

/** "W of weights + D MTP draft + R engine reserve + I indexer buffer": what a rank holds besides KV. */
function fixedParts(p: PoolPlan): string {
  return p.parts.map(([name, bytes], i) => `${gib(bytes)}${i === 0 ? ' of' : ''} ${name}`).join(' + ');
}

const fixedSum = (p: PoolPlan) => p.parts.reduce((n, [, b]) => n + b, 0);

/** The KV the point needs at least, in words: its running set, or one max-model-len sequence. */
function kvNeedText(p: PoolPlan, agentic: boolean): { bytes: number; text: string } {
  if (p.seqsPerRank !== null && !agentic) {
    return { bytes: p.runNeed, text: `${p.seqsPerRank}×${p.ctxTokens} tokens` };
  }
  return { bytes: p.startNeed, text: `one ${p.maxModelLen}-token sequence` };
}

function numbers(p: PoolPlan): Record<string, number> {
  const out: Record<string, number> = {
    budgetGiB: num(p.budget),
    weightsGiB: num(p.weights),
    reserveGiB: num(p.reserve),
    indexerGiB: num(p.indexer),
    engramGiB: num(p.engram),
    draftGiB: num(p.draft),
    kvAvailableGiB: num(p.kvPool),
    kvOneSequenceGiB: num(p.startNeed),
    maxModelLenTokens: p.maxModelLen,
  };
  if (p.seqsPerRank !== null) {
    out.kvRunningSetGiB = num(p.runNeed);
    out.sequencesPerRank = p.seqsPerRank;
    out.tokensPerSequence = p.ctxTokens;
  }
  if (p.dramPerRank > 0) out.dramPerRankGiB = num(p.dramPerRank);
  return out;
}

/** Start check: a max-model-len sequence fits on a rank after everything else. */
export const starts = (p: PoolPlan) => p.kvPool > 0 && p.kvPool >= p.startNeed;

/** Running-set check, with the DRAM tier added where the row offloads. */
export const holdsRunningSet = (p: PoolPlan) =>
  p.seqsPerRank === null || p.kvPool + p.dramPerRank >= p.runNeed;

/** Bytes a start is short by (<= 0: it starts). */
const shortfall = (p: PoolPlan) => p.startNeed - p.kvPool;

/**
 * Findings for one pool: at most one of memory.weights / memory.kv-context (the engine cannot start), else
 * possibly memory.kv-running-set. `fp8` is the same pool with an fp8 KV cache (the most a recipe can do
 * short of changing the topology); `biggerTp` proposes the smallest larger tp that starts (or runs the set).
 *
 * A start failure is an error only when it is certain: short even with fp8 KV, by more than the estimate
 * margin (ESTIMATE_MARGIN of device memory). Otherwise it is a warning that says which assumption decides.
 */
export function poolFindings(
  point: CheckPoint,
  p: PoolPlan,
  fp8: PoolPlan,
  biggerTp: (want: 'start' | 'run') => PoolPlan | null,
): MemoryFinding[] {
  const agentic = point.scenario === 'agentic-coding';
  const tpFix = (want: 'start' | 'run'): string | null => {
    const q = biggerTp(want);
    if (!q) return null;
    return `raise tp: tp=${q.par.tp}${q.par.ep !== p.par.ep ? ` ep=${q.par.ep}` : ''} needs ${gib(q.weights)} of weights per rank and leaves ${gib(q.kvPool)} for KV`;
  };
  if (!starts(p)) {
    const margin = ESTIMATE_MARGIN * p.acc.memoryGiB * GIB;
    const missing = shortfall(fp8);
    const severity = missing > margin ? 'error' : 'warning';
    let verdict = 'the engine refuses to start';
    const fixes: Array<string | null> = [];
    if (missing <= 0) {
      verdict = `with ${p.kvPrecision} KV the engine refuses to start; with fp8 KV it needs ${gib(fp8.startNeed)} and fits`;
      fixes.push('set --kv-cache-dtype fp8 in the recipe');
    } else if (severity === 'warning') {
      verdict = `the engine likely refuses to start (short by ${gib(missing)}${fp8 !== p ? ' even with fp8 KV' : ''}, within the ${gib(margin)} margin of these estimates: confirm with a launch)`;
    }
    fixes.push(tpFix('start'));
    if (p.kvPool <= 0) {
      const need = kvNeedText(p, agentic);
      const head =
        p.weights > p.budget
          ? `needs ${gib(p.weights)} of weights per rank`
          : `needs ${fixedParts(p)} = ${gib(fixedSum(p))} per rank`;
      fixes.push('or use a lower precision');
      if (p.engram > 0) fixes.push(`or ${ENGRAM_FIX(p.engram)}`);
      return [
        {
          severity,
          rule: 'memory.weights',
          message: `${head}; ${budgetText(p)}; nothing left for KV (needs ≥ ${gib(need.bytes)} for ${need.text})${severity === 'error' ? '' : `: ${verdict}`}`,
          fix: fixes.filter((f) => f !== null).join(', '),
          numbers: numbers(p),
        },
      ];
    }
    const why = agentic
      ? `one ${p.maxModelLen}-token sequence (agentic engines run at the model's native context)`
      : `one ${p.maxModelLen}-token sequence (max-model-len)`;
    if (agentic && point.kvOffloading === 'dram') {
      fixes.push(
        'offloading KV to DRAM does not help: the engine must hold one sequence in GPU memory to start',
      );
    }
    if (p.indexer > 0)
      fixes.push(`a smaller --max-num-batched-tokens shrinks the ${gib(p.indexer)} indexer buffer`);
    if (p.engram > 0) fixes.push(ENGRAM_FIX(p.engram));
    return [
      {
        severity,
        rule: 'memory.kv-context',
        message:
          `leaves ${gib(p.kvPool)} of KV per rank after ${fixedParts(p)} in the ${budgetText(p)}; ` +
          `${why} needs ${gib(p.startNeed)}: ${verdict}`,
        fix: fixes.filter((f) => f !== null).join('; ') || 'use more GPUs per engine or a lower precision',
        numbers: numbers(p),
      },
    ];
  }
  // The running set is judged with the most KV a recipe could have (fp8), so the warning is not an artefact
  // of the KV dtype assumption.
  const r = fp8;
  if (holdsRunningSet(r)) return [];
  const evenFp8 = r !== p && p.kvPrecision !== 'fp8' ? ' (even with an fp8 KV cache)' : '';
  const seqs = r.seqsPerRank!;
  const perSeq = r.ctxTokens * r.kvPerToken + r.statePerSeq;
  const capacity = r.kvPool + r.dramPerRank;
  const fit = Math.max(0, Math.floor(capacity / perSeq));
  // Sequences per rank → the point's concurrency: times the DP ranks of an engine and the engines.
  const pointSeqs = fit * (r.par.dpAttn ? r.par.tp : 1) * r.engines;
  const where =
    r.dramPerRank > 0 ? `${gib(r.kvPool)} on GPU + ${gib(r.dramPerRank)} DRAM tier` : `${gib(r.kvPool)}`;
  const fixes: string[] = [];
  const tp = tpFix('run');
  if (tp) fixes.push(tp);
  let message: string;
  if (agentic) {
    // Each sequence's fixed state (linear-attention, draft) comes off its share before its tokens do.
    const tokensEach = Math.max(0, Math.floor((capacity / seqs - r.statePerSeq) / r.kvPerToken));
    message =
      `KV per rank holds ${where}${evenFp8}; ${seqs} in-flight sequences (${AGENTIC_FANOUT} × conc ${point.conc} for ` +
      `subagent fan-out) get ~${tokensEach} tokens each, below the ${r.ctxTokens} a coding-agent system ` +
      `prompt and tools need: expect constant preemption and re-prefill`;
    const lanes = Math.floor(pointSeqs / AGENTIC_FANOUT);
    if (lanes >= 1) fixes.push(`lower conc to ≤ ${lanes}`);
    if (point.kvOffloading !== 'dram') fixes.push('enable kv-offloading: dram');
  } else {
    message =
      `KV per rank holds ${where} after ${fixedParts(r)}${evenFp8}; ${seqs} sequences × ${r.ctxTokens} tokens need ` +
      `${gib(r.runNeed)}: at most ${fit} run at once, so the point measures a batch of ${fit}, not ${seqs}`;
    if (pointSeqs >= 1) fixes.push(`lower conc to ≤ ${pointSeqs}`);
  }
  return [
    {
      severity: 'warning',
      rule: 'memory.kv-running-set',
      message,
      fix: fixes.join(', ') || 'use more GPUs per engine',
      numbers: numbers(r),
    },
  ];
}
