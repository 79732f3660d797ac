/**
 * Prediction speed (issue 21): `infx sim predict` over the whole fixture matrix — every row of
 * `infx matrix full-sweep` over the reference's two master configs (../shared/fixtures/inferencex), one
 * point per row and concurrency — on the fast engine as the default runs it (speculative decoding: spread
 * draws), with `same` (per-decode draws: the full co-simulation's results), with `--fast` (one shared
 * acceptance sequence) and on the full co-simulation (`--exact`), and how far apart they are per metric.
 *
 *   npm run bench:predict                        # fast on every point, exact on every 8th point
 *   npm run bench:predict -- --exact-every 1     # exact on every point too (minutes on 2 cores)
 *
 * Points per second and the fast/exact ratio are measured in this command on the same points; the exact
 * figure for the whole matrix is extrapolated from its sample unless --exact-every 1. Agreement: |x /
 * exact − 1| of throughput per GPU, interactivity, median TTFT and median E2E, max and median, with and
 * without speculative decoding. Beside it, the full co-simulation's own seed-to-seed spread on the same
 * points (seed 1 against seed 0, through `same`, which gives exact's results): draws that are not exact's
 * own cannot agree more closely than that. Then queue folding: the points the default folded, timed and
 * compared again with every user simulated (`--no-fold`). Then how many windows are unsteady
 * (window-halves.ts). Last, the CLI on the whole matrix, wall time, on one thread and on its default (one
 * thread per core).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { type PointOutcome, predictRows } from '../src/sim/engine/rows.ts';
import { UNSTEADY, unsteadyParts, type WindowHalves } from '../src/sim/engine/window-halves.ts';
import { driftNote, startCpuWait, waitNote } from './cpu-wait.ts';

const root = resolve(import.meta.dirname ?? '.', '..');
const repo = existsSync(join(process.cwd(), 'bin/infx.js')) ? process.cwd() : root;
const fixtures = process.env.INFX_FIXTURES ?? resolve(repo, '../shared/fixtures/inferencex');
const flag = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const EXACT_EVERY = flag('exact-every', 8);
/** The targets, printed as ratios (time / target), not asserted. */
const MATRIX_TARGET_S = 5;
const POINT_TARGET_MS = 50;
const AGREEMENT = 0.02;

if (!existsSync(join(fixtures, 'configs/nvidia-master.yaml'))) {
  console.log(`bench/predict: skipped: reference fixtures not found at ${fixtures} (set INFX_FIXTURES)`);
  process.exit(0);
}
if (!existsSync(join(repo, 'dist/infx.mjs'))) {
  console.error('bench/predict: infx is not built; run `npm run build` first.');
  process.exit(1);
}
const args = [
  'matrix',
  'full-sweep',
  '--config-files',
  'configs/amd-master.yaml',
  'configs/nvidia-master.yaml',
  '--runner-config',
  'configs/runners.yaml',
];
const gen = spawnSync(process.execPath, [join(repo, 'bin/infx.js'), ...args], {
  cwd: fixtures,
  encoding: 'utf8',
  maxBuffer: 256 * 1024 * 1024,
});
if (gen.status !== 0) {
  console.error(`bench/predict: infx ${args.join(' ')} exited ${gen.status}: ${gen.stderr}`);
  process.exit(1);
}
const rows = JSON.parse(gen.stdout) as Record<string, unknown>[];
const points: Record<string, unknown>[] = rows.flatMap((r) =>
  (Array.isArray(r.conc) ? (r.conc as unknown[]) : [r.conc]).map((conc) => ({ ...r, conc })),
);

type Engine = 'auto' | 'same' | 'fast' | 'exact';
function timed(
  point: Record<string, unknown>,
  engine: Engine,
  seed?: number,
  fold?: false,
): { o: PointOutcome; ms: number } {
  const t0 = performance.now();
  const [o] = predictRows(point, {
    engine,
    ...(seed !== undefined ? { seed } : {}),
    ...(fold === false ? { fold } : {}),
  });
  return { o: o!, ms: performance.now() - t0 };
}

