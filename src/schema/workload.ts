import * as z from 'zod';
import { isAgentic, type MatrixRow } from './matrix-row.ts';

/**
 * The workload of a benchmark point, a union tagged by `kind`: what a sweep plans (the point spec's `bench`,
 * src/schema/run-dir.ts) and what a result says was run (`PointResult.workload`). Each kind has both sides
 * here, side by side. A new kind (accuracy evals are next) is one more member of each union: the `kind`
 * tables that choose by kind (metrics/aggregate.ts, store/identity.ts) then fail to typecheck until they
 * say what the new kind does.
 */

export const WORKLOAD_KINDS = ['fixed-seq-len', 'agentic-coding'] as const;
export type WorkloadKind = (typeof WORKLOAD_KINDS)[number];

const sha256 = z.string().regex(/^[0-9a-f]{64}$/);
const endpoint = z.enum(['chat', 'completions']);

/** The tokenizer that counted the client's tokens, as the result records it. */
const TokenizerSchema = z.strictObject({
  kind: z.enum(['builtin', 'huggingface']),
  name: z.string(),
  path: z.string().nullable(),
});

/** Client settings every kind of point is run with (the spec side). */
const client = {
  tokenizer: z
    .string()
    .nullable()
    .describe('Hugging Face tokenizer directory; null: the built-in o200k_base'),
  seed: z.int(),
  maxFailureRate: z.number().min(0).max(1),
  requestTimeoutS: z.number().positive(),
};

// fixed-seq-len: random prompts of a fixed input length, asking for a fixed output length (client-metrics §1).

const fixedSeqLen = {
  kind: z.literal('fixed-seq-len'),
  isl: z.int().positive(),
  osl: z.int().positive(),
  randomRangeRatio: z.number().min(0).max(1),
  numPrompts: z.int().positive(),
  warmup: z.int().nonnegative(),
};

export const FixedSeqLenWorkloadSchema = z.strictObject({
  ...fixedSeqLen,
  ignoreEos: z.boolean(),
  tokenizer: TokenizerSchema,
  chatTemplate: z.boolean(),
});

/** What the client does at a fixed-seq-len point: the benchmark of `infx bench`. */
export const FixedSeqLenBenchSchema = z.strictObject({ ...fixedSeqLen, endpoint, ...client });

// agentic-coding: the AgentX replay of recorded coding-agent traces (client-metrics §2, addendum §1). These
// are the settings that define a point; how the replay runs them is the driver's (src/workload).

/** The trace corpus replayed: its name and the exact bytes of its files. */
export const TraceCorpusSchema = z.strictObject({
  name: z.string().min(1).describe('the corpus, e.g. semianalysis_cc_traces_weka_062126'),
  files: z
    .array(z.strictObject({ path: z.string(), sha256 }))
    .min(1)
    .describe('the trace files (traces.jsonl) and the SHA-256 of each: the identity of what was replayed'),
});

/** Each lane starts inside its first trace and primes the KV cache with the turns before its start point. */
export const AgenticWarmupSchema = z.strictObject({
  /** Start point t* drawn uniformly from this fraction of the trace to the next (reference 0.25–0.75). */
  startMinRatio: z.number().min(0).max(1),
  startMaxRatio: z.number().min(0).max(1),
  /** One-token requests each lane sends past its start point before measuring (reference 10; fast mode 1). */
  requestsPerLane: z.int().nonnegative(),
  /** How long warmup requests may take to drain (reference 1800 s). */
  graceS: z.number().positive(),
});

const agenticCoding = {
  kind: z.literal('agentic-coding'),
  traces: TraceCorpusSchema,
  /** The measured phase (reference 3600 s; fast mode 1200 s; under 900 s a result is not a valid submission). */
  durationS: z.int().positive(),
  warmup: AgenticWarmupSchema,
  /** Traces needing a longer context are left out; null: none are (the reference never passes one). */
  maxContextTokens: z.int().positive().nullable(),
  /** The reference's fast mode (agentx-fast): a shorter run for a quick look, not for submission. */
  fast: z.boolean(),
};

export const AgenticCodingWorkloadSchema = z.strictObject({ ...agenticCoding, tokenizer: TokenizerSchema });

