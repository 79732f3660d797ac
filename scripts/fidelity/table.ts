/**
 * The fidelity table: measured points against predictions, as the markdown section of docs/sim-fidelity.md
 * between the fidelity markers, with counts per half, regime and source group, and every miss. Pure: the
 * predictions come in, text and counts go out.
 */
import { type FidelityPoint, HALVES, type Half, isSaturated, type PointsFile, regimeOf } from './points.ts';

export const BEGIN = '<!-- fidelity:begin -->';
export const END = '<!-- fidelity:end -->';
/** Within target: |predicted / measured − 1| at most this, on throughput per GPU and on interactivity. */
export const TARGET = 0.25;

export type Prediction = { tputPerGpu: number; interactivity: number } | { error: string };

export interface Scored {
  point: FidelityPoint;
  group: string;
  regime: string;
  saturated: boolean;
  /** null when the point could not be predicted (the reason in `error`). */
  predicted: { tputPerGpu: number; interactivity: number } | null;
  error: string | null;
  tputErr: number | null;
  intvtyErr: number | null;
  within: boolean | null;
}

export interface Count {
  label: string;
  /** Points predicted. */
  n: number;
  /** Of those, within target on both metrics. */
  within: number;
  medianTputErr: number | null;
  medianIntvtyErr: number | null;
  /** Points that could not be predicted. */
  notPredicted: number;
}

export interface Counts {
  byHalf: Record<Half | 'all', Count>;
  byRegime: { regime: string; halves: Record<Half, Count> }[];
  bySource: { group: string; halves: Record<Half, Count> }[];
  saturation: Record<Half, Count>;
}

export function score(file: PointsFile, predictions: ReadonlyMap<string, Prediction>): Scored[] {
  return file.points.map((point) => {
    const pred = predictions.get(point.id) ?? { error: 'no prediction' };
    const base = {
      point,
      group: file.sources[point.source]?.group ?? point.source,
      regime: regimeOf(point),
      saturated: isSaturated(point),
    };
    if ('error' in pred) {
      return { ...base, predicted: null, error: pred.error, tputErr: null, intvtyErr: null, within: null };
    }
    const tputErr = pred.tputPerGpu / point.measured['tput-per-gpu'] - 1;
    const intvtyErr = pred.interactivity / point.measured.interactivity - 1;
    return {
      ...base,
      predicted: pred,
      error: null,
      tputErr,
      intvtyErr,
      within: Math.abs(tputErr) <= TARGET && Math.abs(intvtyErr) <= TARGET,
    };
  });
}

