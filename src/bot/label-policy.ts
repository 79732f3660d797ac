import {
  CONFLICTING_LABELS_MESSAGE,
  decideLabels,
  MODIFIER_LABELS,
  PRIMARY_LABELS,
} from '../matrix/labels.ts';

/**
 * The sweep-label policy a pull request's commit status reports (changelog-pr-spec §3.2, §3.6): exactly one
 * primary label among the five; a modifier (all-evals, evals-only, agentx-fast) only with a primary one;
 * on a fork, sweep labels applied only by someone with write access (they approve running its code).
 */

export const LABEL_STATUS_CONTEXT = 'infx/sweep-labels';
/** Permissions that may approve a fork PR's code by labelling it. */
export const MAINTAINER: ReadonlySet<string> = new Set(['admin', 'maintain', 'write']);

export interface Labeler {
  login: string;
  /** Their repository permission (admin, maintain, write, triage, read, none); null: unknown. */
  permission: string | null;
}

export interface LabelPolicyInput {
  labels: readonly string[];
  fork: boolean;
  /** Who applied each sweep label last (fork PRs); a label missing here was applied by someone unknown. */
  labelers?: ReadonlyMap<string, Labeler>;
  /** Fork PRs: the head now, and what a maintainer's label approved (null: the bot has not seen it yet). */
  head?: string;
  approval?: { head: string; approved: boolean } | null;
}

export interface LabelVerdict {
  state: 'success' | 'failure';
  /** One line, at most 140 characters (GitHub's limit for a status description). */
  description: string;
  /** Every problem and note, in full. */
  details: string[];
  primary: string | null;
}

export function sweepLabels(labels: readonly string[]): string[] {
  return labels.filter((l) => l in PRIMARY_LABELS || (MODIFIER_LABELS as readonly string[]).includes(l));
}

const clip = (s: string) => (s.length <= 140 ? s : `${s.slice(0, 139)}…`);

export function labelPolicy(input: LabelPolicyInput): LabelVerdict {
  const d = decideLabels(input.labels, 'pr');
  const problems: string[] = [];
  const notes = [...d.warnings.filter((w) => !w.startsWith('modifier label'))];
  if (d.errors.length > 0) problems.push(CONFLICTING_LABELS_MESSAGE);
  if (d.primary === null && d.modifiers.length > 0)
    problems.push(
      `${d.modifiers.join(', ')} ${d.modifiers.length === 1 ? 'needs' : 'need'} a primary sweep label: add full-sweep-fail-fast (or another of ${Object.keys(PRIMARY_LABELS).join(', ')})`,
    );
  const approval = input.approval ?? null;
  if (input.fork && sweepLabels(input.labels).length > 0 && approval !== null && input.head !== undefined) {
    if (approval.head !== input.head || !approval.approved)
      problems.push(
        `The PR advanced to ${input.head.slice(0, 12)}; remove and re-add the sweep label to approve the new revision.`,
      );
  }
  if (input.fork)
    for (const label of sweepLabels(input.labels)) {
      const who = input.labelers?.get(label);
      if (!who)
        problems.push(`'${label}' on a fork PR: who applied it is unknown; a maintainer must re-apply it`);
      else if (who.permission === null || !MAINTAINER.has(who.permission))
        problems.push(
          `'${label}' on a fork PR was applied by @${who.login} (${who.permission ?? 'unknown'} permission); only a maintainer (write, maintain or admin) may label a fork PR, which approves running its code`,
        );
    }
  if (problems.length > 0)
    return {
      state: 'failure',
      description: clip(problems[0] as string),
      details: [...problems, ...notes],
      primary: d.primary,
    };
  const description =
    d.primary === null
      ? 'no sweep label: no sweep runs (add full-sweep-fail-fast to run one)'
      : `${d.primary}${d.modifiers.length > 0 ? ` + ${d.modifiers.join(', ')}` : ''}: ${d.reuseEligible ? 'full sweep, reusable at merge' : d.policy.trimConc ? 'lowest concurrency per recipe, not reusable' : 'not reusable at merge'}`;
  return { state: 'success', description: clip(description), details: notes, primary: d.primary };
}
