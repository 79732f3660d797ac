import { createHash } from 'node:crypto';
import type { CiPriorityPolicy } from '../schema/ci-priority.ts';
import { isRecord } from '../schema/guards.ts';
import { closest } from '../schema/suggest.ts';
import { roundHalfUp } from './decimal.ts';
import { MatrixError } from './errors.ts';
import { canonicalJson } from './json.ts';

/** CI priority scores and queue tokens for matrix jobs (matrix-spec §11). */

/** The reference policy at the commit the fixtures come from. */
export const DEFAULT_CI_PRIORITY_POLICY: CiPriorityPolicy = {
  version: 1,
  'base-score': 1.0,
  adjustments: {
    event: { push: 2.0 },
    'multi-node': 1.25,
    agentic: 1.0,
    'eval-only': 0.0,
    precision: { fp4: 0.75 },
    'spec-decoding': { mtp: 0.75, eagle: 0.75, eagle3: 0.75 },
    'framework-prefix': { sglang: 0.5, vllm: 0.5, 'dynamo-sglang': 0.5, 'dynamo-vllm': 0.5 },
    'model-prefix': {
      kimik3: 1.5,
      glm5: 0.75,
      'glm5.1': 0.75,
      'kimik2.5': 0.75,
      dsv4: 0.75,
      minimaxm3: 0.75,
      'qwen3.5': 0.75,
      dsr1: 0.75,
    },
  },
  labels: {
    'skip-queue': { name: 'skip_queue' },
    'checklist-complete': { names: ['ci-checklist-complete'], adjustment: 0.25 },
    patchwork: { names: ['ci-patchwork', 'engine-patch'], score: 0.0, 'waived-by': ['ci-patchwork-waived'] },
  },
};

export interface PriorityContext {
  event: 'pr' | 'push' | string;
  labels: readonly string[];
  /** Facts a classifier confirmed; when given, an entry's fact only counts if its criterion is present. */
  criteria?: readonly string[] | undefined;
  policy?: CiPriorityPolicy | undefined;
}

const prefixMatch = (value: string, key: string) => value === key || value.startsWith(`${key}-`);

function supportedCriteria(p: CiPriorityPolicy): Set<string> {
  const a = p.adjustments;
  return new Set([
    'multi-node',
    'agentic',
    'eval-only',
    'checklist-complete',
    'patchwork',
    ...Object.keys(a.precision),
    ...Object.keys(a['spec-decoding']),
    ...Object.keys(a['framework-prefix']),
    ...Object.keys(a['model-prefix']),
  ]);
}

/** The event names the reference uses: `pull_request` jobs score no event bonus, `push` does. */
const eventName = (e: string) => (e === 'pr' ? 'pull_request' : e);

/** Score of one job as a string with exactly three decimals, e.g. "3.750". */
export function priorityScore(job: Record<string, unknown>, ctx: PriorityContext): string {
  const p = ctx.policy ?? DEFAULT_CI_PRIORITY_POLICY;
  const a = p.adjustments;
  const labels = new Set(ctx.labels);
  const criteria = ctx.criteria ? new Set(ctx.criteria) : undefined;
  if (criteria) {
    const supported = supportedCriteria(p);
    const unknown = [...criteria].filter((c) => !supported.has(c)).sort();
    if (unknown.length > 0)
      throw new MatrixError(`Unknown CI priority criteria: [${unknown.map((c) => `'${c}'`).join(', ')}]`);
  }
  const patchwork = p.labels.patchwork;
  const waived = patchwork['waived-by'].some((l) => labels.has(l));
  if (!waived && (criteria?.has('patchwork') || patchwork.names.some((l) => labels.has(l)))) {
    return roundHalfUp(patchwork.score, 3);
  }
  const has = (criterion: string) => !criteria || criteria.has(criterion);
  const hasPrefixed = (value: string) => !criteria || [...criteria].some((c) => prefixMatch(value, c));
  let score = p['base-score'] + (a.event[eventName(ctx.event)] ?? 0);
  if (job.prefill != null && has('multi-node')) score += a['multi-node'];
  if (job['scenario-type'] === 'agentic-coding' && has('agentic')) score += a.agentic;
  if (job['eval-only'] === true && has('eval-only')) score += a['eval-only'];
  const precision = String(job.precision ?? '');
  if (precision in a.precision && has(precision)) score += a.precision[precision]!;
  const spec = String(job['spec-decoding'] ?? '');
  if (spec in a['spec-decoding'] && has(spec)) score += a['spec-decoding'][spec]!;
  const framework = String(job.framework ?? '');
  const fwKey = Object.keys(a['framework-prefix']).find((k) => prefixMatch(framework, k));
  if (fwKey !== undefined && hasPrefixed(framework)) score += a['framework-prefix'][fwKey]!;
  const model = String(job['model-prefix'] ?? '');
  if (model in a['model-prefix'] && hasPrefixed(model)) score += a['model-prefix'][model]!;
  const checklist = p.labels['checklist-complete'];
  if (criteria?.has('checklist-complete') || checklist.names.some((l) => labels.has(l)))
    score += checklist.adjustment;
  return roundHalfUp(score, 3);
}

/**
 * Labels one typo away from a label the priority policy scores ("skip-queue" for skip_queue) change nothing,
 * silently; a PR has unrelated labels too, so only near misses are named.
 */
export function priorityLabelWarnings(labels: readonly string[], policy?: CiPriorityPolicy): string[] {
  const p = policy ?? DEFAULT_CI_PRIORITY_POLICY;
  const l = p.labels;
  const known = [
    l['skip-queue'].name,
    ...l['checklist-complete'].names,
    ...l.patchwork.names,
    ...l.patchwork['waived-by'],
  ];
  return labels
    .filter((x) => !known.includes(x))
    .flatMap((x) => {
      const near = closest(x, known, 1);
      return near.length
        ? [`label '${x}' is not a label the CI priority policy knows; did you mean ${near[0]}?`]
        : [];
    });
}

export interface AnnotateOptions extends PriorityContext {
  namespace: string;
  prNumber?: number | undefined;
}

/**
 * Adds `priority`, `queue-token` and (with skip_queue and a PR number) `skip-queue-pr` to every object of a
 * JSON payload that has both `runner` and `framework`. The token is unique per job and per run attempt:
 * SHA-256 of "<namespace>:<path>:<canonical JSON of the original object>", first 32 hex characters.
 * The input is not modified.
 */
export function annotatePriorities(payload: unknown, opts: AnnotateOptions): unknown {
  const p = opts.policy ?? DEFAULT_CI_PRIORITY_POLICY;
  const skipQueue =
    opts.prNumber !== undefined && opts.prNumber > 0 && opts.labels.includes(p.labels['skip-queue'].name);
  const walk = (value: unknown, path: (string | number)[]): unknown => {
    if (Array.isArray(value)) return value.map((v, i) => walk(v, [...path, i]));
    if (!isRecord(value)) return value;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = walk(v, [...path, k]);
    if ('runner' in value && 'framework' in value) {
      out.priority = priorityScore(value, opts);
      out['queue-token'] = createHash('sha256')
        .update(`${opts.namespace}:${path.join('/')}:${canonicalJson(value)}`)
        .digest('hex')
        .slice(0, 32);
      if (skipQueue) out['skip-queue-pr'] = opts.prNumber;
    }
    return out;
  };
  return walk(payload, []);
}
