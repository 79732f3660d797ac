/** Closed value sets shared by schemas and command-line choices (kept free of zod so the CLI starts fast). */

export const SPEC_DECODING = ['mtp', 'draft_model', 'none'] as const;
export const KV_OFFLOADING = ['none', 'dram'] as const;
export const SCENARIO_TYPES = ['fixed-seq-len', 'agentic-coding'] as const;
export type ScenarioType = (typeof SCENARIO_TYPES)[number];