export function median(xs: readonly number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export function countOf(label: string, rows: readonly Scored[]): Count {
  const done = rows.filter((r) => r.predicted !== null);
  return {
    label,
    n: done.length,
    within: done.filter((r) => r.within).length,
    medianTputErr: median(done.map((r) => Math.abs(r.tputErr!))),
    medianIntvtyErr: median(done.map((r) => Math.abs(r.intvtyErr!))),
    notPredicted: rows.length - done.length,
  };
}

const halvesOf = (rows: readonly Scored[]) =>
  Object.fromEntries(
    HALVES.map((h) => [
      h,
      countOf(
        h,
        rows.filter((r) => r.point.half === h),
      ),
    ]),
  ) as Record<Half, Count>;

const distinct = (xs: readonly string[]) => [...new Set(xs)].sort();

export function countAll(rows: readonly Scored[]): Counts {
  return {
    byHalf: { ...halvesOf(rows), all: countOf('all', rows) },
    byRegime: distinct(rows.map((r) => r.regime)).map((regime) => ({
      regime,
      halves: halvesOf(rows.filter((r) => r.regime === regime)),
    })),
    bySource: distinct(rows.map((r) => r.group)).map((group) => ({
      group,
      halves: halvesOf(rows.filter((r) => r.group === group)),
    })),
    saturation: halvesOf(rows.filter((r) => r.saturated)),
  };
}

// ── formatting ──────────────────────────────────────────────────────────────────────────────────

/** A signed percentage as the rest of the page writes it: +12 %, −3 %, 0 %. */
export function pct(err: number): string {
  const v = Math.round(err * 100);
  return v > 0 ? `+${v} %` : v < 0 ? `−${-v} %` : '0 %';
}

const absPct = (err: number | null) => (err === null ? '—' : `${Math.round(err * 100)} %`);

function num(v: number): string {
  if (v >= 100) return v.toFixed(0);
  if (v >= 10) return v.toFixed(1);
  return v.toFixed(2);
}

const ratio = (c: Count) =>
  `${c.within} / ${c.n}${c.notPredicted > 0 ? ` (+${c.notPredicted} not predicted)` : ''}`;

function config(p: FidelityPoint, gpus: string): string {
  const r = p.row;
  const model = r.model.replace(/^[^/]+\//, '');
  const par =
    r.prefill && r.decode
      ? `${r.prefill['num-worker']}P tp${r.prefill.tp}${r.prefill.ep > 1 ? ` ep${r.prefill.ep}` : ''}${r.prefill['dp-attn'] ? ' dp-attn' : ''} / ${r.decode['num-worker']}D tp${r.decode.tp}${r.decode.ep > 1 ? ` ep${r.decode.ep}` : ''}${r.decode['dp-attn'] ? ' dp-attn' : ''}`
      : `tp${r.tp}${(r.ep ?? 1) > 1 ? ` ep${r.ep}` : ''}${r['dp-attn'] ? ' dp-attn' : ''}`;
  const spec = r['spec-decoding'] !== 'none' ? ` ${r['spec-decoding']}` : '';
  const kv = r['kv-cache-dtype'] ? ` ${r['kv-cache-dtype']} KV` : '';
  return `${model} ${r.precision}${kv}, ${gpus}×${r.runner}, ${r.framework}, ${par}${spec}, ${r.isl}/${r.osl} ${p.lengths}, conc ${r.conc}`;
}

function gpuCount(p: FidelityPoint): string {
  const r = p.row;
  if (r.prefill && r.decode)
    return String(r.prefill['num-worker'] * r.prefill.tp + r.decode['num-worker'] * r.decode.tp);
  return String(r.tp ?? 1);
}

function countTable(first: string, rows: { key: string; halves: Record<Half, Count> }[]): string[] {
  const out = [
    `| ${first} | calibration: within / N | held-out: within / N | median abs. err tput (cal. / held-out) | median abs. err interactivity (cal. / held-out) |`,
    '| --- | ---: | ---: | ---: | ---: |',
  ];
  for (const { key, halves } of rows) {
    const c = halves.calibration;
    const h = halves['held-out'];
    out.push(
      `| ${key} | ${ratio(c)} | ${ratio(h)} | ${absPct(c.medianTputErr)} / ${absPct(h.medianTputErr)} | ${absPct(c.medianIntvtyErr)} / ${absPct(h.medianIntvtyErr)} |`,
    );
  }
  return out;
}

/** The generated section, markers included. */
export function renderSection(file: PointsFile, rows: readonly Scored[]): string {
  const counts = countAll(rows);
  const groups = distinct(rows.map((r) => r.group));
  const out: string[] = [
    BEGIN,
    '<!-- Generated by `npm run fidelity` (scripts/fidelity.ts) from bench/data/fidelity-points.yaml. Do not edit by hand; `npm run fidelity -- --check` fails when it is stale. -->',
    '',
    '## Fidelity table (generated)',
    '',
    `Every point of \`bench/data/fidelity-points.yaml\` (${rows.length} points from ${groups.length} independent source groups: ${groups.join(', ')}) predicted by the current model (\`predictRows\`, steady state, seed 0; range ratio 0.8 for random lengths, 1 for fixed). Target: within ±${TARGET * 100} % on **both** throughput per GPU and interactivity. Interactivity is (T) \`1000 / median TPOT\` or (E) \`OSL / median request latency\`, as the source reports it. The halves are assigned by the rule in \`scripts/fidelity/points.ts\` (within each source group and regime, by id: calibration, held-out, calibration, …); saturation means at least 32 concurrent sequences per GPU. The hand-written tables further down are the analysis of the last recalibration and may be older than this one.`,
    '',
    '### Counts',
    '',
    '| half | within ±25 % on both / N | share | median abs. err tput/GPU | median abs. err interactivity |',
    '| --- | ---: | ---: | ---: | ---: |',
  ];
  for (const key of [...HALVES, 'all'] as const) {
    const c = counts.byHalf[key];
    const share = c.n > 0 ? `${Math.round((100 * c.within) / c.n)} %` : '—';
    out.push(
      `| ${key} | ${ratio(c)} | ${share} | ${absPct(c.medianTputErr)} | ${absPct(c.medianIntvtyErr)} |`,
    );
  }
  out.push('', '### Per regime (family / vendor / parallelism)', '');
  out.push(
    ...countTable('regime', [
      ...counts.byRegime.map((r) => ({ key: r.regime, halves: r.halves })),
      { key: 'saturation (≥ 32 conc/GPU)', halves: counts.saturation },
    ]),
  );
  out.push('', '### Per source group', '');
  out.push(
    ...countTable(
      'source group',
      counts.bySource.map((s) => ({ key: s.group, halves: s.halves })),
    ),
  );
  out.push('', 'Sources (the `src` column below):', '');
  out.push(
    ...Object.entries(file.sources)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, src]) => `- **${key}** (${src.group}): [${src.name}](${src.url})`),
  );
  out.push(
    '',
    '### Points',
    '',
    '| id | half | src | config | regime | measured tput/GPU | predicted | err | measured tok/s/user | predicted | err | ±25 % |',
    '| --- | --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | :-: |',
  );
  for (const r of rows) {
    const p = r.point;
    const m = p.measured;
    const regime = `${r.regime}${r.saturated ? ', sat.' : ''}`;
    const pred = r.predicted;
    const cells = pred
      ? [
          num(pred.tputPerGpu),
          pct(r.tputErr!),
          `${num(m.interactivity)} (${m.kind})`,
          num(pred.interactivity),
          pct(r.intvtyErr!),
          r.within ? '✓' : '✗',
        ]
      : ['—', '—', `${num(m.interactivity)} (${m.kind})`, '—', '—', 'not predicted'];
    out.push(
      `| ${p.id} | ${p.half} | ${p.source} | ${config(p, gpuCount(p))} | ${regime} | ${num(m['tput-per-gpu'])} | ${cells[0]} | ${cells[1]} | ${cells[2]} | ${cells[3]} | ${cells[4]} | ${cells[5]} |`,
    );
  }
  const misses = rows.filter((r) => r.within === false);
  out.push('', `### Misses (${misses.length})`, '');
  if (misses.length === 0) out.push('None.');
  for (const r of misses) {
    out.push(
      `- **${r.point.id}** (${r.regime}${r.saturated ? ', saturation' : ''}; ${r.point.half}; ${r.point.source}): throughput ${pct(r.tputErr!)}, interactivity ${pct(r.intvtyErr!)}`,
    );
  }
  const skipped = rows.filter((r) => r.predicted === null);
  if (skipped.length > 0) {
    out.push('', `### Not predicted (${skipped.length})`, '');
    for (const r of skipped) out.push(`- **${r.point.id}** (${r.regime}; ${r.point.half}): ${r.error}`);
  }
  out.push('', END);
  return out.join('\n');
}