/** The whole matrix point by point on one engine choice: total, per-point percentiles, the slowest. */
function wholeMatrix(engine: Engine) {
  const runs = points.map((p) => timed(p, engine));
  const ms = runs.reduce((a, f) => a + f.ms, 0);
  const ok = runs.filter((f) => f.o.status === 'ok');
  const slowest = runs.reduce((a, f) => (f.ms > a.ms ? f : a), runs[0]!);
  const sorted = ok.map((f) => f.ms).sort((a, b) => a - b);
  const pct = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { runs, ms, ok, slowest, median: pct(0.5), p99: pct(0.99) };
}

// Warm-up (JIT, heap sizing) on every WARM_EVERY-th point with each fast choice, then the whole matrix on each.
// With 20 points of one choice the first timed run, the default's, paid for compiling the paths the others
// then found compiled (its time moved 10-20 % between runs, --fast's did not). The CLI's wall time, timed
// last, is a cold process's.
const WARM_EVERY = 8;
for (const engine of ['auto', 'same', 'fast'] as const)
  points.forEach((p, i) => {
    if (i % WARM_EVERY === 0) timed(p, engine);
  });
// Reference work for the host's speed (cpu-wait.ts): sorting a fixed 2M-number array, best of 3. It does not
// depend on the heap's state, so a change between the start and the end is the host's.
const reference = () => {
  const data = new Float64Array(1 << 21);
  let best = Number.POSITIVE_INFINITY;
  for (let k = 0; k < 3; k++) {
    let x = 12345;
    for (let i = 0; i < data.length; i++) {
      x = (x * 1103515245 + 12345) % 2147483648;
      data[i] = x;
    }
    const t0 = performance.now();
    data.sort();
    best = Math.min(best, performance.now() - t0);
  }
  return best;
};
const referenceStartMs = reference();
// Each whole-matrix run with the share of its time this thread spent waiting for a CPU.
const probed = (engine: Engine) => {
  const waited = startCpuWait();
  const m = wholeMatrix(engine);
  return { ...m, waitShare: waited() };
};
const whole = { auto: probed('auto'), same: probed('same'), fast: probed('fast') };
const predicted = whole.auto.ok;

// The exact co-simulation on every EXACT_EVERY-th point the default predicted, against each fast choice,
// and exact's own seed 1 against seed 0 (as `same`, which gives exact's results).
type Ok = PointOutcome & { status: 'ok' };
const metrics = [
  ['throughput/GPU', (o: Ok) => o.prediction.throughputPerGpu],
  ['interactivity', (o: Ok) => o.prediction.interactivity],
  ['TTFT median', (o: Ok) => o.prediction.ttftMs.median],
  ['E2E median', (o: Ok) => o.prediction.e2eMs.median],
] as const;
const compared = ['auto', 'same', 'fast', 'seed'] as const;
type Compared = (typeof compared)[number];
const diffs = Object.fromEntries(
  compared.map((c) => [
    c,
    { none: metrics.map(() => [] as number[]), spec: metrics.map(() => [] as number[]) },
  ]),
) as Record<Compared, { none: number[][]; spec: number[][] }>;
let sampleAutoMs = 0;
let sampleExactMs = 0;
let sampled = 0;
whole.auto.runs.forEach((a, i) => {
  if (a.o.status !== 'ok' || whole.auto.ok.indexOf(a) % EXACT_EVERY !== 0) return;
  const e = timed(points[i]!, 'exact');
  const reseeded = timed(points[i]!, 'same', 1);
  const runs: Record<Compared, { o: PointOutcome }> = {
    auto: a,
    same: whole.same.runs[i]!,
    fast: whole.fast.runs[i]!,
    seed: reseeded,
  };
  if (e.o.status !== 'ok' || compared.some((c) => runs[c].o.status !== 'ok')) return;
  sampled++;
  sampleAutoMs += a.ms;
  sampleExactMs += e.ms;
  for (const c of compared) {
    const bucket = a.o.specDecoding === 'none' ? diffs[c].none : diffs[c].spec;
    metrics.forEach(([, get], m) => {
      const x = get(runs[c].o as Ok);
      const y = get(e.o as Ok);
      bucket[m]!.push(y === 0 ? (x === 0 ? 0 : 1) : Math.abs(x / y - 1));
    });
  }
});

