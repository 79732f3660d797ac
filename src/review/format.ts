import { plural } from '../schema/plural.ts';
import type { ReviewReport } from '../schema/review.ts';

/** The review as Markdown for a PR comment: blocking findings first, each with its place and fix. */
export function formatReviewMarkdown(r: ReviewReport): string {
  const head =
    r.findings.length === 0
      ? `## infx review: LGTM, no blocking issues found\n\n${plural(r.changedConfigs.length, 'changed config')} checked (${r.baseRef}..${r.headRef}).\n`
      : `## infx review: ${plural(r.blocking, 'blocking finding')}, ${plural(r.warnings, 'warning')}\n\n` +
        `${r.baseRef}..${r.headRef}; changed configs: ${r.changedConfigs.join(', ') || 'none'}.\n`;
  const order = [...r.findings].sort(
    (a, b) => Number(a.severity !== 'blocking') - Number(b.severity !== 'blocking'),
  );
  const items = order.map((f) => {
    const mark = f.severity === 'blocking' ? '🔴 **BLOCKING**' : '🟡 **WARNING**';
    const place = f.file === null ? '' : ` \`${f.file}${f.line === null ? '' : `:${f.line}`}\``;
    return `- ${mark} \`${f.rule}\`${place}: ${f.message}${f.fix === null ? '' : `\n  Fix: ${f.fix}`}`;
  });
  return `${head}${items.length > 0 ? `\n${items.join('\n')}\n` : ''}`;
}
