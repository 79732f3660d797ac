import * as z from 'zod';

/**
 * The few fields of GitHub's REST responses that infx's bot reads (the merge-with-reuse flow): each
 * response is parsed with these schemas, so a field GitHub drops or renames is a clear error rather than an
 * `undefined` deep in the flow. Objects are loose (GitHub sends many more fields); only what is used is named.
 */

const sha = z.string().regex(/^[0-9a-f]{40}$/i, 'a 40-hex commit SHA');

const RepoRefSchema = z.object({
  /** Null when the head repository (a fork) was deleted. */
  repo: z.object({ full_name: z.string() }).nullable(),
});

export const PullRequestSchema = z.object({
  number: z.number().int(),
  /** GitHub's REST state: a merged pull request is `closed` (with `merged: true`). */
  state: z.enum(['open', 'closed']),
  merged: z.boolean().optional(),
  head: RepoRefSchema.extend({ ref: z.string().min(1), sha }),
  base: RepoRefSchema.extend({ ref: z.string().min(1) }),
  labels: z.array(z.object({ name: z.string() })),
});
export type PullRequest = z.infer<typeof PullRequestSchema>;

export const PullCommitSchema = z.object({ sha });
export type PullCommit = z.infer<typeof PullCommitSchema>;

export const WorkflowRunSchema = z.object({
  id: z.number().int(),
  event: z.string(),
  status: z.string().nullable(),
  conclusion: z.string().nullable(),
  head_sha: sha,
  head_branch: z.string().nullable().optional(),
  /** The workflow file (`.github/workflows/run-sweep.yml`); absent on old API versions. */
  path: z.string().optional(),
  html_url: z.string().optional(),
});
export type WorkflowRun = z.infer<typeof WorkflowRunSchema>;

export const WorkflowRunsPageSchema = z.object({ workflow_runs: z.array(WorkflowRunSchema) });

export const ArtifactSchema = z.object({ name: z.string(), expired: z.boolean() });
export type Artifact = z.infer<typeof ArtifactSchema>;

export const ArtifactsPageSchema = z.object({ artifacts: z.array(ArtifactSchema) });

export const IssueCommentSchema = z.object({
  id: z.number().int(),
  body: z.string().nullable().optional(),
  html_url: z.string().optional(),
});
export type IssueComment = z.infer<typeof IssueCommentSchema>;

export const CheckRunSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  status: z.string(),
  conclusion: z.string().nullable(),
  started_at: z.string().nullable(),
  html_url: z.string().nullable().optional(),
});
export type CheckRun = z.infer<typeof CheckRunSchema>;

export const CheckRunsPageSchema = z.object({ check_runs: z.array(CheckRunSchema) });

export const MergeResultSchema = z.object({ sha, merged: z.boolean(), message: z.string().optional() });
export type MergeResult = z.infer<typeof MergeResultSchema>;

/** GitHub's error body: `{message, documentation_url}`; anything else is reported by status alone. */
export const GitHubErrorBodySchema = z.object({ message: z.string() });