const fmt = (x: number, d = 1) => x.toFixed(d);
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : s[Math.floor((s.length - 1) / 2)]!;
};
const exactPerPoint = sampleExactMs / Math.max(1, sampled);
const exactMatrixS = (exactPerPoint * predicted.length) / 1000;
console.log(
  `bench/predict: ${rows.length} rows of infx matrix full-sweep, ${points.length} points, ${predicted.length} predicted ` +
    `(${points.length - predicted.length} unsupported or infeasible, each reported with its reason); ` +
    `timed after a warm-up over every ${WARM_EVERY}th point on each fast choice (the CLI line: a cold process)`,
);
for (const [name, m] of [
  [
    'default (fast engine; spec decoding: spread draws, each request its own steps to its target)',
    whole.auto,
  ],
  [
    "same (fast engine; spec decoding: draws per decode per step, the full co-simulation's results)",
    whole.same,
  ],
  ['--fast (fast engine; spec decoding: one shared acceptance sequence)', whole.fast],
] as const) {
  console.log(
    `${name}:\n  ${fmt(m.ms / 1000, 2)} s for the whole matrix, ${fmt((points.length / m.ms) * 1000)} points/s; ` +
      `per point median ${fmt(m.median, 2)} ms, p99 ${fmt(m.p99)} ms, max ${fmt(m.slowest.ms)} ms ` +
      `(${m.slowest.o.expName} ${m.slowest.o.runner} ${m.slowest.o.specDecoding} conc ${m.slowest.o.conc})`,
  );
  console.log(
    `  whole matrix / ${MATRIX_TARGET_S} s target = ${fmt(m.ms / 1000 / MATRIX_TARGET_S, 2)}; ` +
      `slowest point / ${POINT_TARGET_MS} ms target = ${fmt(m.slowest.ms / POINT_TARGET_MS, 2)}` +
      waitNote(m.waitShare),
  );
}
console.log(
  `exact: sampled on ${sampled} points (every ${EXACT_EVERY}th predicted point${EXACT_EVERY === 1 ? ', i.e. all' : ''}): ` +
    `${fmt((sampled / sampleExactMs) * 1000)} points/s; whole matrix ≈ ${fmt(exactMatrixS, 0)} s ` +
    `${EXACT_EVERY === 1 ? '(measured)' : '(extrapolated from the sample)'}`,
);
console.log(
  `speed-up on the sampled points: exact time / default time = ${fmt(sampleExactMs / Math.max(1e-9, sampleAutoMs))}x`,
);
const labels: Record<Compared, string> = {
  auto: '|default/exact - 1|',
  same: '|same/exact - 1|',
  fast: '|--fast/exact - 1|',
  seed: "exact's own seed-to-seed spread |seed 1/seed 0 - 1|",
};
for (const c of compared) {
  for (const [name, d] of [
    ['without spec decoding', diffs[c].none],
    ['with spec decoding (MTP)', diffs[c].spec],
  ] as const) {
    const n = d[0]!.length;
    if (n === 0) continue;
    console.log(`${labels[c]}, ${name} (${n} points):`);
    metrics.forEach(([metric], m) => {
      const xs = d[m]!;
      const within = xs.filter((x) => x <= AGREEMENT).length;
      console.log(
        `  ${metric.padEnd(15)} max ${fmt(Math.max(...xs) * 100, 3)} %, median ${fmt(median(xs) * 100, 3)} %, ` +
          `${within}/${n} within ${AGREEMENT * 100} %`,
      );
    });
  }
}

