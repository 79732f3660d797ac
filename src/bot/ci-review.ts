import type { CiWorkflowOptions } from '../schema/ci-workflow.ts';
import { type Job, script, setupSteps, shWords } from './ci-yaml.ts';

/**
 * infx-review.yml: `infx review` on every pull request that touches the changelog, the master configs or
 * the runner config, its report in the job summary and its verdict as the job's (exit 1 on a blocking
 * finding). The PR description is written to a file from `env:`, never spliced into the script.
 */

const E = (expr: string) => `\${{ ${expr} }}`;

export function reviewWorkflow(o: CiWorkflowOptions): Record<string, unknown> {
  const job: Job = {
    name: 'infx review',
    if: 'github.event.pull_request.draft == false',
    'runs-on': o.controlRunner,
    steps: [
      ...setupSteps(o, { ref: E('github.event.pull_request.head.sha'), history: true }),
      {
        name: 'Review the change',
        env: {
          BASE_SHA: E('github.event.pull_request.base.sha'),
          HEAD_SHA: E('github.event.pull_request.head.sha'),
          PR_NUMBER: E('github.event.pull_request.number'),
          PR_BODY: E('github.event.pull_request.body'),
        },
        run: script(
          'body="$RUNNER_TEMP/infx-pr-body.md"',
          'report="$RUNNER_TEMP/infx-review.md"',
          'printf \'%s\\n\' "$PR_BODY" > "$body"',
          'code=0',
          'infx review --base-ref "$BASE_SHA" --head-ref "$HEAD_SHA" --pr "$PR_NUMBER" --repo "$GITHUB_REPOSITORY" --pr-body "$body" ' +
            `${shWords(['--changelog-file', o.changelogFile, '--config-files', ...o.configFiles, '--runner-config', o.runnerConfig])} > "$report" || code=$?`,
          'cat "$report"',
          'cat "$report" >> "$GITHUB_STEP_SUMMARY"',
          'exit "$code"',
        ),
      },
    ],
  };
  return {
    name: 'infx review',
    on: {
      pull_request: {
        branches: [o.branch],
        types: ['opened', 'synchronize', 'reopened', 'ready_for_review', 'edited'],
        paths: [o.changelogFile, ...o.configFiles, o.runnerConfig],
      },
    },
    permissions: { contents: 'read' },
    concurrency: {
      group: `infx-review-${E('github.event.pull_request.number')}`,
      'cancel-in-progress': true,
    },
    defaults: { run: { shell: 'bash' } },
    jobs: { review: job },
  };
}
