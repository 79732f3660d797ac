/**
 * Golden acceptance lengths of speculative decoding (client-metrics-spec §6): the mean tokens per
 * verification step (accepted drafts + the guaranteed one) measured on SPEED-Bench's qualitative coding
 * category (80 prompts, output 4096, temperature 1.0, B300 vLLM, real drafting). The reference pins its
 * AgentX throughput runs to these so that a curve measures the system, not the draft head on one corpus.
 */

export const GOLDEN_SPEC_METHODS = ['MTP', 'EAGLE3', 'EAGLE3-GQA', 'DSpark'] as const;
export type GoldenSpecMethod = (typeof GOLDEN_SPEC_METHODS)[number];

type ThinkingMode = 'thinking_on' | 'thinking_off';
/** Mean AL for 1..8 draft tokens (index 0 is one draft token). */
type AlByDraftTokens = readonly number[];

export const GOLDEN_AL: Readonly<
  Record<string, Partial<Record<GoldenSpecMethod, Partial<Record<ThinkingMode, AlByDraftTokens>>>>>
> = {
  'deepseek-v4-pro': {
    MTP: {
      thinking_on: [1.79, 2.27, 2.49, 2.54, 2.55, 2.55, 2.54, 2.58],
      thinking_off: [1.92, 2.61, 2.97, 3.0, 3.1, 3.16, 3.0, 3.11],
    },
  },
  'glm-5.2': { MTP: { thinking_on: [1.84, 2.5, 2.99, 3.33, 3.61, 3.78, 3.91, 4.06] } },
  'qwen3.5': { MTP: { thinking_on: [1.93, 2.73, 3.39, 3.97, 4.41, 4.8, 5.04, 5.21] } },
  'minimax-m3': {
    EAGLE3: { thinking_on: [1.78, 2.38, 2.83, 3.11, 3.35, 3.45, 3.53, 3.74] },
    'EAGLE3-GQA': { thinking_on: [1.79, 2.39, 2.78, 3.02, 3.21, 3.3, 3.52, 3.51] },
  },
  'kimi-k3': { DSpark: { thinking_on: [1.84, 2.45, 2.87, 3.22, 3.44, 3.54, 3.78, 3.88] } },
  'deepseek-v4-pro-0813': { DSpark: { thinking_on: [1.84, 2.51, 3.01, 3.36, 3.61, 3.77, 3.73, 3.47] } },
};

/**
 * Config model prefix → golden model key, as the reference's auto-lookup maps them. deepseek-r1 has no
 * golden table: its lookups return null.
 */
export const GOLDEN_MODEL_BY_PREFIX: Readonly<Record<string, string>> = {
  dsv4: 'deepseek-v4-pro',
  dsr1: 'deepseek-r1',
  'glm5.2': 'glm-5.2',
  'qwen3.5': 'qwen3.5',
  minimaxm3: 'minimax-m3',
  kimik3: 'kimi-k3',
  dsv4dspark: 'deepseek-v4-pro-0813',
  dsv4dsparkprob: 'deepseek-v4-pro-0813',
};

export interface RecipeSpec {
  method: GoldenSpecMethod;
  /** The draft checkpoint the reference recipes load, for methods with a separate draft head. */
  draftModel?: string;
}

/**
 * What a row's `spec-decoding: mtp` means per model in the reference recipes: most models draft with
 * their own MTP layers; MiniMax-M3 and Kimi-K3 use a separate draft head.
 */
const RECIPE_SPEC_BY_PREFIX: Readonly<Record<string, RecipeSpec>> = {
  minimaxm3: { method: 'EAGLE3-GQA', draftModel: 'Inferact/MiniMax-M3-EAGLE3-GQA' },
  kimik3: { method: 'DSpark', draftModel: 'Inferact/Kimi-K3-DSpark' },
  dsv4dspark: { method: 'DSpark' },
  dsv4dsparkprob: { method: 'DSpark' },
};

const own = <T>(table: Readonly<Record<string, T>>, key: string): T | undefined =>
  Object.hasOwn(table, key) ? table[key] : undefined;

export function recipeSpec(modelPrefix: string): RecipeSpec {
  return own(RECIPE_SPEC_BY_PREFIX, modelPrefix) ?? { method: 'MTP' };
}

/**
 * The golden AL of a model prefix (or golden model key) for a method and draft length, or null when the
 * table has no such entry (unknown model or method, draft tokens outside 1..8, thinking off where only
 * thinking on was measured).
 */
export function goldenAcceptanceLength(
  modelPrefix: string,
  method: GoldenSpecMethod,
  draftTokens: number,
  thinking = true,
): number | null {
  const key = own(GOLDEN_MODEL_BY_PREFIX, modelPrefix) ?? modelPrefix;
  const byMode = own(GOLDEN_AL, key)?.[method];
  const values = byMode?.[thinking ? 'thinking_on' : 'thinking_off'];
  if (!values || !Number.isInteger(draftTokens)) return null;
  return values[draftTokens - 1] ?? null;
}