// Queue folding (queue-fold.ts): every point the default folded, again with every user simulated.
const folded = whole.auto.runs.flatMap((a, i) =>
  a.o.status === 'ok' && a.o.prediction.fold !== null
    ? [{ a, full: timed(points[i]!, 'auto', undefined, false) }]
    : [],
);
if (folded.length > 0) {
  const foldMs = folded.reduce((t, f) => t + f.a.ms, 0);
  const fullMs = folded.reduce((t, f) => t + f.full.ms, 0);
  const slowFull = folded.reduce((x, f) => (f.full.ms > x.full.ms ? f : x), folded[0]!);
  console.log(
    `queue folding: ${folded.length} points folded; on them ${fmt(foldMs / 1000, 2)} s folded, ` +
      `${fmt(fullMs / 1000, 2)} s with every user (--no-fold), ratio ${fmt(fullMs / Math.max(1e-9, foldMs), 2)}x; ` +
      `the slowest of them ${fmt(slowFull.full.ms)} ms -> ${fmt(slowFull.a.ms)} ms (conc ${slowFull.a.o.conc})`,
  );
  console.log(`|folded/every user - 1| (${folded.length} points):`);
  metrics.forEach(([metric, get]) => {
    const xs = folded.map((f) => Math.abs(get(f.a.o as Ok) / get(f.full.o as Ok) - 1));
    const within = xs.filter((x) => x <= AGREEMENT).length;
    console.log(
      `  ${metric.padEnd(15)} max ${fmt(Math.max(...xs) * 100, 3)} %, median ${fmt(median(xs) * 100, 3)} %, ` +
        `${within}/${folded.length} within ${AGREEMENT * 100} %`,
    );
  });
}

// Window halves (window-halves.ts): how many default predictions call their window unsteady, and on what.
{
  const halves = predicted.flatMap(({ o }) =>
    o.status === 'ok' && o.prediction.halves ? [{ o, h: o.prediction.halves }] : [],
  );
  const unsteady = halves.filter(({ h }) => unsteadyParts(h).length > 0);
  const disagg = unsteady.filter(({ o }) => o.pools !== null).length;
  const by = (k: keyof WindowHalves, limit: number) => halves.filter(({ h }) => h[k] > limit).length;
  console.log(
    `window halves: ${unsteady.length} of ${halves.length} predictions unsteady (${disagg} disaggregated); ` +
      `throughput > ${UNSTEADY.rate * 100} %: ${by('throughput', UNSTEADY.rate)}, interactivity: ` +
      `${by('interactivity', UNSTEADY.rate)}, median TTFT > ${UNSTEADY.ttft * 100} %: ${by('ttftMedian', UNSTEADY.ttft)}`,
  );
}

// The CLI on the whole matrix, wall time from start to exit (process start, reading, writing included):
// on one thread, and on its default (one thread per core for a matrix this size).
const cliWall = (jobs: string[]) => {
  const t0 = performance.now();
  const r = spawnSync(
    process.execPath,
    [join(repo, 'bin/infx.js'), 'sim', 'predict', '--format', 'json', ...jobs],
    {
      input: gen.stdout,
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
    },
  );
  const s = (performance.now() - t0) / 1000;
  // Exit 1 is expected: the matrix holds rows that do not fit, reported as errors.
  if (r.status !== 0 && r.status !== 1)
    throw new Error(`infx sim predict exited ${r.status}: ${r.stderr.slice(-2000)}`);
  return { s, out: r.stdout };
};
const single = cliWall(['--jobs', '1']);
const threaded = cliWall([]);
console.log(
  `infx sim predict on the whole matrix (the CLI, wall time): one thread ${fmt(single.s, 2)} s; default ` +
    `(${availableParallelism()} threads on this machine) ${fmt(threaded.s, 2)} s = ${fmt(threaded.s / MATRIX_TARGET_S, 2)} × ` +
    `the ${MATRIX_TARGET_S} s target; outputs ${single.out === threaded.out ? 'identical' : 'DIFFERENT'}`,
);
console.log(driftNote(referenceStartMs, reference()));
