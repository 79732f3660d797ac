import { join } from 'node:path';
import type { Command } from 'commander';
import { parseIntArg, positiveInt } from './common.ts';
import type { CliIO } from './io.ts';
import { onInterrupt } from './signals.ts';
import { timeScale } from './sweep-flags.ts';

/** `infx demo` (npm run demo): example sweep on the simulated engine → store → dashboard. */

interface DemoFlags {
  dir: string;
  db?: string;
  port: number;
  host: string;
  simTimeScale: number | 'auto';
  maxConc?: number;
  exitAfterIngest?: boolean;
}

async function demo(f: DemoFlags, io: CliIO, version: string): Promise<number> {
  const [{ demoIngest, demoSweep }, { sweepReporter }, { formatIngestReport }] = await Promise.all([
    import('../demo/demo.ts'),
    import('../sweep/progress.ts'),
    import('../store/format.ts'),
  ]);
  const options = {
    dir: f.dir,
    db: f.db ?? join(f.dir, 'infx.db'),
    timeScale: f.simTimeScale,
    maxConc: f.maxConc,
    version,
  };
  const reporter = sweepReporter({ write: io.stderr, isTTY: io.stderrIsTTY ?? io.isTTY });
  // Ctrl-C only: the sweep stops quietly and says how to finish it afterwards.
  const interrupt = onInterrupt({ signals: ['SIGINT'] });
  let sweep: Awaited<ReturnType<typeof demoSweep>>;
  try {
    io.stderr(
      `infx demo: sweeping examples/demo.yaml and examples/demo-agentic.yaml (an agentic replay of a synthetic corpus) on the simulated engine (${f.simTimeScale === 'auto' ? 'each point as fast as this host sustains' : `${f.simTimeScale}x real time`}; every figure is simulated)\n`,
    );
    sweep = await demoSweep(options, {
      log: reporter.log,
      onProgress: reporter.progress,
      signal: interrupt.signal,
    });
    reporter.end();
  } finally {
    interrupt.dispose();
  }
  const { outcome, runDir, resumed } = sweep;
  if (outcome.interrupted) {
    io.stderr('interrupted: run `npm run demo` again to finish the sweep where it stopped\n');
    return 130;
  }
  io.stderr(
    `${resumed && outcome.ok.length + outcome.invalid.length === 0 ? 'reused the earlier demo sweep' : 'sweep done'}: ` +
      `${outcome.alreadyDone + outcome.ok.length} points ok` +
      `${outcome.invalid.length ? `, ${outcome.invalid.length} not valid` : ''}, ${outcome.failed.length} failed (${runDir})\n`,
  );
  const report = await demoIngest(options, runDir);
  io.stderr(formatIngestReport(report));
  if (f.exitAfterIngest) return report.ingested > 0 ? 0 : 1;

  const { listenErrorMessage, startWebServer } = await import('../web/server.ts');
  let server: Awaited<ReturnType<typeof startWebServer>>;
  try {
    server = await startWebServer({
      db: options.db,
      port: f.port,
      host: f.host,
      runsDirs: [join(f.dir, 'runs')],
      log: (line) => io.stderr(`${line}\n`),
    });
  } catch (err) {
    const listen = listenErrorMessage(err, f.host, f.port);
    if (!listen) throw err;
    io.stderr(
      `error: ${listen}; the results are stored: \`infx serve --db ${options.db} --port N\` shows them\n`,
    );
    return 1;
  }
  // The demo's results are stored as unofficial (they are simulated): open the view that shows them.
  io.stdout(
    `infx demo: the dashboard is at ${server.url}?status=unofficial, the agentic replay at ${server.url}agentic?status=unofficial  (Ctrl-C to stop)\n`,
  );
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await server.close();
  return 0;
}

export function registerDemo(
  program: Command,
  io: CliIO,
  setExit: (code: number) => void,
  version: string,
): void {
  program
    .command('demo')
    .description(
      'run the demo: an example sweep on the simulated engine, results in SQLite, the dashboard on localhost',
    )
    .option('--dir <dir>', 'where the demo keeps its runs and database', '.infx')
    .option('--db <url>', 'results database (default <dir>/infx.db)')
    .option('--port <port>', 'dashboard port (0: any free port)', parseIntArg, 8080)
    .option('--host <host>', 'dashboard address', '127.0.0.1')
    .option(
      '--sim-time-scale <s>',
      "simulated engine speed-up, or 'auto': as fast as this host sustains for each point",
      timeScale,
      'auto' as const,
    )
    .option('--max-conc <n>', 'a quicker demo: concurrencies up to N only', positiveInt)
    .option('--exit-after-ingest', 'stop after the results are stored (no dashboard)')
    .action(async (flags: DemoFlags) => {
      setExit(await demo(flags, io, version));
    });
}
