import { closest } from '../schema/suggest.ts';

/** PR labels that steer a sweep (matrix-spec §9.1, changelog-pr-spec §3.2). */

export interface PrimaryLabelPolicy {
  /** sweep-enabled: every recipe at its lowest concurrency only. */
  trimConc: boolean;
  /** One cheap single-node point runs first; its failure blocks the fan-out. */
  canary: boolean;
  /** The first failure cancels the rest of its job family. */
  failFast: boolean;
  /** A later push to main may reuse this PR's results instead of re-running. */
  reuseEligible: boolean;
}

export const PRIMARY_LABELS: Readonly<Record<string, PrimaryLabelPolicy>> = {
  'sweep-enabled': { trimConc: true, canary: false, failFast: false, reuseEligible: false },
  'full-sweep-enabled': { trimConc: false, canary: true, failFast: false, reuseEligible: true },
  'full-sweep-fail-fast': { trimConc: false, canary: true, failFast: true, reuseEligible: true },
  'full-sweep-fail-fast-no-canary': { trimConc: false, canary: false, failFast: true, reuseEligible: true },
  'non-canary-full-sweep-enabled': { trimConc: false, canary: false, failFast: false, reuseEligible: true },
};

/** all-evals expands evals (throughput kept); evals-only drops throughput; agentx-fast shortens agentic runs. */
export const MODIFIER_LABELS = ['all-evals', 'evals-only', 'agentx-fast'] as const;

/**
 * The reference's reuse policy (changelog-pr-spec §3.2, §5.4): a run swept under a full-sweep label may stand
 * in for the merge sweep; evals-only and agentx-fast make it ineligible (all-evals does not).
 */
export const REUSE_LABEL_RULES: { fullSweep: readonly string[]; incompatible: readonly string[] } = {
  fullSweep: Object.entries(PRIMARY_LABELS)
    .filter(([, p]) => p.reuseEligible)
    .map(([l]) => l),
  incompatible: MODIFIER_LABELS.filter((l) => l !== 'all-evals'),
};

export const CONFLICTING_LABELS_MESSAGE = 'PR has multiple conflicting sweep labels. Pick exactly one.';

export interface LabelDecision {
  primary: string | null;
  modifiers: string[];
  /** Labels that block the sweep (the check fails). */
  errors: string[];
  warnings: string[];
  /** Whether setup runs at all. */
  runs: boolean;
  reason: string;
  policy: PrimaryLabelPolicy;
  evalsOnly: boolean;
  allEvals: boolean;
  agentxFast: boolean;
  reuseEligible: boolean;
}

/**
 * A label one typo away from a sweep label ("full-sweep-enable") steers nothing, silently; a PR carries
 * other labels too (bug, docs), so only near misses are named.
 */
export function labelTypoWarnings(labels: readonly string[]): string[] {
  const known = [...Object.keys(PRIMARY_LABELS), ...MODIFIER_LABELS];
  return labels
    .filter((l) => !known.includes(l))
    .flatMap((l) => {
      const near = closest(l, known, 1);
      return near.length
        ? [`label '${l}' is not a sweep label and does nothing; did you mean ${near[0]}?`]
        : [];
    });
}

const NONE: PrimaryLabelPolicy = { trimConc: false, canary: false, failFast: false, reuseEligible: false };

export function decideLabels(labels: readonly string[], event: 'pr' | 'push'): LabelDecision {
  const unique = [...new Set(labels)];
  if (event === 'push') {
    return {
      primary: null,
      modifiers: [],
      errors: [],
      warnings:
        unique.length > 0
          ? ['labels are ignored on push: a push to main runs the full, untrimmed sweep']
          : [],
      runs: true,
      reason: 'push to main: full untrimmed sweep, no canary, fail-fast off',
      policy: NONE,
      evalsOnly: false,
      allEvals: false,
      agentxFast: false,
      reuseEligible: false,
    };
  }
  const primaries = unique.filter((l) => l in PRIMARY_LABELS);
  const modifiers = unique.filter((l) => (MODIFIER_LABELS as readonly string[]).includes(l));
  const errors: string[] = [];
  const warnings: string[] = labelTypoWarnings(unique);
  let reason: string;
  if (primaries.length > 1) {
    errors.push(`${CONFLICTING_LABELS_MESSAGE} (found ${primaries.join(', ')})`);
    reason = 'conflicting primary sweep labels: the changelog check fails and nothing runs';
  } else if (primaries.length === 0) {
    reason = `no primary sweep label (one of ${Object.keys(PRIMARY_LABELS).join(', ')}): nothing runs`;
    if (modifiers.length > 0) {
      warnings.push(`modifier label(s) ${modifiers.join(', ')} have no effect without a primary sweep label`);
    }
  } else {
    reason = `label ${primaries[0]}`;
  }
  const primary = primaries.length === 1 ? primaries[0]! : null;
  const policy = primary ? PRIMARY_LABELS[primary]! : NONE;
  const evalsOnly = modifiers.includes('evals-only');
  const agentxFast = modifiers.includes('agentx-fast');
  return {
    primary,
    modifiers,
    errors,
    warnings,
    runs: primary !== null,
    reason,
    policy,
    evalsOnly,
    allEvals: modifiers.includes('all-evals'),
    agentxFast,
    reuseEligible: policy.reuseEligible && !evalsOnly && !agentxFast,
  };
}
