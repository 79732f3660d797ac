import { type Command, Option } from 'commander';
import { formatStatus } from '../sweep/format.ts';
import { runPointAttempt } from '../sweep/point-run.ts';
import { readPointSpec } from '../sweep/point-spec.ts';
import { pointStates, readManifest, resultHeadline } from '../sweep/run-dir.ts';
import { nonNegativeInt, positiveInt } from './common.ts';
import { reportError } from './errors.ts';
import type { CliIO } from './io.ts';
import {
  agenticDefaults,
  benchDefaults,
  engineDefaults,
  evalDefaults,
  faultRules,
  type PointFlags,
  pointFlags,
} from './sweep-flags.ts';
import { runAndReport } from './sweep-run.ts';

/** `infx sweep point | status | retry`: one point (what each job runs), a run's state, reruns. */

interface PointCmdFlags extends PointFlags {
  point: string;
  out: string;
  attempt: number;
  conc?: number;
  runId: string;
  watchStdin?: boolean;
}

async function point(f: PointCmdFlags, io: CliIO, version: string): Promise<number> {
  const spec = await readPointSpec(f.point, {
    runId: f.runId,
    conc: f.conc,
    bench: benchDefaults(f),
    engine: engineDefaults(f),
    faults: faultRules(f),
    agentic: await agenticDefaults(f),
    eval: evalDefaults(f),
  });
  const controller = new AbortController();
  const stop = (why: string) => {
    if (controller.signal.aborted) return;
    io.stderr(`${why}: stopping the point and its engine\n`);
    controller.abort();
  };
  // Every way a job is told to stop (Ctrl-C, scancel's and the local executor's SIGTERM, a closed terminal)
  // stops the engine first; SIGKILL cannot be caught, so the executor ends the recorded engine groups then.
  const onSigint = () => stop('interrupted');
  const onSigterm = () => stop('terminated');
  const onSighup = () => stop('hung up');
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigterm);
  process.on('SIGHUP', onSighup);
  // The sweep that started this process holds stdin open: its end means the sweep is gone.
  const onEnd = () => stop('the sweep that started this point has gone');
  if (f.watchStdin) {
    process.stdin.on('end', onEnd);
    process.stdin.on('error', onEnd);
    process.stdin.resume();
  }
  try {
    const status = await runPointAttempt(spec, {
      attempt: f.attempt,
      outDir: f.out,
      version,
      signal: controller.signal,
      log: (line) => io.stderr(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`),
      slurmJobId: process.env.SLURM_JOB_ID ?? null,
    });
    io.stdout(
      `${status.pointId} attempt ${status.attempt}: ${status.status}` +
        `${status.phase ? ` in ${status.phase}` : ''}${status.reason ? `: ${status.reason}` : ''} (${f.out})\n`,
    );
    if (status.interrupted) return 130;
    return status.status === 'ok' ? 0 : 1;
  } finally {
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigterm);
    process.off('SIGHUP', onSighup);
    if (f.watchStdin) {
      process.stdin.off('end', onEnd);
      process.stdin.off('error', onEnd);
      process.stdin.pause();
    }
  }
}

export function registerSweepTools(
  sweep: Command,
  io: CliIO,
  setExit: (code: number) => void,
  version: string,
): void {
  pointFlags(
    sweep
      .command('point')
      .description(
        'run one point: fresh engine, readiness, warmup, measurement, teardown; writes the attempt directory (what each sweep job runs)',
      )
      .requiredOption(
        '--point <file>',
        "a matrix row (JSON, as infx matrix prints) or a sweep's points/<id>/spec.json",
      )
      .requiredOption(
        '--out <dir>',
        'the attempt directory to write (point.json, status.json, result.json, ...)',
      )
      .option('--attempt <n>', 'attempt number', positiveInt, 1)
      .option(
        '--conc <n>',
        'a row with several concurrencies: the one to run (default the first)',
        positiveInt,
      )
      .option('--run-id <id>', 'run id recorded for a plain matrix row', 'adhoc')
      .option('--watch-stdin', 'stop when stdin closes (set by the local executor)'),
  ).action(async (flags: PointCmdFlags) => {
    try {
      setExit(await point(flags, io, version));
    } catch (err) {
      setExit(reportError(err, io));
    }
  });

  sweep
    .command('status')
    .description('done, failed and pending points of a run, with the reasons')
    .argument('<run-dir>', 'the run directory, e.g. runs/<run-id>')
    .addOption(new Option('--format <fmt>', 'text or json').choices(['text', 'json']).default('text'))
    .action(async (runDir: string, flags: { format: 'text' | 'json' }) => {
      try {
        const manifest = await readManifest(runDir);
        const states = await pointStates(runDir, manifest.points);
        const headlines = new Map(
          await Promise.all(
            [...states].map(
              async ([id, s]) =>
                [id, s.state === 'done' ? await resultHeadline(runDir, id, s.status.attempt) : null] as const,
            ),
          ),
        );
        io.stdout(
          flags.format === 'json'
            ? `${JSON.stringify({ runId: manifest.runId, points: Object.fromEntries(states) }, null, 2)}\n`
            : formatStatus(manifest, states, headlines),
        );
        setExit(0);
      } catch (err) {
        setExit(reportError(err, io));
      }
    });

  sweep
    .command('retry')
    .description('run the failed points of a finished run again (new attempts), and what never ran')
    .argument('<run-dir>', 'the run directory, e.g. runs/<run-id>')
    .option('--failed-only', 'only the failed points, not the ones that never ran')
    .option('--retries <n>', "retries per point this time (default: the run's --retries)", nonNegativeInt)
    .action(async (runDir: string, flags: { failedOnly?: boolean; retries?: number }) => {
      try {
        setExit(
          await runAndReport(runDir, flags.failedOnly ? 'failed' : 'failed-and-missing', io, {
            retries: flags.retries,
          }),
        );
      } catch (err) {
        setExit(reportError(err, io));
      }
    });
}
