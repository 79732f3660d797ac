import { accelerator, model } from '../../catalog/index.ts';
import { GIB, type MemoryPlan, memoryPlan, type Parallelism } from '../../catalog/memory.ts';
import type { AcceleratorSpec, ModelSpec, Precision } from '../../schema/catalog.ts';
import { InfxError } from '../../schema/errors.ts';
import { type EngineHooks, type EngineOptions, SimEngine } from './engine.ts';
import { DEFAULT_BATCHED_TOKENS, type EngineFamily } from './engine-profile.ts';
import { DEFAULT_HOST_KV_GBPS, type HostKvOptions } from './host-tier.ts';
import { BLOCK_SIZE } from './kv-cache.ts';
import { PerfModel } from './perf-model.ts';
import { type SpecDecodingConfig, validateSpec } from './spec-decode.ts';

/** The memory fraction an engine budgets where neither the options nor its recipe give one. */
export const DEFAULT_GPU_MEMORY_UTILIZATION = 0.9;

/** From names and flags (what `infx sim serve` or a matrix row gives) to a ready engine. */

export interface SimSetup {
  /** Model id, alias or master-config prefix (catalog `model()`). */
  model: string;
  /** Accelerator id (catalog `accelerator()`). */
  hardware: string;
  /** Weight precision; default bf16. */
  precision?: Precision;
  /** KV-cache precision; default fp8 for fp4 checkpoints (their recipes set it), else bf16. */
  kvPrecision?: Precision;
  tp?: number;
  pp?: number;
  ep?: number;
  dpAttn?: boolean;
  /** Default 0.9 (vLLM). */
  gpuMemoryUtilization?: number;
  /** Non-weight, non-KV memory per rank (catalog default when absent). */
  reserveGiB?: number;
  /** What gpuMemoryUtilization is a fraction of (catalog memoryPlan): total (default) or free. */
  memoryFractionOf?: 'total' | 'free';
  /** Default 256 (vLLM). */
  maxNumSeqs?: number;
  /** Default 8192 (vLLM V1 online serving). */
  maxNumBatchedTokens?: number;
  /** Whether decodes take from maxNumBatchedTokens (EngineOptions.decodesInBudget); default true (vLLM). */
  decodesInBudget?: boolean;
  /** Default true (vLLM V1). */
  chunkedPrefill?: boolean;
  /** Default false. */
  prefixCaching?: boolean;
  /**
   * Host DRAM for KV offloading (a matrix row's `total-cpu-dram-gb` with `kv-offloading: dram`), GB
   * (decimal) for the whole engine; 0 or absent: no host tier. Needs prefix caching.
   */
  kvOffloadDramGb?: number;
  /** Host-link bandwidth per GPU for KV copies, GB/s; default DEFAULT_HOST_KV_GBPS (PCIe Gen5). */
  hostKvGbps?: number;
  spec?: SpecDecodingConfig | null;
  /** Seeds the acceptance-length draws; default 0. */
  seed?: number;
  /** The engine family (engine-profile.ts) whose kernels the step times follow; default 'other'. */
  engineFamily?: EngineFamily;
  /**
   * With DP-attention: TensorRT-LLM's attention-DP balancer holds prompts until every rank has one or this
   * many steps have passed (dp-balancer.ts); absent: prompts are admitted at once.
   */
  dpBalanceTimeoutSteps?: number;
  /**
   * The engine captures piecewise CUDA graphs around attention, so a step that carries a prompt replays graphs
   * too (TensorRT-LLM's `enable_piecewise_cuda_graph`): no eager floor (EAGER_LAYER_US). Default false.
   */
  piecewiseCudaGraphs?: boolean;
}

export interface ResolvedSim {
  model: ModelSpec;
  accelerator: AcceleratorSpec;
  precision: Precision;
  kvPrecision: Precision;
  par: Parallelism;
  gpus: number;
  plan: MemoryPlan;
  kvBlocks: number;
  perf: PerfModel;
  engineOptions: EngineOptions;
}

export class SimSetupError extends InfxError {
  override name = 'SimSetupError';
}

function positiveInt(name: string, v: number | undefined, dflt: number): number {
  const x = v ?? dflt;
  if (!Number.isInteger(x) || x < 1) throw new SimSetupError(`${name} must be an integer >= 1, got ${x}`);
  return x;
}

const gib = (bytes: number) => (bytes / GIB).toFixed(1);

