import type { ReviewFinding } from '../schema/review.ts';

/**
 * The PR body's required parts (addendum §3 item 6, the PR template): an "AI model disclosure" section
 * with something in it, and the checklist's boxes ticked. Line numbers are the body file's.
 */

const HEADING = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/;
const DISCLOSURE = /\bAI[\s-]+model\s+disclosure\b/i;
const UNCHECKED = /^\s*[-*+]\s+\[ \]\s+(.*)$/;

export function prBodyFindings(body: string, file: string): ReviewFinding[] {
  const lines = body.split(/\r?\n/);
  const out: ReviewFinding[] = [];
  const at = lines.findIndex((l) => {
    const m = HEADING.exec(l);
    return m !== null && DISCLOSURE.test(m[1] ?? '');
  });
  const base = { file, configKey: null };
  if (at < 0) {
    out.push({
      ...base,
      severity: 'blocking',
      rule: 'pr-body.ai-disclosure',
      line: null,
      message: 'the PR body has no "AI model disclosure" section',
      fix: 'add a "## AI model disclosure" section saying which AI models (if any) wrote or reviewed the change',
    });
  } else {
    const end = lines.findIndex((l, i) => i > at && HEADING.test(l));
    const text = lines.slice(at + 1, end < 0 ? undefined : end).join('\n');
    if (text.replace(/<!--[\s\S]*?-->/g, '').trim() === '')
      out.push({
        ...base,
        severity: 'blocking',
        rule: 'pr-body.ai-disclosure',
        line: at + 1,
        message: 'the "AI model disclosure" section is empty',
        fix: 'say which AI models (if any) wrote or reviewed the change, or "none"',
      });
  }
  lines.forEach((l, i) => {
    const m = UNCHECKED.exec(l);
    if (m)
      out.push({
        ...base,
        severity: 'warning',
        rule: 'pr-body.checklist',
        line: i + 1,
        message: `checklist item not ticked: ${(m[1] ?? '').trim()}`,
        fix: 'tick it once it holds, or say in the PR why it does not apply',
      });
  });
  return out;
}
