import {
  isAgentic,
  isMultiNode,
  type MatrixRow,
  type MultiNodeAgenticRow,
  type MultiNodeFixedRow,
  type RowWorker,
  rowConcs,
  type SingleNodeAgenticRow,
  type SingleNodeFixedRow,
} from '../schema/matrix-row.ts';

/**
 * Matrix rows → the points `infx check` evaluates: one per concurrency, each with the engine pools that have
 * to fit (one for a single-node point; prefill and decode pools, each with its own parallelism, for a
 * multi-node point).
 */

export interface Pool {
  /** null: the single engine of a single-node point. */
  role: 'prefill' | 'decode' | null;
  /** Engines in the pool (num-worker); 1 for a single-node point. */
  engines: number;
  tp: number;
  ep: number;
  pp: number;
  dpAttn: boolean;
  /** Context-parallel sizes: each shards a sequence's KV over its ranks. */
  dcp: number;
  pcp: number;
  /** What the catalog is asked for: the worker's hardware when a multi-node row names one, else the runner. */
  hardware: string;
  /**
   * The running set the pool holds at once over all its engines, or null when it is not checked (a
   * disaggregated prefill pool holds a sequence's KV only until the transfer).
   */
  sequences: number | null;
  /** max-num-seqs (or max-running-requests) per engine, where the row's worker settings state one. */
  maxNumSeqs: number | null;
  /** Host DRAM (decimal GB) of the KV offload tier for the whole pool, 0 when it does not offload. */
  offloadDramGb: number;
}

export interface CheckPoint {
  scenario: 'fixed-seq-len' | 'agentic-coding';
  image: string;
  model: string;
  modelPrefix: string;
  precision: string;
  framework: string;
  runner: string;
  specDecoding: string;
  conc: number;
  /** Fixed-seq-len only. */
  isl: number | null;
  osl: number | null;
  /** Fixed-seq-len: the row's max-model-len; agentic: null (the engine runs at the model's native context). */
  maxModelLen: number | null;
  kvOffloading: 'none' | 'dram';
  pools: Pool[];
  /** e.g. "tp=2 ep=1 conc=64 isl=8192 osl=1024". */
  label: string;
  /** The label without its concurrency. */
  topology: string;
}

const MAX_NUM_SEQS_SETTING = /^(?:MAX_NUM_SEQS|MAX_RUNNING_REQUESTS|MAX_RUNNING_REQS|MAX_BATCH_SIZE)=(\d+)$/i;

/** max-num-seqs stated in a worker's additional-settings (KEY=VALUE environment strings), or null. */
export function statedMaxNumSeqs(w: RowWorker): number | null {
  for (const s of w['additional-settings'] ?? []) {
    const m = MAX_NUM_SEQS_SETTING.exec(s.trim());
    if (m) return Number(m[1]);
  }
  return null;
}

function parTag(p: {
  tp: number;
  ep: number;
  pp: number;
  dpAttn: boolean;
  dcp: number;
  pcp: number;
}): string {
  const parts = [`tp=${p.tp}`, `ep=${p.ep}`];
  if (p.pp > 1) parts.push(`pp=${p.pp}`);
  if (p.dcp > 1) parts.push(`dcp=${p.dcp}`);
  if (p.pcp > 1) parts.push(`pcp=${p.pcp}`);
  if (p.dpAttn) parts.push('dp-attn');
  return parts.join(' ');
}

function workerTag(role: string, w: Pool): string {
  return `${role} ${w.engines}×(${parTag(w)})`;
}

function labels(topo: string, conc: number, tail: string): { label: string; topology: string } {
  return {
    label: [topo, `conc=${conc}`, tail].filter((s) => s !== '').join(' '),
    topology: [topo, tail].filter((s) => s !== '').join(' '),
  };
}

