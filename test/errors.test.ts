import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SourceError } from '../src/analysis/source-error.ts';
import { CatalogError } from '../src/catalog/index.ts';
import { ChangelogError } from '../src/changelog/errors.ts';
import { CatalogLoadError, reportError, UsageError } from '../src/cli/errors.ts';
import type { CliIO } from '../src/cli/io.ts';
import { MAX_BUG_REPORTS, writeBugReport } from '../src/cli/launch.ts';
import { ProbeError } from '../src/client/probe.ts';
import { ConfigError } from '../src/config/diagnostics.ts';
import { RecipeError } from '../src/engines/frameworks.ts';
import { EngineStartError } from '../src/engines/process.ts';
import { MatrixError } from '../src/matrix/errors.ts';
import { TooManyRowsError } from '../src/matrix/limits.ts';
import { InferencexAggregateError } from '../src/metrics/inferencex-env.ts';
import { InfxError } from '../src/schema/errors.ts';
import { PathEscapeError } from '../src/schema/safe-path.ts';
import { SimSetupError } from '../src/sim/engine/config.ts';
import { PredictError } from '../src/sim/engine/predict.ts';
import { RowsError } from '../src/sim/engine/rows.ts';
import { SpecConfigError } from '../src/sim/engine/spec-decode.ts';
import { ServeError } from '../src/sim/scripted/run.ts';
import { ScriptError } from '../src/sim/scripted/script.ts';
import { ServeSetupError } from '../src/sim/serve/setup-from.ts';
import { StoreError } from '../src/store/db.ts';
import { MigrationError } from '../src/store/migrations.ts';
import { RunDirReadError, RunIdentityError } from '../src/store/run-dir-files.ts';
import { VerifyError } from '../src/store/verify.ts';
import { BenchError, BenchInterrupted, BenchUsageError } from '../src/sweep/bench-point.ts';
import { SlurmError } from '../src/sweep/executors/slurm-cli.ts';
import { JobScriptError } from '../src/sweep/executors/slurm-script.ts';
import { LockHeldError, RunLockError } from '../src/sweep/lock.ts';
import { SweepPlanError } from '../src/sweep/points.ts';
import { RunDirError } from '../src/sweep/run-dir.ts';
import { WorkloadError } from '../src/workload/errors.ts';
import { runCli, tmpDir } from './helpers.ts';

/** The one mapping from errors to what the user reads and the exit code (src/cli/errors.ts). */

function report(err: unknown): { code: number; stderr: string } {
  let stderr = '';
  const io: CliIO = {
    stdout: () => {},
    stderr: (t) => {
      stderr += t;
    },
    readStdin: async () => '',
    isTTY: false,
  };
  const code = reportError(err, io);
  return { code, stderr };
}

const m = 'what went wrong';

