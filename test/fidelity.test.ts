import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  assignHalves,
  type FidelityPoint,
  halfMismatches,
  isSaturated,
  loadPointsFile,
  type PointsFile,
  PointsFileError,
  parallelOf,
  parsePointsFile,
  regimeOf,
} from '../scripts/fidelity/points.ts';
import { predictPoint, rowOf, toPrediction } from '../scripts/fidelity/predict.ts';
import {
  BEGIN,
  countAll,
  END,
  type Prediction,
  pct,
  renderSection,
  replaceSection,
  score,
} from '../scripts/fidelity/table.ts';
import { model } from '../src/catalog/index.ts';
import { useUserCatalog } from '../src/config/user-catalog.ts';

// The fidelity points (bench/data/fidelity-points.yaml) and the table `npm run fidelity` writes from them.
// The generator is tested on hand-made predictions; the one run of the real script predicts two small
// points of its own file, so the suite stays fast.

const file = loadPointsFile();

/** A table row's first cells, however the formatter padded them. */
const cells = (...xs: string[]) => new RegExp(`\\| ${xs.map((x) => `${x} +`).join('\\| ')}\\|`);

function point(over: Partial<FidelityPoint> & Pick<FidelityPoint, 'id'>): FidelityPoint {
  return {
    source: 'A',
    row: {
      model: 'meta-llama/Llama-3.1-8B-Instruct',
      'model-prefix': 'llama3.1-8b',
      runner: 'h100',
      framework: 'vllm',
      precision: 'bf16',
      tp: 1,
      ep: 1,
      'dp-attn': false,
      isl: 128,
      osl: 128,
      conc: 1,
      'spec-decoding': 'none',
    },
    lengths: 'fixed',
    measured: { 'tput-per-gpu': 100, interactivity: 50, kind: 'T' },
    family: 'dense',
    vendor: 'nvidia',
    half: 'calibration',
    ...over,
  };
}

const fake: PointsFile = {
  sources: {
    A: { name: 'source A', url: 'https://example.com/a', group: 'ga' },
    B: { name: 'source B', url: 'https://example.com/b', group: 'gb' },
  },
  points: [
    point({ id: 'F1' }),
    point({ id: 'F2', source: 'B', half: 'held-out', family: 'moe', vendor: 'amd' }),
    point({ id: 'F3', half: 'held-out' }),
  ],
};

describe('the points file', () => {
  it('parses, with at least 40 points from at least 4 independent source groups', () => {
    expect(file.points.length).toBeGreaterThanOrEqual(40);
    const groups = new Set(file.points.map((p) => file.sources[p.source]!.group));
    expect(groups.size).toBeGreaterThanOrEqual(4);
  });

  it('gives every point the half the split rule assigns', () => {
    expect(halfMismatches(file)).toEqual([]);
  });

  it('has both halves non-empty, each covering dense and MoE, NVIDIA and AMD, saturated DP-attention and saturated dense NVIDIA', () => {
    for (const half of ['calibration', 'held-out'] as const) {
      const ps = file.points.filter((p) => p.half === half);
      expect(ps.length).toBeGreaterThan(0);
      expect(new Set(ps.map((p) => p.family))).toEqual(new Set(['dense', 'moe']));
      expect(new Set(ps.map((p) => p.vendor))).toEqual(new Set(['nvidia', 'amd']));
      expect(ps.some((p) => isSaturated(p) && parallelOf(p) === 'dp-attn')).toBe(true);
      expect(ps.some((p) => isSaturated(p) && p.family === 'dense' && p.vendor === 'nvidia')).toBe(true);
    }
  });

  it('names models the catalog has, with bench/data/fidelity-catalog.yaml added', () => {
    useUserCatalog('bench/data/fidelity-catalog.yaml', {});
    for (const p of file.points) expect(() => model(p.row.model), p.id).not.toThrow();
  });

  it('says the vendor its runner has', () => {
    for (const p of file.points) {
      expect(p.vendor, p.id).toBe(/^mi\d/.test(p.row.runner) ? 'amd' : 'nvidia');
    }
  });

  it('rejects a bad point, naming the key and the point', () => {
    const text = readFileSync('bench/data/fidelity-points.yaml', 'utf8').replace(
      'tput-per-gpu: 69.1,',
      'tput-per-gpu: -1,',
    );
    expect(() => parsePointsFile(text, 'x.yaml')).toThrow(PointsFileError);
    expect(() => parsePointsFile(text, 'x.yaml')).toThrow(
      /x\.yaml: points\.0\.measured\.tput-per-gpu \(point P1a\)/,
    );
    expect(() => parsePointsFile('sources: {}\npoints: [{ id: P1, source: Z }]\n')).toThrow(PointsFileError);
  });

  it('alternates the halves by id within each source group and regime, each group starting with calibration', () => {
    // Groups: ga + dense/nvidia/tp holds F1, F3; gb + moe/amd/tp holds F2.
    expect([...assignHalves(fake)]).toEqual([
      ['F1', 'calibration'],
      ['F3', 'held-out'],
      ['F2', 'calibration'],
    ]);
    expect(halfMismatches(fake)).toEqual([{ id: 'F2', recorded: 'held-out', rule: 'calibration' }]);
  });

  it('reads the regime and saturation off the row', () => {
    const dep = point({
      id: 'D1',
      family: 'moe',
      row: { ...point({ id: 'x' }).row, tp: 8, ep: 8, 'dp-attn': true, conc: 256 },
    });
    expect(regimeOf(dep)).toBe('moe/nvidia/dp-attn');
    expect(isSaturated(dep)).toBe(true);
    expect(isSaturated({ ...dep, row: { ...dep.row, conc: 255 } })).toBe(false);
    const x1 = file.points.find((p) => p.id === 'X1a')!;
    expect(parallelOf(x1)).toBe('disagg-dp-attn');
    expect(rowOf(x1)).toMatchObject({
      prefill: { 'num-worker': 4, tp: 4 },
      decode: { tp: 32 },
      conc: [4096],
    });
  });
});