/** Resolves names against the catalog and sizes the KV cache; throws CatalogError or SimSetupError. */
export function resolveSim(setup: SimSetup): ResolvedSim {
  const m = model(setup.model);
  const acc = accelerator(setup.hardware);
  const precision = setup.precision ?? 'bf16';
  const kvPrecision = setup.kvPrecision ?? (precision === 'fp4' ? 'fp8' : 'bf16');
  const par: Parallelism = {
    tp: positiveInt('tp', setup.tp, 1),
    pp: positiveInt('pp', setup.pp, 1),
    ep: positiveInt('ep', setup.ep, 1),
    dpAttn: setup.dpAttn ?? false,
  };
  if (par.ep > par.tp) {
    throw new SimSetupError(
      `ep (${par.ep}) cannot exceed tp (${par.tp}): the EP group lives inside the TP ranks`,
    );
  }
  if (par.tp > acc.scaleUp.domainGpus) {
    throw new SimSetupError(
      `tp ${par.tp} exceeds the ${acc.scaleUp.domainGpus}-GPU scale-up domain of ${acc.id}: ` +
        'tensor parallelism across nodes is not simulated',
    );
  }
  const gpuMemoryUtilization = setup.gpuMemoryUtilization ?? DEFAULT_GPU_MEMORY_UTILIZATION;
  if (!(gpuMemoryUtilization > 0 && gpuMemoryUtilization <= 1)) {
    throw new SimSetupError(`gpu memory utilization must be in (0, 1], got ${gpuMemoryUtilization}`);
  }
  if (setup.spec) {
    try {
      validateSpec(setup.spec);
    } catch (err) {
      throw new SimSetupError((err as Error).message);
    }
  }
  const plan = memoryPlan(acc, m, {
    precision,
    kvPrecision,
    par,
    gpuMemoryUtilization,
    ...(setup.reserveGiB !== undefined ? { reserveGiB: setup.reserveGiB } : {}),
    ...(setup.memoryFractionOf ? { fractionOf: setup.memoryFractionOf } : {}),
  });
  const kvBlocks = Math.floor(Math.min(plan.kvTokens, 2 ** 31) / BLOCK_SIZE);
  if (kvBlocks < 1) {
    throw new SimSetupError(
      `${m.id} at ${precision} does not fit on ${acc.id} with tp=${par.tp} pp=${par.pp}` +
        `${par.dpAttn ? ' dp-attn' : ''}: weights need ${gib(plan.weightBytesPerRank)} GiB per rank plus ` +
        `${gib(plan.reserveBytes)} GiB reserve; budget ${gib(plan.budgetBytes)} GiB ` +
        `(${acc.memoryGiB} GiB × ${gpuMemoryUtilization}). Raise tp/pp or the memory utilization.`,
    );
  }
  const perf = new PerfModel({
    model: m,
    accelerator: acc,
    precision,
    kvPrecision,
    par,
    spec: setup.spec ?? null,
    ...(setup.engineFamily ? { family: setup.engineFamily } : {}),
    ...(setup.piecewiseCudaGraphs ? { piecewiseCudaGraphs: true } : {}),
  });
  const hostKv = hostKvOf(setup, plan, perf.gpus);
  const engineOptions: EngineOptions = {
    timer: perf,
    kvBlocks,
    maxNumSeqs: positiveInt('max-num-seqs', setup.maxNumSeqs, 256),
    maxNumBatchedTokens: positiveInt(
      'max-num-batched-tokens',
      setup.maxNumBatchedTokens,
      DEFAULT_BATCHED_TOKENS,
    ),
    decodesInBudget: setup.decodesInBudget ?? true,
    chunkedPrefill: setup.chunkedPrefill ?? true,
    prefixCaching: setup.prefixCaching ?? false,
    hostKv,
    spec: setup.spec ?? null,
    seed: setup.seed ?? 0,
    dpBalance:
      setup.dpBalanceTimeoutSteps !== undefined && par.dpAttn && par.tp > 1
        ? { ranks: par.tp, timeoutSteps: setup.dpBalanceTimeoutSteps }
        : null,
  };
  return {
    model: m,
    accelerator: acc,
    precision,
    kvPrecision,
    par,
    gpus: perf.gpus,
    plan,
    kvBlocks,
    perf,
    engineOptions,
  };
}

/**
 * The host tier of a setup: every rank keeps its shard of a block in its share of the DRAM and copies it
 * over its own host link, so capacity and copy time follow the per-rank KV bytes.
 */
function hostKvOf(setup: SimSetup, plan: MemoryPlan, gpus: number): HostKvOptions | null {
  const gb = setup.kvOffloadDramGb ?? 0;
  if (!(Number.isFinite(gb) && gb >= 0)) {
    throw new SimSetupError(`the KV offload DRAM budget must be a number of GB >= 0, got ${gb}`);
  }
  if (gb === 0) return null;
  if (!setup.prefixCaching) {
    throw new SimSetupError('KV offloading to DRAM needs prefix caching (turn on --prefix-caching)');
  }
  const gbps = setup.hostKvGbps ?? DEFAULT_HOST_KV_GBPS;
  if (!(Number.isFinite(gbps) && gbps > 0)) {
    throw new SimSetupError(`the host KV bandwidth must be a number of GB/s > 0, got ${gbps}`);
  }
  const perRank = plan.kvBytesPerTokenPerRank;
  if (!(perRank > 0)) throw new SimSetupError('KV offloading to DRAM: this model keeps no per-token KV');
  const blocks = Math.floor((gb * 1e9) / gpus / (perRank * BLOCK_SIZE));
  if (blocks < 1) {
    throw new SimSetupError(`${gb} GB of DRAM holds no KV block of ${perRank * BLOCK_SIZE} bytes per rank`);
  }
  return { blocks, loadMsPerToken: (perRank / (gbps * 1e9)) * 1000, bytesPerToken: perRank * gpus };
}

/** Resolves the setup and builds an engine on it (what `infx sim serve` calls). */
export function createSimEngine(
  setup: SimSetup,
  hooks: EngineHooks = {},
): { engine: SimEngine; resolved: ResolvedSim } {
  const resolved = resolveSim(setup);
  return { engine: new SimEngine(resolved.engineOptions, hooks), resolved };
}