function rowPool(
  w: RowWorker,
  role: 'prefill' | 'decode',
  runner: string,
  sequences: number | null,
  offloadDramGb: number,
): Pool {
  return {
    role,
    engines: Math.max(w['num-worker'], 1),
    tp: w.tp,
    ep: w.ep,
    pp: w.pp,
    dpAttn: w['dp-attn'],
    dcp: w['dcp-size'],
    pcp: w['pcp-size'],
    hardware: w.hardware ?? runner,
    sequences,
    maxNumSeqs: statedMaxNumSeqs(w),
    offloadDramGb,
  };
}

/**
 * Prefill and decode pools of a multi-node point. Disaggregated (decode workers > 0): decode holds the
 * running set, prefill only has to start. Aggregated (decode num-worker 0): the prefill pool serves alone.
 * Only prefill offloads KV to host DRAM (matrix-spec §4).
 */
function multiPools(
  row: MultiNodeFixedRow | MultiNodeAgenticRow,
  sequences: number,
  offloadDramGb: number,
): Pool[] {
  const aggregated = row.decode['num-worker'] <= 0;
  const prefill = rowPool(row.prefill, 'prefill', row.runner, aggregated ? sequences : null, offloadDramGb);
  if (aggregated) return [prefill];
  return [prefill, rowPool(row.decode, 'decode', row.runner, sequences, 0)];
}

function singlePool(row: SingleNodeFixedRow | SingleNodeAgenticRow, sequences: number, dram: number): Pool {
  return {
    role: null,
    engines: 1,
    tp: row.tp,
    ep: row.ep,
    pp: row.pp,
    dpAttn: row['dp-attn'],
    dcp: row['dcp-size'],
    pcp: row['pcp-size'],
    hardware: row.runner,
    sequences,
    maxNumSeqs: null,
    offloadDramGb: dram,
  };
}

const identity = (row: MatrixRow) => ({
  image: row.image,
  model: row.model,
  modelPrefix: row['model-prefix'],
  precision: row.precision,
  framework: row.framework,
  runner: row.runner,
  specDecoding: row['spec-decoding'],
});

const specTag = (spec: string) => (spec === 'none' ? '' : `spec=${spec}`);

/**
 * The points of one matrix row. Agentic points hold up to AGENTIC_FANOUT × conc sequences (`fanout`);
 * fixed-seq-len points hold conc.
 */
export function rowPoints(row: MatrixRow, fanout: number): CheckPoint[] {
  if (isAgentic(row)) {
    const a = row;
    const kv = a['kv-offloading'];
    const dram = kv === 'dram' ? a['total-cpu-dram-gb'] : 0;
    const tail = [`kv=${kv}`, specTag(a['spec-decoding'])].filter((s) => s !== '').join(' ');
    return rowConcs(a).map((conc) => {
      const seqs = fanout * conc;
      const multi = isMultiNode(a);
      const pools = multi ? multiPools(a, seqs, dram) : [singlePool(a, seqs, dram)];
      const topo = multi ? pools.map((p) => workerTag(p.role!, p)).join(' ') : parTag(pools[0]!);
      return {
        scenario: 'agentic-coding' as const,
        ...identity(row),
        conc,
        isl: null,
        osl: null,
        maxModelLen: null,
        kvOffloading: kv,
        pools,
        ...labels(topo, conc, tail),
      };
    });
  }
  const f = row;
  const tail = [`isl=${f.isl}`, `osl=${f.osl}`, specTag(f['spec-decoding'])]
    .filter((s) => s !== '')
    .join(' ');
  return rowConcs(f).map((conc) => {
    const multi = isMultiNode(f);
    const pools = multi ? multiPools(f, conc, 0) : [singlePool(f, conc, 0)];
    const topo = multi ? pools.map((p) => workerTag(p.role!, p)).join(' ') : parTag(pools[0]!);
    return {
      scenario: 'fixed-seq-len' as const,
      ...identity(row),
      conc,
      isl: f.isl,
      osl: f.osl,
      maxModelLen: f['max-model-len'],
      kvOffloading: 'none' as const,
      pools,
      ...labels(topo, conc, tail),
    };
  });
}