describe('the table generator', () => {
  const predictions = new Map<string, Prediction>([
    ['F1', { tputPerGpu: 110, interactivity: 40 }], // +10 %, −20 %: within
    ['F2', { tputPerGpu: 130, interactivity: 50 }], // +30 %: a miss
    ['F3', { error: "unknown model 'x'" }],
  ]);
  const rows = score(fake, predictions);

  it('scores errors as predicted / measured − 1 and within target only on both metrics', () => {
    expect(rows.map((r) => [r.point.id, r.tputErr, r.intvtyErr, r.within])).toEqual([
      ['F1', expect.closeTo(0.1, 9), expect.closeTo(-0.2, 9), true],
      ['F2', expect.closeTo(0.3, 9), 0, false],
      ['F3', null, null, null],
    ]);
    expect([pct(0.1), pct(-0.2), pct(0.004), pct(1.42)]).toEqual(['+10 %', '−20 %', '0 %', '+142 %']);
  });

  it('counts per half, regime and source group, leaving unpredicted points out of N', () => {
    const c = countAll(rows);
    expect(c.byHalf.calibration).toMatchObject({ n: 1, within: 1, notPredicted: 0 });
    expect(c.byHalf['held-out']).toMatchObject({ n: 1, within: 0, notPredicted: 1 });
    expect(c.byHalf.all).toMatchObject({ n: 2, within: 1, notPredicted: 1 });
    expect(c.byHalf.all.medianTputErr).toBeCloseTo(0.2, 9);
    expect(c.byHalf.all.medianIntvtyErr).toBeCloseTo(0.1, 9);
    expect(c.byRegime.map((r) => r.regime)).toEqual(['dense/nvidia/tp', 'moe/amd/tp']);
    expect(c.bySource.map((s) => [s.group, s.halves['held-out'].n])).toEqual([
      ['ga', 0],
      ['gb', 1],
    ]);
  });

  it('writes every point, the counts and every miss with its regime between the markers', () => {
    const section = renderSection(fake, rows);
    expect(section.startsWith(BEGIN)).toBe(true);
    expect(section.endsWith(END)).toBe(true);
    expect(section).toContain('| calibration | 1 / 1 | 100 % | 10 % | 20 % |');
    expect(section).toContain('| held-out | 0 / 1 (+1 not predicted) | 0 % | 30 % | 0 % |');
    expect(section).toMatch(
      /\| F1 \| calibration \| A \| .* \| 100 \| 110 \| \+10 % \| 50\.0 \(T\) \| 40\.0 \| −20 % \| ✓ \|/,
    );
    expect(section).toContain('### Misses (1)');
    expect(section).toContain('- **F2** (moe/amd/tp; held-out; B): throughput +30 %, interactivity 0 %');
    expect(section).toContain("- **F3** (dense/nvidia/tp; held-out): unknown model 'x'");
  });

  it('reads (E) interactivity as OSL over the median E2E', () => {
    const p = point({ id: 'E1', measured: { 'tput-per-gpu': 1, interactivity: 1, kind: 'E' } });
    const prediction = { throughputPerGpu: 7, interactivity: 99, e2eMs: { median: 2000 } };
    const o = { status: 'ok', prediction } as unknown as Parameters<typeof toPrediction>[1];
    expect(toPrediction(p, o)).toEqual({ tputPerGpu: 7, interactivity: 64 });
    expect(toPrediction({ ...p, measured: { ...p.measured, kind: 'T' } }, o)).toEqual({
      tputPerGpu: 7,
      interactivity: 99,
    });
  });

  it('predicts a point under the recipe of its date where it states one (piecewise CUDA graphs)', () => {
    const p = file.points.find((x) => x.id === 'P2a');
    expect(p?.recipe).toEqual({ 'piecewise-cuda-graphs': false, 'max-num-tokens': 1152 });
    if (!p) return;
    const asMeasured = predictPoint(p);
    const today = predictPoint({ ...p, recipe: { ...p.recipe, 'piecewise-cuda-graphs': true } });
    if (!('tputPerGpu' in asMeasured) || !('tputPerGpu' in today)) throw new Error('not predicted');
    expect(today.interactivity).toBeGreaterThan(asMeasured.interactivity);
  });

  it('replaces only what lies between the markers, and sets them after the Summary the first time', () => {
    const doc = '# T\n\n## Summary\n\ntext\n\n## Next\n\nmore\n';
    const first = replaceSection(doc, `${BEGIN}\nA\n${END}`);
    expect(first).toBe(`# T\n\n## Summary\n\ntext\n\n${BEGIN}\nA\n${END}\n\n## Next\n\nmore\n`);
    expect(replaceSection(first, `${BEGIN}\nB\n${END}`)).toBe(first.replace('\nA\n', '\nB\n'));
  });
});

