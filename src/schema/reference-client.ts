import type { FixedSeqLenBench } from './workload.ts';

/** What the client does at every point; null counts follow the reference (10 × and 2 × concurrency). */
export interface BenchDefaults
  extends Omit<FixedSeqLenBench, 'kind' | 'isl' | 'osl' | 'numPrompts' | 'warmup'> {
  numPrompts: number | null;
  warmup: number | null;
}

/**
 * The reference client's settings (client-metrics-spec §1): what `infx sweep` and `infx bench` run with when
 * no flag says otherwise, and what synthetic results claim. The one place these numbers are written.
 */
export const REFERENCE_BENCH: BenchDefaults = {
  numPrompts: null,
  warmup: null,
  randomRangeRatio: 0.8,
  endpoint: 'completions',
  tokenizer: null,
  seed: 0,
  maxFailureRate: 0.05,
  requestTimeoutS: 21600,
};

/** The reference's measured and warmup request counts at a concurrency. */
export const referencePromptCount = (conc: number) => 10 * conc;
export const referenceWarmupCount = (conc: number) => 2 * conc;
