/**
 * How far a change moves `infx sim predict`'s figures: two `--format json` outputs of the same points (one
 * per revision), compared point by point on throughput per GPU, interactivity and median TTFT.
 *
 *   (cd ../shared/fixtures/inferencex && infx matrix full-sweep --config-files configs/amd-master.yaml \
 *     configs/nvidia-master.yaml --runner-config configs/runners.yaml) | infx sim predict --format json > after.json
 *   # the same with the other revision's build > before.json, then:
 *   npm run bench:predict-diff -- before.json after.json
 *
 * Prints how many predictions moved, the moved ones' percentiles per figure, the points whose status changed,
 * and the largest moves. Nothing is timed: it compares numbers, which do not depend on the host.
 */
import { readFileSync } from 'node:fs';

type Outcome = {
  status: string;
  expName?: string;
  runner?: string;
  conc?: number;
  pools?: string | null;
  prediction?: { throughputPerGpu: number; interactivity: number; ttftMs: { median: number } };
};

const [beforePath, afterPath] = process.argv.slice(2);
if (!beforePath || !afterPath) {
  console.error(
    'usage: bench/predict-diff.ts BEFORE.json AFTER.json (two `infx sim predict --format json` outputs)',
  );
  process.exit(2);
}
const read = (p: string): Outcome[] => {
  const doc = JSON.parse(readFileSync(p, 'utf8')) as unknown;
  if (!Array.isArray(doc)) throw new Error(`${p}: not a JSON array of predictions`);
  return doc as Outcome[];
};
const before = read(beforePath);
const after = read(afterPath);
if (before.length !== after.length) {
  console.error(
    `bench/predict-diff: ${before.length} points before, ${after.length} after: not the same points`,
  );
  process.exit(1);
}
const figures = {
  'throughput/GPU': (o: Outcome) => o.prediction!.throughputPerGpu,
  interactivity: (o: Outcome) => o.prediction!.interactivity,
  'median TTFT': (o: Outcome) => o.prediction!.ttftMs.median,
} as const;
const moves: { i: number; d: Record<string, number> }[] = [];
let both = 0;
let statusChanged = 0;
before.forEach((b, i) => {
  const a = after[i]!;
  if (b.status !== a.status) statusChanged++;
  if (b.status !== 'ok' || a.status !== 'ok') return;
  both++;
  const d: Record<string, number> = {};
  for (const [name, f] of Object.entries(figures)) d[name] = f(b) > 0 ? f(a) / f(b) - 1 : 0;
  if (Object.values(d).some((x) => x !== 0)) moves.push({ i, d });
});
const pct = (v: number[], q: number) => {
  const s = [...v].sort((x, y) => x - y);
  return s.length ? `${((s[Math.floor(q * (s.length - 1))] ?? 0) * 100).toFixed(1)} %` : '-';
};
console.log(`${both} points predicted by both, ${moves.length} moved; ${statusChanged} changed status`);
for (const name of Object.keys(figures)) {
  const v = moves.map((m) => m.d[name]!);
  console.log(
    `  ${name}: p10 ${pct(v, 0.1)}, median ${pct(v, 0.5)}, p90 ${pct(v, 0.9)}, min ${pct(v, 0)}, max ${pct(v, 1)}`,
  );
}
const largest = [...moves].sort(
  (x, y) => Math.abs(y.d['throughput/GPU']!) - Math.abs(x.d['throughput/GPU']!),
);
for (const { i, d } of largest.slice(0, 8)) {
  const o = after[i]!;
  const what = `${o.expName ?? ''} ${o.runner ?? ''} ${o.pools ?? ''} conc ${o.conc ?? '?'}`.replace(
    /\s+/g,
    ' ',
  );
  console.log(
    `  ${what}: ${Object.entries(d)
      .map(([k, x]) => `${k} ${(x * 100).toFixed(1)} %`)
      .join(', ')}`,
  );
}
