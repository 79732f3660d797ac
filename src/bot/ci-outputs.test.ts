import { describe, expect, it } from 'vitest';
import type { RunManifest } from '../schema/run-dir.ts';
import {
  CiOutputError,
  ciLabelDecision,
  ciMatrix,
  matrixOutputLines,
  RELEVANT_LABELS,
} from './ci-outputs.ts';

/** The gate's decision and the setup job's matrix, as the workflow's jobs read them. */

const point = (i: number, canary = false) => ({
  pointId: `p${i}`,
  index: i,
  canary,
  bucket: 'single-node 1k1k',
  conc: 2 ** i,
  row: { runner: i % 2 ? 'h200' : 'mi355x' },
});
const manifest = (n: number, canary: boolean) =>
  ({
    runId: 'gh-1-1',
    points: Array.from({ length: n }, (_, i) => point(i, canary && i === 0)),
  }) as unknown as RunManifest;

describe('ciMatrix', () => {
  it('keeps the canary apart and numbers each job by its place in the plan', () => {
    const m = ciMatrix(manifest(3, true));
    expect(m.canary).toEqual({
      point: 'p0',
      index: 1,
      runner: 'mi355x',
      title: 'canary single-node 1k1k conc 1 #1',
    });
    expect(m.include.map((e) => [e.point, e.index, e.runner])).toEqual([
      ['p1', 2, 'h200'],
      ['p2', 3, 'mi355x'],
    ]);
    expect(matrixOutputLines(m).split('\n').slice(1, 4)).toEqual([
      'jobs=2',
      `canary=${JSON.stringify(m.canary)}`,
      'count=3',
    ]);
    expect(matrixOutputLines(ciMatrix(manifest(1, false)))).toContain('\ncanary=\n');
  });

  it('refuses more jobs than GitHub runs from one matrix, and says what to do', () => {
    expect(ciMatrix(manifest(257, true)).include).toHaveLength(256);
    expect(() => ciMatrix(manifest(257, false))).toThrow(
      /257 points besides the canary, more than the 256 jobs/,
    );
    const err = (() => {
      try {
        ciMatrix(manifest(4, false), 3);
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(err).toBeInstanceOf(CiOutputError);
    expect((err as CiOutputError).hint).toMatch(/sweep-enabled.*--executor slurm/);
  });
});

describe('ciLabelDecision', () => {
  it('follows the label table, [skip-sweep] on PRs only', () => {
    expect(ciLabelDecision(['full-sweep-fail-fast-no-canary'], 'pr', false)).toMatchObject({
      sweep: true,
      canary: false,
      failFast: true,
      trimConc: false,
    });
    expect(ciLabelDecision(['full-sweep-enabled'], 'pr', true).sweep).toBe(false);
    expect(ciLabelDecision([], 'push', true)).toMatchObject({ sweep: true, canary: false, trimConc: false });
    expect(ciLabelDecision(['evals-only'], 'pr', false).sweep).toBe(false);
    expect(ciLabelDecision(['sweep-enabled', 'full-sweep-enabled'], 'pr', false)).toMatchObject({
      sweep: false,
      errors: [expect.stringContaining('PR has multiple conflicting sweep labels. Pick exactly one.')],
    });
  });

  it('knows the 13 labels whose events steer a sweep', () => {
    expect(RELEVANT_LABELS).toHaveLength(13);
    expect(new Set(RELEVANT_LABELS).size).toBe(13);
  });
});
