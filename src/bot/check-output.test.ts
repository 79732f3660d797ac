import { describe, expect, it } from 'vitest';
import type { ReviewFinding, ReviewReport } from '../schema/review.ts';
import { annotationBatches, checkOutput } from './check-output.ts';

const finding = (over: Partial<ReviewFinding>): ReviewFinding => ({
  severity: 'warning',
  rule: 'check.memory',
  file: 'configs/amd-master.yaml',
  line: 3,
  configKey: null,
  message: 'tight',
  fix: null,
  ...over,
});
const report = (findings: ReviewFinding[]): ReviewReport => ({
  schemaVersion: 1,
  baseRef: 'b',
  headRef: 'h',
  changedFiles: [],
  changedConfigs: [],
  blocking: findings.filter((f) => f.severity === 'blocking').length,
  warnings: findings.filter((f) => f.severity === 'warning').length,
  findings,
});
const passed = { lines: ['Validated perf-changelog.yaml'], errors: [] };

describe('the changelog check output', () => {
  it('passes with warnings annotated as warnings; a finding with no file is in the summary only', () => {
    const out = checkOutput(
      {
        validate: passed,
        review: report([finding({}), finding({ file: null, line: null, message: 'whole change' })]),
        reviewError: null,
      },
      'perf-changelog.yaml',
    );
    expect(out.conclusion).toBe('success');
    expect(out.title).toBe('changelog gate passed; 2 warnings');
    expect(out.annotations).toEqual([
      expect.objectContaining({
        path: 'configs/amd-master.yaml',
        start_line: 3,
        annotation_level: 'warning',
      }),
    ]);
    expect(out.summary).toContain('whole change');
  });

  it('fails when the review could not run, and annotates the gate itself then', () => {
    const out = checkOutput(
      {
        validate: { lines: [], errors: ['perf-changelog.yaml:9: bytes changed'] },
        review: null,
        reviewError: 'infx review failed (exit 2): boom',
      },
      'perf-changelog.yaml',
    );
    expect(out.conclusion).toBe('failure');
    expect(out.title).toBe('2 blocking findings');
    expect(out.annotations).toEqual([
      expect.objectContaining({ path: 'perf-changelog.yaml', start_line: 9, message: 'bytes changed' }),
    ]);
    expect(out.summary).toContain('boom');
  });

  it('sends annotations 50 a request', () => {
    const many = Array.from({ length: 120 }, (_, i) => finding({ line: i + 1, severity: 'blocking' }));
    const out = checkOutput(
      { validate: passed, review: report(many), reviewError: null },
      'perf-changelog.yaml',
    );
    expect(annotationBatches(out.annotations).map((b) => b.length)).toEqual([50, 50, 20]);
    expect(annotationBatches([])).toEqual([[]]);
  });
});
