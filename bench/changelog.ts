/**
 * Whole-process speed of `infx changelog matrix` on real base..head pairs (the reference's changelog
 * fixtures: git bundles of real PRs), the way CI calls it: a fresh process in a work tree at head.
 * Compared, in this same command, against the reference processor `utils/process_changelog.py` run on the
 * same work tree, when INFX_REFERENCE_REPO names a checkout of InferenceX (its utils/ is copied into the
 * temporary work tree, never into this repository). The target: infx under half the reference's time.
 * Both outputs are compared too: a speed figure for a different answer is no figure.
 *
 *   npm run bench:changelog                                          # infx only
 *   INFX_REFERENCE_REPO=/path/to/InferenceX npm run bench:changelog  # with the ratio
 *
 * Options: --runs N (default 5) per case and command.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const TARGET_RATIO = 0.5;
const root = resolve(import.meta.dirname ?? '.', '..');
const repo = existsSync(join(process.cwd(), 'bin/infx.js')) ? process.cwd() : root;
const fixtures = join(
  process.env.INFX_FIXTURES ?? resolve(repo, '../shared/fixtures/inferencex'),
  'changelog',
);
const reference = process.env.INFX_REFERENCE_REPO;
const runsFlag = process.argv.indexOf('--runs');
const RUNS = runsFlag > 0 ? Number(process.argv[runsFlag + 1]) : 5;

if (!existsSync(fixtures)) {
  console.error(`bench/changelog: the changelog fixtures are not at ${fixtures}; set INFX_FIXTURES.`);
  process.exit(1);
}
if (!existsSync(join(repo, 'dist/infx.mjs'))) {
  console.error('bench/changelog: infx is not built; run `npm run build` first.');
  process.exit(1);
}
if (reference !== undefined && !existsSync(join(reference, 'utils/process_changelog.py'))) {
  console.error(`bench/changelog: INFX_REFERENCE_REPO=${reference} has no utils/process_changelog.py`);
  process.exit(1);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

function timed(cmd: string, args: string[], cwd: string): { ms: number; stdout: string } {
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { ms, stdout: r.stdout };
}

const work = mkdtempSync(join(tmpdir(), 'infx-bench-changelog-'));
try {
  const cases = readdirSync(fixtures)
    .filter((f) => f.endsWith('.bundle'))
    .map((f) => f.slice(0, -'.bundle'.length))
    .sort();
  let infxTotal = 0;
  let refTotal = 0;
  let same = 0;
  for (const name of cases) {
    const dir = join(work, name);
    execFileSync('git', ['clone', '-q', join(fixtures, `${name}.bundle`), dir]);
    execFileSync('git', ['-c', 'advice.detachedHead=false', 'checkout', '-q', 'head'], { cwd: dir });
    if (reference !== undefined) cpSync(join(reference, 'utils'), join(dir, 'utils'), { recursive: true });
    const args = readFileSync(join(fixtures, `${name}.args`), 'utf8')
      .trim()
      .split(/\s+/);
    const infx = [];
    const ref = [];
    let infxOut = '';
    let refOut = '';
    for (let i = 0; i < RUNS; i++) {
      const a = timed(process.execPath, [join(repo, 'bin/infx.js'), 'changelog', 'matrix', ...args], dir);
      infx.push(a.ms);
      infxOut = a.stdout;
      if (reference !== undefined) {
        const b = timed('python3', ['utils/process_changelog.py', ...args], dir);
        ref.push(b.ms);
        refOut = b.stdout;
      }
    }
    const i = median(infx);
    infxTotal += i;
    let line = `${name}: infx ${i.toFixed(0)} ms`;
    if (reference !== undefined) {
      const r = median(ref);
      refTotal += r;
      const equal = JSON.stringify(JSON.parse(infxOut)) === JSON.stringify(JSON.parse(refOut));
      if (equal) same++;
      line += `, reference ${r.toFixed(0)} ms, ratio ${(i / r).toFixed(2)}${equal ? '' : ' (OUTPUTS DIFFER)'}`;
    }
    console.log(line);
  }
  console.log(`bench:changelog: ${cases.length} real pairs, median of ${RUNS} runs each`);
  console.log(`  infx changelog matrix   ${infxTotal.toFixed(0)} ms in all`);
  if (reference === undefined) {
    console.log('  reference               not run (set INFX_REFERENCE_REPO to a checkout of InferenceX)');
  } else {
    const ratio = infxTotal / refTotal;
    console.log(
      `  reference processor     ${refTotal.toFixed(0)} ms in all (same output on ${same} of ${cases.length})`,
    );
    console.log(
      `  ratio infx / reference  ${ratio.toFixed(2)}   target < ${TARGET_RATIO}   ${ratio < TARGET_RATIO && same === cases.length ? 'PASS' : 'FAIL'}`,
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
