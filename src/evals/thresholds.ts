import { readFileSync } from 'node:fs';
import yaml from 'js-yaml';
import { type ThresholdsFile, ThresholdsFlatSchema, ThresholdsStructuredSchema } from '../schema/evals.ts';

/**
 * Eval thresholds in the reference's format (utils/evals/thresholds.yaml): per-task `default` minimums and
 * per-model `models.<prefix>` overrides; a mapping with neither key is the legacy flat form. Lookup
 * precedence is the reference's: `models[<prefix>][task]`, then `default[task]`, then `--min-score`. The
 * reference matches the prefix exactly, so a new prefix (dsv41flash) gets the default, not its family's
 * override; infx also tries the family (the longest `models` key the prefix starts with: dsv41flash →
 * dsv4, glm5.2 → glm5) unless exact lookup is asked for, and says which rule applied.
 */

export interface Thresholds {
  default: Record<string, number>;
  models: Record<string, Record<string, number>>;
}

/** The reference's thresholds.yaml (also in examples/evals/thresholds.yaml). */
export const REFERENCE_THRESHOLDS: Thresholds = {
  default: { gsm8k: 0.9, gpqa_diamond_cot_n_shot: 0.3, swebench_lite: 0.5 },
  models: {
    dsr1: { gsm8k: 0.91 },
    dsv4: { gsm8k: 0.91 },
    glm5: { gsm8k: 0.94 },
    'glm5.1': { gsm8k: 0.93 },
    gptoss: { gsm8k: 0.91 },
    'kimik2.5': { gsm8k: 0.9 },
    'minimaxm2.5': { gsm8k: 0.92 },
    'qwen3.5': { gsm8k: 0.94 },
  },
};

export const DEFAULT_MIN_SCORE = 0.85;

/** Normalises a parsed file (legacy flat form included). */
export function thresholdsOf(file: ThresholdsFile): Thresholds {
  if ('default' in file || 'models' in file) {
    const f = file as { default?: Record<string, number>; models?: Record<string, Record<string, number>> };
    return { default: f.default ?? {}, models: f.models ?? {} };
  }
  return { default: file as Record<string, number>, models: {} };
}

/** Reads a YAML or JSON thresholds file; throws an Error saying what is wrong (the caller warns, as the reference does). */
export function loadThresholds(path: string): Thresholds {
  const text = readFileSync(path, 'utf8');
  let value: unknown;
  try {
    value = yaml.load(text, { filename: path });
  } catch (err) {
    throw new Error(`invalid YAML: ${(err as Error).message.split('\n')[0]}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new Error('thresholds config must be a mapping');
  const structured = 'default' in value || 'models' in value;
  const parsed = (structured ? ThresholdsStructuredSchema : ThresholdsFlatSchema).safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(
      `${issue?.path.join('.') || '(top level)'}: ${issue?.message ?? 'invalid'}: every threshold must be a number`,
    );
  }
  return thresholdsOf(parsed.data);
}

export type ThresholdRule = 'model' | 'family' | 'default' | 'min-score';

export interface ResolvedThreshold {
  threshold: number;
  rule: ThresholdRule;
  /** `models.<key>`, `default` or `min-score`, as the reference's log lines name the source. */
  source: string;
  /** The models key used (for model and family). */
  key: string | null;
}

/** The family of a prefix: the longest `models` key it starts with (itself excluded), or null. */
export function familyKey(thresholds: Thresholds, prefix: string): string | null {
  let best: string | null = null;
  for (const key of Object.keys(thresholds.models))
    if (key !== prefix && key !== '' && prefix.startsWith(key) && (best === null || key.length > best.length))
      best = key;
  return best;
}

export function resolveThreshold(
  thresholds: Thresholds,
  prefix: string | null,
  task: string,
  minScore: number,
  lookup: 'family' | 'exact' = 'family',
): ResolvedThreshold {
  const own = prefix === null ? undefined : thresholds.models[prefix];
  if (prefix !== null && own !== undefined && Object.hasOwn(own, task))
    return { threshold: own[task] as number, rule: 'model', source: `models.${prefix}`, key: prefix };
  if (prefix !== null && lookup === 'family') {
    const fam = familyKey(thresholds, prefix);
    const set = fam === null ? undefined : thresholds.models[fam];
    if (fam !== null && set !== undefined && Object.hasOwn(set, task))
      return { threshold: set[task] as number, rule: 'family', source: `models.${fam}`, key: fam };
  }
  if (Object.hasOwn(thresholds.default, task))
    return { threshold: thresholds.default[task] as number, rule: 'default', source: 'default', key: null };
  return { threshold: minScore, rule: 'min-score', source: 'min-score', key: null };
}
