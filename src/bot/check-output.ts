import type { ReviewReport } from '../schema/review.ts';

/** The check run's conclusion, summary and annotations from the gate's and the review's reports. */

export interface GateResult {
  validate: { lines: string[]; errors: string[] };
  review: ReviewReport | null;
  /** Why there is no review report (the review crashed or printed no JSON). */
  reviewError: string | null;
}

export interface Annotation {
  path: string;
  start_line: number;
  end_line: number;
  annotation_level: 'failure' | 'warning' | 'notice';
  title: string;
  message: string;
}

// `path:line: message` as `infx changelog validate` names a byte-gate failure.
const AT = /^([^\s:][^:]*):(\d+): (.*)$/s;

export function checkOutput(
  r: GateResult,
  changelogFile: string,
): { conclusion: 'success' | 'failure'; title: string; summary: string; annotations: Annotation[] } {
  const annotations: Annotation[] = [];
  const lines: string[] = [];
  // The review runs the same gate (changelog.gate, changelog.byte-rule): its findings stand for the
  // validator's, once; the validator's own are shown when the review did not report the gate.
  const reviewed = (r.review?.findings ?? []).some((f) => f.rule.startsWith('changelog.'));
  const gateErrors = reviewed ? [] : r.validate.errors;
  for (const e of gateErrors) {
    const m = AT.exec(e);
    const line = m ? Number(m[2]) : 1;
    annotations.push({
      path: m ? (m[1] as string) : changelogFile,
      start_line: line,
      end_line: line,
      annotation_level: 'failure',
      title: 'changelog gate',
      message: m ? (m[3] as string) : e,
    });
    lines.push(`- ❌ changelog gate: ${e}`);
  }
  for (const l of r.validate.lines) lines.push(`- ✅ ${l}`);
  const findings = r.review?.findings ?? [];
  for (const f of findings) {
    const text = `${f.message}${f.fix ? `\n\nFix: ${f.fix}` : ''}`;
    if (f.file !== null)
      annotations.push({
        path: f.file,
        start_line: f.line ?? 1,
        end_line: f.line ?? 1,
        annotation_level: f.severity === 'blocking' ? 'failure' : 'warning',
        title: f.rule,
        message: text,
      });
    const where = f.file === null ? '' : ` (${f.file}${f.line === null ? '' : `:${f.line}`})`;
    lines.push(
      `- ${f.severity === 'blocking' ? '❌' : '⚠️'} \`${f.rule}\`${where}: ${f.message}${f.fix ? ` Fix: ${f.fix}` : ''}`,
    );
  }
  if (r.reviewError !== null) lines.push(`- ❌ ${r.reviewError}`);
  const blocking = (r.review?.blocking ?? 0) + gateErrors.length + (r.reviewError === null ? 0 : 1);
  const warnings = r.review?.warnings ?? 0;
  const conclusion = blocking > 0 ? 'failure' : 'success';
  const title =
    blocking > 0
      ? `${blocking} blocking finding${blocking === 1 ? '' : 's'}${warnings > 0 ? `, ${warnings} warning${warnings === 1 ? '' : 's'}` : ''}`
      : warnings > 0
        ? `changelog gate passed; ${warnings} warning${warnings === 1 ? '' : 's'}`
        : 'changelog gate passed; no findings';
  const summary = [`**${title}**`, '', ...lines].join('\n');
  // GitHub caps a summary at 65,535 characters.
  return {
    conclusion,
    title,
    summary: summary.length > 65_000 ? `${summary.slice(0, 65_000)}\n…` : summary,
    annotations,
  };
}

/** GitHub takes at most 50 annotations a request: the batches, each but the last sent before completing. */
export function annotationBatches(all: readonly Annotation[], size = 50): Annotation[][] {
  const out: Annotation[][] = [];
  for (let i = 0; i < all.length; i += size) out.push(all.slice(i, i + size));
  return out.length > 0 ? out : [[]];
}
