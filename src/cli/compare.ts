import { type Command, InvalidArgumentError, Option } from 'commander';
import { plural } from '../schema/plural.ts';
import { numberIn } from './common.ts';
import { reportError, UsageError } from './errors.ts';
import type { CliIO } from './io.ts';

/** `infx compare RUN --baseline RUN|official`: throughput per GPU at matched interactivity, config by config. */

interface CompareFlags {
  baseline: string;
  against: 'config' | 'frontier';
  at?: number[];
  interactivity: 'median' | 'p90';
  format: 'table' | 'json' | 'md';
  db?: string;
  pricePerGpuHour?: number;
  noise?: number;
}

/** `--at 50,100` (repeatable): positive interactivities. */
export function parseAt(value: string, previous: number[] | undefined): number[] {
  const out = [...(previous ?? [])];
  for (const part of value.split(',')) {
    const v = Number(part.trim());
    if (part.trim() === '' || !Number.isFinite(v) || v <= 0)
      throw new InvalidArgumentError(
        `must be positive interactivities (tok/s/user) separated by commas, got '${value}'`,
      );
    out.push(v);
  }
  return out;
}

export function registerCompare(program: Command, io: CliIO, setExit: (code: number) => void): void {
  program
    .command('compare')
    .description(
      'compare a run with a baseline, config by config: throughput per GPU at matched interactivity on each ' +
        'Pareto front (monotone interpolation, never extrapolated), judged against the run-to-run spread ' +
        '(better, worse, mixed, no difference, same run), maximum throughput, dominance, cost per million ' +
        'tokens, and the reference table at equal concurrency',
    )
    .argument('<run>', 'a run directory (runs/<run-id>) or a run id in the database')
    .requiredOption(
      '--baseline <run>',
      "the run to compare against: a run directory, a run id, or 'official'",
    )
    .addOption(
      new Option(
        '--against <what>',
        'config: each config with the same config in the baseline; frontier: each config with the Pareto ' +
          "frontier of all the baseline's configs of its model, precision, hardware and workload, at its " +
          "points' interactivity (interpolation estimates, never extrapolated)",
      )
        .choices(['config', 'frontier'])
        .default('config'),
    )
    .option(
      '--at <list>',
      'interactivities to compare at, tok/s/user (e.g. 50,100; default: 5 over the overlap)',
      parseAt,
    )
    .addOption(
      new Option('--interactivity <stat>', 'which interactivity: median, or p90 (slow users)')
        .choices(['median', 'p90'])
        .default('median'),
    )
    .addOption(
      new Option('--format <format>', 'output format').choices(['table', 'json', 'md']).default('table'),
    )
    .option(
      '--db <url>',
      'results database for run ids, official, and the stored repeats that measure the run-to-run spread: a ' +
        'SQLite path or sqlite:PATH, or postgres://… (default: $INFX_DB, else .infx/infx.db)',
    )
    .option(
      '--price-per-gpu-hour <usd>',
      'price per GPU-hour for costs (default: the catalog estimate)',
      numberIn(0, Number.POSITIVE_INFINITY, true),
    )
    .option(
      '--noise <pct>',
      'run-to-run spread, % of the baseline, within which a gain is no difference (default: measured from ' +
        'repeated results of a config where there are any, else 2%, assumed)',
      numberIn(0, 100),
    )
    .action(async (runArg: string, flags: CompareFlags) => {
      const [{ loadCurves }, { compareRuns }, { sameIds }, fmt] = await Promise.all([
        import('../analysis/sources.ts'),
        import('../analysis/compare.ts'),
        import('../analysis/compare-noise.ts'),
        import('../analysis/compare-format.ts'),
      ]);
      try {
        if (flags.against === 'frontier') {
          await frontier(runArg, flags, io);
          return;
        }
        const run = await loadCurves(runArg, { db: flags.db });
        // `official`: only the configs the run has.
        const configKeys = [...new Set(run.points.map((p) => p.configKey))];
        const baseline = await loadCurves(flags.baseline, { db: flags.db, configKeys });
        for (const side of [run, baseline]) {
          if (side.skipped.length > 0)
            io.stderr(
              `note: ${side.label}: ${plural(side.skipped.length, 'planned point')} without a result, left out ` +
                `(${side.skipped[0]?.pointId}: ${side.skipped[0]?.reason})\n`,
            );
        }
        // Repeats for the spread: every other stored run's results of these configs, where a results
        // database is in use (a side from it, or --db named); never the run's own. Not needed when the
        // run is its own baseline.
        const dbInUse =
          !sameIds(run.runIds, baseline.runIds) &&
          (run.source === 'db' || baseline.source === 'db' || flags.db !== undefined);
        const repeats = dbInUse
          ? await (await import('../analysis/repeats-db.ts')).loadStoredRepeats(
              flags.db,
              configKeys,
              run.runIds,
            )
          : undefined;
        if (repeats === null)
          io.stderr(
            `note: no results database at ${flags.db}: the run-to-run spread is measured from the baseline only\n`,
          );
        const report = compareRuns(run, baseline, {
          at: flags.at ?? null,
          stat: flags.interactivity,
          pricePerGpuHour: flags.pricePerGpuHour ?? null,
          noisePct: flags.noise ?? null,
          repeats: repeats ?? undefined,
        });
        if (flags.format === 'json') io.stdout(`${JSON.stringify(report, null, 2)}\n`);
        else if (flags.format === 'md') io.stdout(fmt.formatCompareMarkdown(report));
        else io.stdout(fmt.formatCompareText(report));
      } catch (err) {
        setExit(reportError(err, io));
      }
    });
}

/** `--against frontier`: the run's configs against the baseline's frontiers; no spread, costs or --at. */
async function frontier(runArg: string, flags: CompareFlags, io: CliIO): Promise<void> {
  const given = (['at', 'noise', 'pricePerGpuHour'] as const).filter((k) => flags[k] !== undefined);
  if (given.length > 0)
    throw new UsageError(
      `--against frontier compares each of the run's measured points and takes no ${given
        .map((k) => (k === 'pricePerGpuHour' ? '--price-per-gpu-hour' : `--${k}`))
        .join(', ')}`,
    );
  const [{ loadFrontierSide }, { compareToFrontier, frontierBaseline }, fmt] = await Promise.all([
    import('../analysis/frontier-sources.ts'),
    import('../analysis/compare-frontier.ts'),
    import('../analysis/compare-frontier-format.ts'),
  ]);
  const run = await loadFrontierSide(runArg, { db: flags.db });
  // `official`: every config of the run's configs' groups, not their keys only.
  const loaded = await loadFrontierSide(flags.baseline, { db: flags.db });
  const baseline = flags.baseline === 'official' ? frontierBaseline(run, loaded) : loaded;
  for (const side of [run, baseline])
    if (side.skipped.length > 0)
      io.stderr(
        `note: ${side.label}: ${plural(side.skipped.length, 'planned point')} without a result, left out\n`,
      );
  const report = compareToFrontier(run, baseline, { stat: flags.interactivity });
  if (flags.format === 'json') io.stdout(`${JSON.stringify(report, null, 2)}\n`);
  else if (flags.format === 'md') io.stdout(fmt.formatFrontierMarkdown(report));
  else io.stdout(fmt.formatFrontierText(report));
}
