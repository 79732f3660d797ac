import { writeFile } from 'node:fs/promises';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { plural } from '../schema/plural.ts';
import { reportError } from './errors.ts';
import type { CliIO } from './io.ts';

/** `infx plot RUN... --out chart.svg|chart.png`: throughput per GPU against interactivity, latency or TTFT. */

interface PlotFlags {
  out: string;
  x: 'interactivity' | 'e2el' | 'ttft';
  interactivity: 'median' | 'p90';
  yScale: 'linear' | 'log';
  width: number;
  height: number;
  title?: string;
  db?: string;
}

function outPath(value: string): string {
  if (!/\.(svg|png)$/i.test(value))
    throw new InvalidArgumentError(
      `the format comes from the extension: give a .svg or .png file, got '${value}'`,
    );
  return value;
}

function pixels(value: string): number {
  const v = Number(value);
  if (!/^\d+$/.test(value.trim()) || v < 200 || v > 8000)
    throw new InvalidArgumentError(`must be a whole number of pixels from 200 to 8000, got '${value}'`);
  return v;
}

export function registerPlot(program: Command, io: CliIO, setExit: (code: number) => void): void {
  program
    .command('plot')
    .description(
      'draw throughput per GPU against interactivity (or E2E latency, TTFT): one series per config and run, ' +
        'its points and its Pareto front; several runs overlay',
    )
    .argument('<runs...>', 'run directories (runs/<run-id>) or run ids in the database')
    .requiredOption('--out <file>', 'chart.svg or chart.png', outPath)
    .addOption(
      new Option('--x <axis>', 'x axis: interactivity (tok/s/user), e2el (s) or ttft (ms)')
        .choices(['interactivity', 'e2el', 'ttft'])
        .default('interactivity'),
    )
    .addOption(
      new Option('--interactivity <stat>', 'statistic of the x metric: median, or p90 (slow users)')
        .choices(['median', 'p90'])
        .default('median'),
    )
    .addOption(new Option('--y-scale <scale>', 'y axis scale').choices(['linear', 'log']).default('linear'))
    .option('--width <px>', 'image width', pixels, 960)
    .option('--height <px>', 'image height', pixels, 600)
    .option('--title <text>', 'chart title (default: Throughput per GPU vs. <x>)')
    .option(
      '--db <url>',
      'results database for run ids and official: a SQLite path or sqlite:PATH, or postgres://… (default: $INFX_DB, else .infx/infx.db)',
    )
    .action(async (runs: string[], flags: PlotFlags) => {
      const [{ loadCurves, SourceError }, { plot, plotFormat }] = await Promise.all([
        import('../analysis/sources.ts'),
        import('../analysis/plot.ts'),
      ]);
      try {
        const inputs = await Promise.all(runs.map((r) => loadCurves(r, { db: flags.db })));
        const format = plotFormat(flags.out) ?? 'svg';
        const result = await plot(inputs, format, {
          x: flags.x,
          stat: flags.interactivity,
          yScale: flags.yScale,
          width: flags.width,
          height: flags.height,
          title: flags.title,
        });
        try {
          await writeFile(flags.out, result.bytes);
        } catch (err) {
          throw new SourceError(`cannot write ${flags.out}: ${(err as Error).message}`);
        }
        for (const w of result.warnings) io.stderr(`note: ${w}\n`);
        const points = result.chart.series.reduce((n, s) => n + s.points.length, 0);
        io.stdout(
          `wrote ${flags.out} (${result.chart.width}×${result.chart.height}, ${result.chart.series.length} series, ` +
            `${plural(points, 'point')})\n`,
        );
      } catch (err) {
        setExit(reportError(err, io));
      }
    });
}
