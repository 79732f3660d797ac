import { MODIFIER_LABELS, PRIMARY_LABELS } from '../matrix/labels.ts';
import { TRIGGER_PHRASE } from '../review/signoff.ts';

/**
 * The welcome the bot posts once on each pull request, in English and Chinese: how sweeps are started by
 * labels, the commands it answers, and how a CODEOWNER signs off. The label list is the policy's own table,
 * so the text cannot drift from what the label status enforces.
 */

export const WELCOME_MARKER = '<!-- infx-welcome -->';

export function welcomeComment(): string {
  const primaries = Object.keys(PRIMARY_LABELS)
    .map((l) => `\`${l}\``)
    .join(', ');
  const modifiers = MODIFIER_LABELS.map((l) => `\`${l}\``).join(', ');
  return `${WELCOME_MARKER}
Thank you for the pull request! infx benchmarks it when it is labelled:

- **Sweep labels.** Nothing runs until the PR carries exactly one primary sweep label: ${primaries}. Use \`full-sweep-fail-fast\` unless you want the matrix to keep going after a failure; \`sweep-enabled\` runs only the lowest concurrency of each recipe and cannot be reused at merge.
- **Modifiers** (${modifiers}) change what a primary label runs and do nothing on their own. \`evals-only\` and \`agentx-fast\` make the run ineligible for reuse at merge.
- **Fork PRs** run only after a maintainer (write access or more) applies the sweep label; the approval covers the current commit only.
- **Commands** (owners, members and collaborators): \`/reuse-sweep-run [run]\` or \`/use <run>\` checks that a run can stand in for the merge sweep; \`/stage-results [run]\` puts a run on the staging view.
- **Sign-off.** A CODEOWNER signs off with the latest review checklist, keeping the words "${TRIGGER_PHRASE}", so that the bot verifies it.

中文

感谢提交 PR！infx 会在 PR 带有标签后对其进行基准测试：

- **扫描标签：** PR 必须恰好带有一个主扫描标签才会运行：${primaries}。除非希望矩阵任务在失败后继续运行，否则请使用 \`full-sweep-fail-fast\`；\`sweep-enabled\` 只运行每个配方的最低并发，合并时不能复用。
- **修饰标签**（${modifiers}）只改变主标签运行的内容，单独使用不起作用。\`evals-only\` 和 \`agentx-fast\` 会使该运行在合并时无法复用。
- **来自 fork 的 PR** 只有在维护者（至少有写权限）添加扫描标签后才会运行；批准只对当前提交有效。
- **命令**（仓库所有者、组织成员和协作者）：\`/reuse-sweep-run [run]\` 或 \`/use <run>\` 检查某次运行能否代替合并时的扫描；\`/stage-results [run]\` 将运行放入预发布视图。
- **签核：** CODEOWNER 使用最新的审阅清单签核，并保留 "${TRIGGER_PHRASE}" 这句话，机器人才会进行验证。
`;
}