/** What the client does at an agentic-coding point: users (the point's concurrency) replaying the traces. */
export const AgenticCodingBenchSchema = z.strictObject({
  ...agenticCoding,
  // The replay sends each conversation's whole message list: the chat endpoint only.
  endpoint: z.literal('chat'),
  ...client,
});

/** `PointResult.workload`: what the point ran. */
export const WorkloadSchema = z.discriminatedUnion('kind', [
  FixedSeqLenWorkloadSchema,
  AgenticCodingWorkloadSchema,
]);

/**
 * A point spec's `bench`: what the client is to do. Run directories written before workloads had kinds hold
 * a fixed-seq-len bench without `kind`: it reads as one, so they resume, ingest and verify as before.
 */
export const WorkloadBenchSchema = z.preprocess(
  (v) =>
    typeof v === 'object' && v !== null && !Array.isArray(v) && !('kind' in v)
      ? { kind: 'fixed-seq-len', ...v }
      : v,
  z.discriminatedUnion('kind', [FixedSeqLenBenchSchema, AgenticCodingBenchSchema]),
);

export type FixedSeqLenWorkload = z.infer<typeof FixedSeqLenWorkloadSchema>;
export type AgenticCodingWorkload = z.infer<typeof AgenticCodingWorkloadSchema>;
export type Workload = z.infer<typeof WorkloadSchema>;
export type FixedSeqLenBench = z.infer<typeof FixedSeqLenBenchSchema>;
export type AgenticCodingBench = z.infer<typeof AgenticCodingBenchSchema>;
export type WorkloadBench = z.infer<typeof WorkloadBenchSchema>;
export type TraceCorpus = z.infer<typeof TraceCorpusSchema>;

/** The member of a workload union of kind K. */
export type OfKind<T extends { kind: WorkloadKind }, K extends WorkloadKind> = Extract<T, { kind: K }>;

/** The kind of workload a matrix row asks for: its scenario type (fixed-seq-len rows have none). */
export const rowWorkloadKind = (row: MatrixRow): WorkloadKind =>
  isAgentic(row) ? 'agentic-coding' : 'fixed-seq-len';

/** A point of a kind reached code that handles another kind: a bug, as planning refuses what cannot run. */
export class WorkloadKindError extends Error {}

/**
 * Code that handles fixed-seq-len points only says so with this: the type narrows to the fixed-seq-len member,
 * and a point of another kind stops here rather than reading fields it does not have.
 */
export function assertFixedSeqLen<T extends { kind: WorkloadKind }>(
  w: T,
): asserts w is OfKind<T, 'fixed-seq-len'> {
  if (w.kind !== 'fixed-seq-len')
    throw new WorkloadKindError(
      `a point of kind ${w.kind} reached code that handles fixed-seq-len points only`,
    );
}

/**
 * Why a result's workload is not the one its point planned (the result belongs to another point, or the
 * plan was edited), with the key path to point at; null when it is the one.
 */
export function workloadMismatch(
  ran: Workload,
  planned: WorkloadBench,
): { problem: string; path: string } | null {
  if (ran.kind !== planned.kind)
    return { problem: `workload ${ran.kind} is not the point's ${planned.kind}`, path: 'workload.kind' };
  if (ran.kind === 'fixed-seq-len' && planned.kind === 'fixed-seq-len')
    return ran.isl !== planned.isl || ran.osl !== planned.osl
      ? {
          problem: `workload ${ran.isl}/${ran.osl} is not the point's ${planned.isl}/${planned.osl}`,
          path: 'workload',
        }
      : null;
  if (ran.kind === 'agentic-coding' && planned.kind === 'agentic-coding') {
    const hashes = (c: TraceCorpus) => c.files.map((f) => f.sha256).join(',');
    if (hashes(ran.traces) !== hashes(planned.traces))
      return {
        problem: `traces ${ran.traces.name} are not the point's ${planned.traces.name}`,
        path: 'workload.traces',
      };
    return ran.durationS !== planned.durationS
      ? {
          problem: `duration ${ran.durationS} s is not the point's ${planned.durationS} s`,
          path: 'workload.durationS',
        }
      : null;
  }
  return null;
}
