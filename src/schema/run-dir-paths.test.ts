import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ATTEMPT_DIR_PATTERN, ATTEMPT_FILES, attemptDirName, attemptOfDir, MAX_ATTEMPT } from './run-dir.ts';
import {
  attemptDir,
  attemptDirIn,
  attemptFile,
  fileIn,
  manifestPath,
  pointDir,
  pointSpecPath,
  pointsDir,
  RunDirPathError,
} from './run-dir-paths.ts';
import { PathEscapeError } from './safe-path.ts';

const run = join('runs', 'r1');
const id = 'dsr1_1k1k_fp8_sglang_tp8-ep1-dpafalse_h200_conc4~2';

describe('run-directory paths', () => {
  it('build the documented layout', () => {
    expect(manifestPath(run)).toBe(join('runs', 'r1', 'manifest.json'));
    expect(pointsDir(run)).toBe(join('runs', 'r1', 'points'));
    expect(pointDir(run, id)).toBe(join('runs', 'r1', 'points', id));
    expect(pointSpecPath(run, id)).toBe(join('runs', 'r1', 'points', id, 'spec.json'));
    expect(attemptDir(run, id, 3)).toBe(join('runs', 'r1', 'points', id, 'attempt-3'));
    expect(attemptFile(run, id, 1, ATTEMPT_FILES.status)).toBe(
      join('runs', 'r1', 'points', id, 'attempt-1', 'status.json'),
    );
    expect(attemptFile(run, id, 1, ATTEMPT_FILES.requests)).toBe(
      join('runs', 'r1', 'points', id, 'attempt-1', 'requests.jsonl'),
    );
    expect(fileIn(attemptDirIn(pointDir(run, id), 2), ATTEMPT_FILES.log)).toBe(
      join('runs', 'r1', 'points', id, 'attempt-2', 'server.log'),
    );
  });

  it('name attempt folders so that the reader finds them again', () => {
    for (const n of [1, 2, 10, 999, MAX_ATTEMPT]) {
      expect(attemptOfDir(attemptDirName(n))).toBe(n);
      expect(ATTEMPT_DIR_PATTERN.test(attemptDirName(n))).toBe(true);
    }
  });

  it.each([
    '..',
    '.',
    '../../etc',
    '/etc/passwd',
    'a/b',
    'a\\b',
    'a\0b',
    '',
    '-leading-dash',
    'x'.repeat(256),
  ])('refuse the hostile point id %j', (hostile) => {
    expect(() => pointDir(run, hostile)).toThrow(RunDirPathError);
    expect(() => pointSpecPath(run, hostile)).toThrow(RunDirPathError);
    expect(() => attemptDir(run, hostile, 1)).toThrow(RunDirPathError);
    expect(() => attemptFile(run, hostile, 1, ATTEMPT_FILES.result)).toThrow(PathEscapeError);
  });

  it.each([0, -1, 1.5, Number.NaN, MAX_ATTEMPT + 1])('refuse the attempt number %s', (n) => {
    expect(() => attemptDir(run, id, n)).toThrow(RunDirPathError);
    expect(() => attemptDirIn(pointDir(run, id), n)).toThrow(/is not a number from 1 to/);
    expect(() => attemptDirName(n)).toThrow(RangeError);
  });
});