/** One line per half, for stdout. */
export function summaryLines(rows: readonly Scored[]): string[] {
  const counts = countAll(rows);
  const line = (c: Count) =>
    `${c.label}: ${c.within} of ${c.n} within ±${TARGET * 100}% on both (median |err| tput ${absPct(c.medianTputErr)}, interactivity ${absPct(c.medianIntvtyErr)})${c.notPredicted > 0 ? `, ${c.notPredicted} not predicted` : ''}`;
  return [
    ...[...HALVES, 'all' as const].map((h) => line(counts.byHalf[h])),
    ...counts.byRegime.map(
      (r) =>
        `  ${r.regime}: calibration ${ratio(r.halves.calibration)}, held-out ${ratio(r.halves['held-out'])}`,
    ),
    `  saturation: calibration ${ratio(counts.saturation.calibration)}, held-out ${ratio(counts.saturation['held-out'])}`,
  ];
}

/**
 * The document with `section` in place of what lies between the markers. Without markers the section is
 * inserted before the first `## ` heading after `## Summary` (or appended), so the first run sets them.
 */
export function replaceSection(doc: string, section: string): string {
  const b = doc.indexOf(BEGIN);
  const e = doc.indexOf(END);
  if (b >= 0 && e > b) return doc.slice(0, b) + section + doc.slice(e + END.length);
  const summary = doc.indexOf('\n## Summary');
  const next = summary >= 0 ? doc.indexOf('\n## ', summary + 1) : -1;
  if (next < 0) return `${doc.replace(/\n*$/, '\n\n')}${section}\n`;
  return `${doc.slice(0, next + 1)}${section}\n\n${doc.slice(next + 1)}`;
}
