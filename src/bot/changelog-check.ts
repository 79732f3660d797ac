import type { Octokit } from '@octokit/rest';
import { ReviewReportSchema } from '../schema/review.ts';
import { type BotConfig, type PrRef, prFiles } from './bot-context.ts';
import { type Annotation, annotationBatches, checkOutput, type GateResult } from './check-output.ts';
import { runInfx, withCheckout } from './checkout.ts';

/**
 * The changelog gate and the rule-based review of a pull request, as one check run on its head: the bot
 * checks the head out in its own clone and runs `infx changelog validate` and `infx review` there (child
 * processes: a slow or crashing review never stalls the webhook server), each finding an annotation.
 */

export const CHECK_NAME = 'infx/changelog-review';
const RELEVANT = (changelog: string) => (f: string) =>
  f === changelog || /^configs\/[^/]+\.ya?ml$/.test(f) || /(^|\/)(benchmarks|recipes)\//.test(f);

export interface CheckTarget {
  headSha: string;
  baseSha: string;
}

async function gate(cfg: BotConfig, pr: PrRef, t: CheckTarget): Promise<GateResult> {
  const dir = cfg.repoDir as string;
  const refs = [
    ...['--base-ref', t.baseSha, '--head-ref', t.headSha, '--changelog-file', cfg.changelogFile],
    ...['--runner-config', cfg.runnerConfig, '--config-files', ...cfg.configFiles],
  ];
  const args = (cmd: string[]) => [
    ...cmd,
    ...refs,
    '--pr',
    String(pr.number),
    '--repo',
    `${pr.owner}/${pr.repo}`,
    '--format',
    'json',
  ];
  const [validate, review] = await withCheckout(dir, cfg.remote, pr.number, t, async () => [
    await runInfx(cfg.infx, args(['changelog', 'validate']), dir),
    await runInfx(cfg.infx, args(['review']), dir),
  ]);
  const parsedValidate = (() => {
    try {
      const doc = JSON.parse(validate.stdout) as { lines?: unknown; errors?: unknown };
      if (Array.isArray(doc.lines) && Array.isArray(doc.errors))
        return { lines: doc.lines.map(String), errors: doc.errors.map(String) };
    } catch {}
    return {
      lines: [],
      errors: [
        `infx changelog validate failed (exit ${validate.code}): ${validate.stderr.trim().slice(0, 2000)}`,
      ],
    };
  })();
  let reviewReport: GateResult['review'] = null;
  let reviewError: string | null = null;
  try {
    reviewReport = ReviewReportSchema.parse(JSON.parse(review.stdout));
  } catch {
    reviewError = `infx review failed (exit ${review.code}): ${review.stderr.trim().slice(0, 2000)}`;
  }
  return { validate: parsedValidate, review: reviewReport, reviewError };
}

export async function runChangelogCheck(
  gh: Octokit,
  cfg: BotConfig,
  pr: PrRef,
  t: CheckTarget,
): Promise<void> {
  const files = await prFiles(gh, pr);
  if (!files.some(RELEVANT(cfg.changelogFile))) return;
  if (cfg.repoDir === null) {
    cfg.log(`#${pr.number}: changelog check skipped: the bot has no --repo-dir`);
    return;
  }
  const created = await gh.rest.checks.create({
    owner: pr.owner,
    repo: pr.repo,
    name: CHECK_NAME,
    head_sha: t.headSha,
    status: 'in_progress',
    started_at: new Date().toISOString(),
  });
  const id = created.data.id;
  let out: { conclusion: 'success' | 'failure'; title: string; summary: string; annotations: Annotation[] };
  try {
    out = checkOutput(await gate(cfg, pr, t), cfg.changelogFile);
  } catch (err) {
    out = {
      conclusion: 'failure',
      title: 'infx could not check this change',
      summary: `The bot could not run the changelog gate on ${t.headSha.slice(0, 12)}: ${(err as Error).message}\n\nRe-run the check once the cause is fixed.`,
      annotations: [],
    };
  }
  const chunks = annotationBatches(out.annotations);
  // Every request but the last adds annotations; the last completes the run.
  for (const chunk of chunks.slice(0, -1))
    await gh.rest.checks.update({
      owner: pr.owner,
      repo: pr.repo,
      check_run_id: id,
      output: { title: out.title, summary: out.summary, annotations: chunk },
    });
  await gh.rest.checks.update({
    owner: pr.owner,
    repo: pr.repo,
    check_run_id: id,
    status: 'completed',
    conclusion: out.conclusion,
    completed_at: new Date().toISOString(),
    output: { title: out.title, summary: out.summary, annotations: chunks[chunks.length - 1] },
  });
  cfg.log(`#${pr.number}: ${CHECK_NAME} ${out.conclusion}: ${out.title}`);
}
