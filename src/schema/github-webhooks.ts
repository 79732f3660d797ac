import * as z from 'zod';

/**
 * The parts of GitHub's webhook payloads `infx bot serve` reads (pull_request, issue_comment,
 * pull_request_review, pull_request_review_comment, check_run). Loose objects: GitHub sends far more,
 * and new fields must not break the bot; a delivery missing a field the bot needs is refused with its path.
 */

const Login = z.looseObject({ login: z.string().min(1) });

export const AUTHOR_ASSOCIATIONS = [
  'OWNER',
  'MEMBER',
  'COLLABORATOR',
  'CONTRIBUTOR',
  'FIRST_TIME_CONTRIBUTOR',
  'FIRST_TIMER',
  'MANNEQUIN',
  'NONE',
] as const;
/** Unknown associations are read as NONE (no rights), never refused. */
const Association = z
  .string()
  .transform((s) => ((AUTHOR_ASSOCIATIONS as readonly string[]).includes(s) ? s : 'NONE'));

export const RepositoryRefSchema = z.looseObject({
  full_name: z.string().regex(/^[\w.-]+\/[\w.-]+$/),
  name: z.string(),
  owner: Login,
});

const Installation = z.looseObject({ id: z.int().positive() }).optional();

export const WebhookPullRequestSchema = z.looseObject({
  number: z.int().positive(),
  state: z.string(),
  draft: z.boolean().optional().default(false),
  html_url: z.string().optional(),
  user: Login,
  labels: z.array(z.looseObject({ name: z.string() })).default([]),
  head: z.looseObject({
    sha: z.string().regex(/^[0-9a-f]{40}$/),
    ref: z.string(),
    repo: z.looseObject({ full_name: z.string() }).nullable(),
  }),
  base: z.looseObject({
    sha: z.string().regex(/^[0-9a-f]{40}$/),
    ref: z.string(),
    repo: z.looseObject({ full_name: z.string() }),
  }),
});
export type WebhookPullRequest = z.infer<typeof WebhookPullRequestSchema>;

export const PullRequestEventSchema = z.looseObject({
  action: z.string(),
  number: z.int().positive(),
  pull_request: WebhookPullRequestSchema,
  repository: RepositoryRefSchema,
  installation: Installation,
  sender: Login,
  label: z.looseObject({ name: z.string() }).optional(),
});
export type PullRequestEvent = z.infer<typeof PullRequestEventSchema>;

export const WebhookCommentSchema = z.looseObject({
  id: z.int().positive(),
  body: z
    .string()
    .nullable()
    .transform((b) => b ?? ''),
  user: Login,
  author_association: Association,
  html_url: z.string().optional(),
});
export type WebhookComment = z.infer<typeof WebhookCommentSchema>;

export const IssueCommentEventSchema = z.looseObject({
  action: z.string(),
  issue: z.looseObject({
    number: z.int().positive(),
    state: z.string(),
    /** Present only when the issue is a pull request. */
    pull_request: z.looseObject({}).optional(),
  }),
  comment: WebhookCommentSchema,
  repository: RepositoryRefSchema,
  installation: Installation,
  sender: Login,
});
export type IssueCommentEvent = z.infer<typeof IssueCommentEventSchema>;

/** What review and review-comment deliveries share: the PR, its repository and who acted. */
const onPullRequest = {
  action: z.string(),
  pull_request: WebhookPullRequestSchema,
  repository: RepositoryRefSchema,
  installation: Installation,
  sender: Login,
};

export const PullRequestReviewEventSchema = z.looseObject({ ...onPullRequest, review: WebhookCommentSchema });
export type PullRequestReviewEvent = z.infer<typeof PullRequestReviewEventSchema>;

export const PullRequestReviewCommentEventSchema = z.looseObject({
  ...onPullRequest,
  comment: WebhookCommentSchema,
});
export type PullRequestReviewCommentEvent = z.infer<typeof PullRequestReviewCommentEventSchema>;

export const CheckRunEventSchema = z.looseObject({
  action: z.string(),
  check_run: z.looseObject({
    name: z.string(),
    head_sha: z.string(),
    pull_requests: z.array(z.looseObject({ number: z.int().positive() })).default([]),
  }),
  repository: RepositoryRefSchema,
  installation: Installation,
  sender: Login,
});
export type CheckRunEvent = z.infer<typeof CheckRunEventSchema>;

/** `GET /healthz` of `infx bot serve`: what it has received and done. */
export const BotHealthSchema = z.strictObject({
  ok: z.literal(true),
  /** Deliveries accepted (signature good, not a replay). */
  accepted: z.int().nonnegative(),
  /** Replayed delivery ids ignored. */
  replayed: z.int().nonnegative(),
  /** Refused: bad or missing signature, bad body. */
  refused: z.int().nonnegative(),
  /** Accepted deliveries whose handling finished, and those whose handling failed. */
  handled: z.int().nonnegative(),
  failed: z.int().nonnegative(),
  /** Accepted deliveries not handled yet. */
  pending: z.int().nonnegative(),
  /** The last handling errors, newest last (delivery id, event, message). */
  errors: z.array(z.strictObject({ delivery: z.string(), event: z.string(), message: z.string() })),
});
export type BotHealth = z.infer<typeof BotHealthSchema>;