describe('docs/sim-fidelity.md', () => {
  const doc = readFileSync('docs/sim-fidelity.md', 'utf8');
  const section = doc.slice(doc.indexOf(BEGIN), doc.indexOf(END));

  it('holds the generated table with one row per point and its half (else: npm run fidelity)', () => {
    expect(doc.indexOf(BEGIN)).toBeGreaterThan(doc.indexOf('## Summary'));
    expect(doc.indexOf(BEGIN)).toBeLessThan(doc.indexOf('## What is compared'));
    for (const p of file.points) expect(section, p.id).toMatch(cells(p.id, p.half, p.source));
    const rows = section.split('\n').filter((l) => /^\| [A-Z]+\d+[a-z]? +\| /.test(l));
    expect(rows).toHaveLength(file.points.length);
  });
});

describe('npm run fidelity --check', () => {
  it('passes on a table it wrote and fails, naming the file, once the table is edited', () => {
    const dir = mkdtempSync(join(tmpdir(), 'infx-fidelity-'));
    const points = join(dir, 'points.yaml');
    const docFile = join(dir, 'doc.md');
    const small: PointsFile = {
      ...fake,
      points: [
        point({ id: 'F1' }),
        point({ id: 'F2', half: 'held-out', row: { ...point({ id: 'x' }).row, conc: 2 } }),
      ],
    };
    writeFileSync(points, JSON.stringify(small));
    writeFileSync(docFile, '# Doc\n\n## Summary\n\ns\n\n## Rest\n');
    const run = (...args: string[]) =>
      spawnSync(
        process.execPath,
        ['scripts/run-ts.mjs', 'scripts/fidelity.ts', '--points', points, '--doc', docFile, ...args],
        {
          encoding: 'utf8',
        },
      );
    const stale = run('--check');
    expect(stale.status, stale.stderr).toBe(1);
    expect(stale.stderr).toContain(`${docFile}: the fidelity table is stale`);
    const write = run();
    expect(write.status, write.stderr).toBe(0);
    expect(write.stdout).toMatch(/^calibration: \d of 1 within ±25% on both/m);
    expect(readFileSync(docFile, 'utf8')).toMatch(cells('F2', 'held-out', 'A'));
    expect(run('--check').status).toBe(0);
    // A hand edit of one cell (padding kept, so the formatter would not touch it) makes the table stale.
    const edited = readFileSync(docFile, 'utf8').replace(/(\| F1 +\| )calibration/, '$1held-out   ');
    expect(edited).toMatch(cells('F1', 'held-out', 'A'));
    writeFileSync(docFile, edited);
    const check = run('--check');
    expect(check.status).toBe(1);
    expect(check.stderr).toContain('run `npm run fidelity`');
    expect(readFileSync(docFile, 'utf8')).toBe(edited); // --check never writes
    // An argument it does not know is an error, not a regeneration: nothing written.
    const unknown = run('--dry-run');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('unknown argument --dry-run');
    expect(readFileSync(docFile, 'utf8')).toBe(edited);
  });

  it('writes the whole table, and leaves no temporary file, when its reader stops at the first line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'infx-fidelity-'));
    const points = join(dir, 'points.yaml');
    const docFile = join(dir, 'doc.md');
    writeFileSync(points, JSON.stringify({ ...fake, points: [point({ id: 'F1' })] }));
    writeFileSync(docFile, '# Doc\n\n## Summary\n\ns\n\n## Rest\n');
    const child = spawn(process.execPath, [
      'scripts/run-ts.mjs',
      'scripts/fidelity.ts',
      '--points',
      points,
      '--doc',
      docFile,
    ]);
    // What `npm run fidelity | head -1` does: the reader goes away after the first chunk.
    child.stdout.once('data', () => child.stdout.destroy());
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
    expect(readFileSync(docFile, 'utf8')).toMatch(cells('F1', 'calibration', 'A'));
    expect(readdirSync(dir).sort()).toEqual(['doc.md', 'points.yaml']);
  });
});
