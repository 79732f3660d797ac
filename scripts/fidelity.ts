/**
 * `npm run fidelity`: predicts every point of bench/data/fidelity-points.yaml with the current simulator,
 * rewrites the generated fidelity table in docs/sim-fidelity.md (between the fidelity markers) and prints
 * the counts per half.
 *
 *   npm run fidelity               # regenerate the table
 *   npm run fidelity -- --check    # exit 1 when the document's table is not what this would write
 *
 * `--points FILE`, `--doc FILE` and `--catalog FILE` replace the three paths (the test runs it on a small file of
 * its own). Any other argument is an error.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { useUserCatalog } from '../src/config/user-catalog.ts';
import { writeFileAtomic } from '../src/sweep/atomic-write.ts';
import {
  halfMismatches,
  loadPointsFile,
  POINTS_FILE,
  type PointsFile,
  PointsFileError,
} from './fidelity/points.ts';
import { predictPoint } from './fidelity/predict.ts';
import { type Prediction, renderSection, replaceSection, score, summaryLines } from './fidelity/table.ts';

export const DOC = 'docs/sim-fidelity.md';
/** Models the points need that the built-in catalog lacks, added as a user catalog. */
export const CATALOG = 'bench/data/fidelity-catalog.yaml';

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}

const VALUE_OPTIONS = ['--points', '--doc', '--catalog'];
const USAGE = 'usage: npm run fidelity [-- --check] [--points FILE] [--doc FILE] [--catalog FILE]';

/** The first argument this script does not know (an ignored flag would regenerate the table unasked). */
function unknownArgument(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === '--check') continue;
    if (VALUE_OPTIONS.includes(a) && args[i + 1] !== undefined && !args[i + 1]?.startsWith('--')) i++;
    else return VALUE_OPTIONS.includes(a) ? `${a} (it needs a FILE)` : a;
  }
  return undefined;
}

/**
 * The document as the project's formatter writes it (`npm run lint` checks docs/ too), so a table this
 * script wrote is never reformatted, and --check compares like with like.
 */
function formatMarkdown(text: string): string {
  // Biome takes the path for the language and the project's settings only; it must lie in the project.
  const biome = spawnSync('node_modules/.bin/biome', ['format', `--stdin-file-path=${DOC}`], {
    input: text,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (biome.status !== 0) throw new Error(`biome format failed: ${biome.stderr || biome.error}`);
  return biome.stdout;
}

async function main(): Promise<number> {
  const unknown = unknownArgument(process.argv.slice(2));
  if (unknown !== undefined) {
    process.stderr.write(`error: unknown argument ${unknown}\n${USAGE}\n`);
    return 2;
  }
  // A reader that stops early (`| head`) must not end the run between the temporary file and its rename.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
  });
  const check = process.argv.includes('--check');
  const pointsFile = flag('points') ?? POINTS_FILE;
  const docFile = flag('doc') ?? DOC;
  let file: PointsFile;
  try {
    file = loadPointsFile(pointsFile);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      process.stderr.write(`error: ${pointsFile}: no such file (--points names the fidelity points file)\n`);
      return 1;
    }
    if (!(err instanceof PointsFileError)) throw err;
    process.stderr.write(`error: ${err.message}\n${err.hint ? `hint: ${err.hint}\n` : ''}`);
    return 1;
  }
  useUserCatalog(flag('catalog') ?? CATALOG, {});
  const wrong = halfMismatches(file);
  if (wrong.length > 0) {
    for (const w of wrong) {
      process.stderr.write(
        `${pointsFile}: point ${w.id}: half is '${w.recorded}', the split rule gives '${w.rule}'\n`,
      );
    }
    process.stderr.write(
      'fix: set each listed half to what the rule gives (scripts/fidelity/points.ts, assignHalves)\n',
    );
    return 1;
  }
  const predictions = new Map<string, Prediction>();
  const started = Date.now();
  file.points.forEach((p, i) => {
    predictions.set(p.id, predictPoint(p));
    if (process.stderr.isTTY) process.stderr.write(`\rpredicted ${i + 1}/${file.points.length}`);
  });
  if (process.stderr.isTTY) process.stderr.write('\n');
  const rows = score(file, predictions);
  if (!existsSync(docFile)) {
    process.stderr.write(`error: ${docFile}: no such file (--doc names the document the table goes into)\n`);
    return 1;
  }
  const doc = readFileSync(docFile, 'utf8');
  const next = formatMarkdown(replaceSection(doc, renderSection(file, rows)));
  // Whole or not at all: a reader (or a second run) never sees half a document.
  if (!check && next !== doc) await writeFileAtomic(docFile, next);
  for (const line of summaryLines(rows)) process.stdout.write(`${line}\n`);
  process.stdout.write(
    `(${file.points.length} points predicted in ${((Date.now() - started) / 1000).toFixed(1)} s)\n`,
  );
  if (check) {
    if (next !== doc) {
      process.stderr.write(
        `${docFile}: the fidelity table is stale: run \`npm run fidelity\` and commit the result\n`,
      );
      return 1;
    }
    process.stdout.write(`${docFile}: the fidelity table is up to date\n`);
    return 0;
  }
  process.stdout.write(`${next === doc ? 'unchanged' : 'wrote'} ${docFile}\n`);
  return 0;
}

process.exitCode = await main();
