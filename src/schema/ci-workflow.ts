import * as z from 'zod';

/**
 * `infx ci`: the options of the GitHub Actions workflows `infx ci workflow` writes, and the shapes that pass
 * between their jobs (the setup job's matrix of points, the gate's label decision), so the CLI, the
 * generator and the jobs read one definition.
 */

/** A runs-on label: what GitHub accepts in a runner's label list (no spaces, quotes, commas or `${{`). */
export const RunnerLabelSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, {
  message: "a runner label is letters, digits, '.', '_' and '-', starting with a letter or digit",
});

/** A repository secret's name, as GitHub allows them (letters, digits, underscores; not starting GITHUB_). */
export const SecretNameSchema = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,99}$/, {
    message: 'a secret name is letters, digits and underscores, not starting with a digit',
  })
  .refine((s) => !s.toUpperCase().startsWith('GITHUB_'), {
    message: 'secret names starting with GITHUB_ are reserved by GitHub',
  });

/** A repository path the workflow passes to infx (relative, no `..`, nothing a shell or YAML would bend). */
export const RepoPathSchema = z.string().regex(/^(?!\/)(?!.*(^|\/)\.\.(\/|$))[A-Za-z0-9._/+=-]+$/, {
  message:
    "a path inside the repository: letters, digits and '.', '_', '/', '+', '=', '-' (relative, no '..')",
});

export const CiWorkflowOptionsSchema = z.strictObject({
  /** The branch whose pushes run the full sweep and whose pull requests run the PR sweep. */
  branch: z.string().regex(/^[A-Za-z0-9._/-]+$/, { message: 'a branch name' }),
  /** Labels every point job asks for besides `self-hosted` and the row's runner (e.g. `gpu`). */
  runnerLabels: z.array(RunnerLabelSchema),
  /** Whether each point job also asks for its matrix row's runner label (h200, mi355x, …). */
  rowRunnerLabel: z.boolean(),
  /** The runs-on labels of the jobs that run no engine (gate, setup, collect, review). */
  controlRunner: z.array(RunnerLabelSchema).min(1),
  /** The secret that holds the results database URL (INFX_DB). */
  dbSecret: SecretNameSchema,
  changelogFile: RepoPathSchema,
  configFiles: z.array(RepoPathSchema).min(1),
  runnerConfig: RepoPathSchema,
  /** The shell command that puts `infx` on PATH in every job; null: the runners already have it. */
  install: z.string().min(1).nullable(),
  /** The Node.js version actions/setup-node installs. */
  nodeVersion: z.string().regex(/^[0-9][0-9.x]*$/, { message: 'a Node.js version such as 20 or 22.11' }),
  /** Extra arguments of the setup job's `infx sweep --plan-only` (engine, container, eval dataset, …). */
  sweepArgs: z.array(z.string()),
  /** Also write infx-review.yml (`infx review` on pull requests). */
  review: z.boolean(),
});
export type CiWorkflowOptions = z.infer<typeof CiWorkflowOptionsSchema>;

/** One job of the point matrix: which point of the planned run it runs, and where. */
export const CiPointEntrySchema = z.strictObject({
  /** The point id (its folder under points/). */
  point: z.string(),
  /** 1-based position in the run's plan: unique, so it names the job's artifact (point ids may hold ':'). */
  index: z.int().positive(),
  /** The matrix row's runner label. */
  runner: z.string(),
  /** Short job title: the point's bucket and concurrency. */
  title: z.string(),
});
export type CiPointEntry = z.infer<typeof CiPointEntrySchema>;

/** What the setup job hands the point jobs (`infx ci matrix`). */
export const CiMatrixOutputSchema = z.strictObject({
  /** Every point but the canary, for `strategy.matrix.include`. */
  include: z.array(CiPointEntrySchema),
  /** The canary point, run before the others; null when the run has none. */
  canary: CiPointEntrySchema.nullable(),
  /** All points, canary included. */
  count: z.int().nonnegative(),
});
export type CiMatrixOutput = z.infer<typeof CiMatrixOutputSchema>;

/** What the gate job decides from the event and the PR's labels (`infx ci labels`). */
export const CiLabelOutputSchema = z.strictObject({
  sweep: z.boolean(),
  reason: z.string(),
  primary: z.string().nullable(),
  trimConc: z.boolean(),
  allEvals: z.boolean(),
  evalsOnly: z.boolean(),
  agentxFast: z.boolean(),
  canary: z.boolean(),
  failFast: z.boolean(),
  errors: z.array(z.string()),
  warnings: z.array(z.string()),
});
export type CiLabelOutput = z.infer<typeof CiLabelOutputSchema>;