describe('reportError', () => {
  it.each<[string, InfxError, number]>([
    ['CatalogError', new CatalogError(m), 1],
    ['PathEscapeError', new PathEscapeError(m), 1],
    ['RecipeError', new RecipeError(m), 1],
    ['EngineStartError', new EngineStartError(m, null), 1],
    ['JobScriptError', new JobScriptError(m), 1],
    ['SlurmError', new SlurmError(m, 'sbatch', '', 1), 1],
    ['RunDirError', new RunDirError(m), 1],
    ['RunLockError', new RunLockError(m), 1],
    ['LockHeldError', new LockHeldError(m, null), 1],
    ['SweepPlanError', new SweepPlanError(m), 1],
    ['BenchError', new BenchError(m), 1],
    ['BenchUsageError', new BenchUsageError(m), 2],
    ['ServeSetupError', new ServeSetupError(m), 1],
    ['SimSetupError', new SimSetupError(m), 1],
    ['PredictError', new PredictError(m), 1],
    ['RowsError', new RowsError(m), 1],
    ['SpecConfigError', new SpecConfigError(m), 1],
    ['MatrixError', new MatrixError(m), 1],
    ['MatrixError (usage)', new MatrixError(m, { usage: true }), 2],
    ['StoreError', new StoreError(m), 1],
    ['StoreError (usage)', new StoreError(m, true), 2],
    ['MigrationError', new MigrationError(m), 1],
    ['VerifyError', new VerifyError(m), 1],
    ['RunDirReadError', new RunDirReadError(m), 1],
    ['RunIdentityError', new RunIdentityError(m), 1],
    ['WorkloadError', new WorkloadError(m), 1],
    ['ProbeError', new ProbeError(m), 1],
    ['SourceError', new SourceError(m), 1],
    ['SourceError (usage)', new SourceError(m, true), 2],
    ['ChangelogError', new ChangelogError(m), 1],
    ['InferencexAggregateError', new InferencexAggregateError(m), 1],
    ['UsageError', new UsageError(m), 2],
  ])('%s: "error: MESSAGE", exit %i', (_name, err, code) => {
    expect(err).toBeInstanceOf(InfxError);
    expect(report(err)).toEqual({ code, stderr: `error: ${m}\n` });
  });

  it('TooManyRowsError is a MatrixError: exit 1', () => {
    expect(report(new TooManyRowsError('k', 'f.yaml')).code).toBe(1);
  });

  it('an interruption says its message as it is: exit 130', () => {
    expect(report(new BenchInterrupted('interrupted: 2 of 3 points measured'))).toEqual({
      code: 130,
      stderr: 'interrupted: 2 of 3 points measured\n',
    });
  });

  it('a catalog the program cannot use: "infx: MESSAGE", exit 1', () => {
    expect(report(new CatalogLoadError(m))).toEqual({ code: 1, stderr: `infx: ${m}\n` });
  });

  it('a config error prints its diagnostics first', () => {
    const d = {
      severity: 'error' as const,
      rule: 'schema.type',
      message: 'expected a number',
      file: 'a.yaml',
      line: 3,
      column: 5,
      path: ['k'],
    };
    const r = report(new ConfigError('1 error in 1 file', [d]));
    expect(r.code).toBe(1);
    const lines = r.stderr.split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toContain('a.yaml:3:5');
    expect(lines[1]).toBe('error: 1 error in 1 file');
  });

  it('a list of problems: one error line each (a scripted server script)', () => {
    expect(report(new ScriptError(['a: bad', 'b: worse'])).stderr).toBe('error: a: bad\nerror: b: worse\n');
    expect(report(new ServeError('one\ntwo')).stderr).toBe('error: one\nerror: two\n');
    // Elsewhere a multi-line message is one error, as before.
    expect(report(new BenchUsageError('one\ntwo')).stderr).toBe('error: one\ntwo\n');
  });

  it('a hint goes on a line of its own; an exit code can be chosen', () => {
    expect(report(new InfxError(m, { hint: 'run it again', exitCode: 2 }))).toEqual({
      code: 2,
      stderr: `error: ${m}\nhint: run it again\n`,
    });
  });

  it('anything else is a bug: thrown on, to the process entry (exit 70 there)', () => {
    const bug = new TypeError('x is undefined');
    expect(() => report(bug)).toThrow(bug);
    expect(() => report('a string')).toThrow();
  });
});

describe('a command that leaves an error to the program', () => {
  it('is reported by the same mapping', async () => {
    // infx bench catches nothing: its BenchUsageError reaches parseProgram.
    const r = await runCli([
      'bench',
      '--base-url',
      'http://127.0.0.1:9',
      '--model',
      'm',
      '--isl',
      '8',
      '--osl',
      '8',
      '--concurrency',
      '1',
      '--out',
      'x',
      '--prefill-gpus',
      '4',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: --prefill-gpus and --decode-gpus go together/);
  });
});

describe('bug reports', () => {
  it('hold the trace, and the folder keeps only the newest', () => {
    const dir = tmpDir('infx-bugs-');
    for (let i = 0; i < MAX_BUG_REPORTS + 5; i++)
      writeFileSync(join(dir, `infx-bug-2020-01-01T00-00-${String(i).padStart(2, '0')}-000Z-1.txt`), 'old');
    writeFileSync(join(dir, 'notes.txt'), 'not a report');
    const path = writeBugReport(new TypeError('x is undefined'), ['matrix'], { INFX_BUG_DIR: dir });
    expect(path).not.toBeNull();
    expect(readFileSync(path!, 'utf8')).toMatch(/TypeError: x is undefined\n\s+at /);
    const left = readdirSync(dir);
    expect(left.filter((f) => f.startsWith('infx-bug-'))).toHaveLength(MAX_BUG_REPORTS);
    expect(left).toContain('notes.txt');
    expect(left).toContain(path!.slice(dir.length + 1));
  });
});
