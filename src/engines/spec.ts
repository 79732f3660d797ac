import { type GoldenSpecMethod, goldenAcceptanceLength, recipeSpec } from '../catalog/golden-al.ts';
import { isAgentic, type MatrixRow } from '../schema/matrix-row.ts';
import { RecipeError } from './frameworks.ts';

/**
 * Speculative decoding of a row as the engine runs it: the method and draft, and whether acceptance is
 * real or pinned to a length. Policy (client-metrics-spec §6): 'golden' pins agentic throughput rows to
 * the golden AL of the recipe's draft length, as the reference does, and leaves fixed-seq-len rows on real
 * acceptance; a number pins any row; eval-only rows always verify for real, since pinned acceptance would
 * corrupt what the eval scores.
 */

export type Acceptance = 'golden' | 'real' | number;
export const DEFAULT_DRAFT_TOKENS = 3;

/** Engine-level methods the recipes understand (INFX_SPEC_METHOD). */
export type EngineSpecMethod = 'none' | 'mtp' | 'eagle3' | 'dspark' | 'draft_model';

export interface SpecPlan {
  method: EngineSpecMethod;
  /** The golden table's name of the method, for lookups and messages; null without drafting. */
  goldenMethod: GoldenSpecMethod | null;
  draftModel: string | null;
  draftTokens: number;
  acceptance: 'real' | 'synthetic';
  /** Pinned mean acceptance length (bonus token included); null with real acceptance. */
  acceptanceLength: number | null;
  warnings: string[];
}

export interface SpecOptions {
  acceptance?: Acceptance;
  draftTokens?: number;
  draftModel?: string;
  /** Golden AL of thinking-on (default) or thinking-off runs. */
  thinking?: boolean;
}

const ENGINE_METHOD: Readonly<Record<GoldenSpecMethod, EngineSpecMethod>> = {
  MTP: 'mtp',
  EAGLE3: 'eagle3',
  'EAGLE3-GQA': 'eagle3',
  DSpark: 'dspark',
};

const round = (x: number) => Math.round(x * 1e6) / 1e6;

/** AL − 1 as TensorRT-LLM takes it (accepted draft tokens per step), free of binary rounding noise. */
export const acceptedDraftTokens = (al: number) => round(al - 1);

export function specPlan(row: MatrixRow, opts: SpecOptions = {}): SpecPlan {
  const draftTokens = opts.draftTokens ?? DEFAULT_DRAFT_TOKENS;
  const none: SpecPlan = {
    method: 'none',
    goldenMethod: null,
    draftModel: null,
    draftTokens,
    acceptance: 'real',
    acceptanceLength: null,
    warnings: [],
  };
  const decoding = row['spec-decoding'];
  if (decoding === 'none') return none;
  if (!Number.isInteger(draftTokens) || draftTokens < 1)
    throw new RecipeError(`draft tokens must be a positive integer, got ${draftTokens}`);

  const prefix = row['model-prefix'];
  const recipe = decoding === 'draft_model' ? null : recipeSpec(prefix);
  const plan: SpecPlan = {
    ...none,
    method: recipe ? ENGINE_METHOD[recipe.method] : 'draft_model',
    goldenMethod: recipe?.method ?? null,
    draftModel: opts.draftModel ?? recipe?.draftModel ?? null,
  };

  const acceptance = opts.acceptance ?? 'golden';
  if (acceptance === 'real') return plan;
  if (row['eval-only'] === true) {
    if (typeof acceptance === 'number')
      plan.warnings.push('eval-only row: acceptance stays real (a pinned length would corrupt the eval)');
    return plan;
  }
  if (typeof acceptance === 'number') {
    if (!(acceptance >= 1 && acceptance <= draftTokens + 1))
      throw new RecipeError(
        `acceptance length ${acceptance} is outside [1, ${draftTokens + 1}] for ${draftTokens} draft tokens: ` +
          'it counts the accepted drafts plus the one verified token',
      );
    return { ...plan, acceptance: 'synthetic', acceptanceLength: acceptance };
  }
  // The reference pins only agentic throughput runs; fixed-seq-len MTP runs measure real acceptance.
  if (!isAgentic(row)) return plan;
  const al = plan.goldenMethod
    ? goldenAcceptanceLength(prefix, plan.goldenMethod, draftTokens, opts.thinking ?? true)
    : null;
  if (al === null) {
    plan.warnings.push(
      `no golden acceptance length for model prefix '${prefix}' (${plan.goldenMethod ?? 'draft model'}, ` +
        `${draftTokens} draft tokens, thinking ${opts.thinking === false ? 'off' : 'on'}): acceptance is real; ` +
        'pass --acceptance <length> to pin one',
    );
    return plan;
  }
  return { ...plan, acceptance: 'synthetic', acceptanceLength: al };
}
