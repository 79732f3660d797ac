import type { DriverPhases } from './drivers.ts';
import { buildFixedSeqLenPrompts, type ChatTemplateMode } from './fixed-seq-len.ts';
import { type FixedRequest, fixedSeqLenPhases } from './fixed-seq-len-driver.ts';
import { buildPayload, type PayloadOptions } from './payload.ts';
import type { TextTokenizer } from './types.ts';

/**
 * A point's workload, chosen by kind, made ready to run: whatever is built before the first request
 * (fixed-seq-len: every prompt and its encoded body) and the drivers of warmup and the measured phase.
 */

export interface FixedSeqLenInput {
  kind: 'fixed-seq-len';
  isl: number;
  osl: number;
  randomRangeRatio: number;
  numPrompts: number;
  warmup: number;
  seed: number;
  chatTemplate: ChatTemplateMode;
}

export type WorkloadInput = FixedSeqLenInput;

export interface PrepareOptions {
  tokenizer: TextTokenizer;
  payload: PayloadOptions;
  /** Arrival offsets of the measured phase's requests (ms from its start); null for a closed loop. */
  arrivalOffsetsMs: Float64Array | null;
  /** Progress of what is built before the run; may throw to stop it. */
  onProgress?: (done: number, total: number) => void;
}

export async function prepareWorkload(w: WorkloadInput, o: PrepareOptions): Promise<DriverPhases> {
  switch (w.kind) {
    case 'fixed-seq-len': {
      const prompts = await buildFixedSeqLenPrompts({
        tokenizer: o.tokenizer,
        isl: w.isl,
        osl: w.osl,
        randomRangeRatio: w.randomRangeRatio,
        numPrompts: w.numPrompts,
        seed: w.seed,
        chatTemplate: w.chatTemplate,
        onProgress: o.onProgress,
      });
      const requests: FixedRequest[] = prompts.map((p) => ({
        body: buildPayload(o.payload, p.text, p.outputTokens),
        maxTokens: p.outputTokens,
        targetInputTokens: p.targetInputTokens,
        clientInputTokens: p.inputTokens,
      }));
      return fixedSeqLenPhases(requests, w.warmup, o.arrivalOffsetsMs);
    }
  }
}
