import { describe, expect, it } from 'vitest';
import { curve, identity } from '../../test/support/curve-points.ts';
import { compareConfig, compareRuns } from './compare.ts';
import {
  alignTable,
  formatCompareMarkdown,
  formatCompareText,
  headline,
  spreadPhrase,
  verdictLine,
} from './compare-format.ts';

// Baseline (50, 3000)–(100, 1500); run (50, 4000)–(150, 1000): at 75 the run has 3250 vs 2250 (+44.4%),
// at 100 2500 vs 1500 (+66.7%); the maximum is 4000 vs 3000 (+33.3%).
const base = curve(
  [
    [100, 1500],
    [50, 3000],
  ],
  { runId: 'old', ttftMs: 50, e2elMs: 1000 },
);
const run = curve(
  [
    [150, 1000],
    [50, 4000],
  ],
  { runId: 'new', ttftMs: 40, e2elMs: 900 },
);
const report = compareRuns(
  { label: 'runs/new', runIds: ['new'], points: run },
  {
    label: 'runs/old',
    runIds: ['old'],
    points: [...base, ...curve([[40, 100]], { runId: 'old', config: identity({ hardware: 'b200' }) })],
  },
  { at: [75, 100, 120], pricePerGpuHour: 3.6 },
);

// A baseline (40, 3000)–(100, 1000) and a run crossing it: +10% at 40 (3300), −10% at 100 (900).
const crossBase = curve(
  [
    [100, 1000],
    [40, 3000],
  ],
  { runId: 'old' },
);
const crossRun = curve(
  [
    [100, 900],
    [40, 3300],
  ],
  { runId: 'new' },
);

describe('headline: the verdict in plain words', () => {
  it('better: the range of the gains beyond the spread, the maximum, dominance', () => {
    expect(headline(report.configs[0]!)).toBe(
      'Better: at matched interactivity this config beats the baseline by 44.4% to 66.7%, beyond the ±2.0% ' +
        'run-to-run spread (assumed, not measured); its maximum is 33.3% above the old maximum. It is at ' +
        'least as good across the whole baseline curve.',
    );
  });

  it('worse at a single point, a lower maximum', () => {
    const c = compareConfig(base, run, { at: [100] });
    // At 100: 1500 vs 2500 → −40%; maximum 3000 vs 4000 → −25%.
    expect(headline(c)).toBe(
      'Worse: at matched interactivity this config trails the baseline by 40.0%, beyond the ±2.0% run-to-run ' +
        'spread (assumed, not measured); its maximum is 25.0% below the old maximum.',
    );
  });

  it('better at some points, within the spread at the others', () => {
    // Baseline 1000 flat-ish: (40, 1000)–(100, 990); run (40, 1100)–(100, 1000): +10% at 40, +1.0101% at 100.
    const b = curve([
      [100, 990],
      [40, 1000],
    ]);
    const r = curve(
      [
        [100, 1000],
        [40, 1100],
      ],
      { runId: 'pr' },
    );
    const c = compareConfig(r, b, { at: [40, 100] });
    expect(c.matched.map((m) => m.verdict)).toEqual(['better', 'within-noise']);
    expect(headline(c)).toBe(
      'Better: at matched interactivity this config beats the baseline by 10.0% at 1 of 2 points, beyond the ' +
        '±2.0% run-to-run spread (assumed, not measured), and is within it at the other 1 point; its maximum ' +
        'is 10.0% above the old maximum. It is at least as good across the whole baseline curve.',
    );
  });

  it('mixed: the best gain and the worst loss, never an average', () => {
    const c = compareConfig(crossRun, crossBase, { at: [40, 100] });
    expect(c.verdict).toBe('mixed');
    expect(headline(c)).toBe(
      'Mixed: +10.0% at 40 tok/s/user but −10.0% at 100, beyond the ±2.0% run-to-run spread (assumed, not ' +
        'measured); better at 1 point, worse at 1; its maximum is 10.0% above the old maximum.',
    );
  });

  it('no difference: gains inside the spread, a maximum inside it', () => {
    const r = curve(
      [
        [100, 1015],
        [40, 2980],
      ],
      { runId: 'pr' },
    );
    const c = compareConfig(r, crossBase, { at: [40, 100] });
    expect(headline(c)).toBe(
      'No difference: every matched point is within the ±2.0% run-to-run spread (assumed, not measured) ' +
        '(gains −0.7% to +1.5%); its maximum is 0.67% below the old maximum (within the spread).',
    );
  });

  it('same run', () => {
    const c = compareConfig(crossBase, crossBase);
    expect(headline(c)).toBe('Same run: the run and the baseline are the same run, so nothing changed.');
  });

  it('nothing matched', () => {
    const c = compareConfig(run, base, { at: [500] });
    expect(headline(c)).toMatch(/^Not comparable: no interactivity where both fronts are defined/);
  });

  it('the spread: measured, set by the flag, assumed', () => {
    const n = { measuredPct: 3.25, repeats: 4, runs: 3, concs: [1, 2] };
    expect(spreadPhrase({ ...n, thresholdPct: 3.25, source: 'measured' })).toBe(
      'the ±3.3% run-to-run spread (measured from 4 results of 3 runs)',
    );
    expect(spreadPhrase({ ...n, thresholdPct: 0.5, source: 'flag' })).toBe(
      'the ±0.50% run-to-run spread (set by --noise)',
    );
  });
});

describe('verdictLine', () => {
  it('counts the configs by verdict; same run names the run', () => {
    expect(verdictLine(report)).toBe('Verdict: better (1 config better).');
    const tp4 = identity({
      prefill: { ...identity().prefill, tp: 4, gpus: 4 },
      decode: { ...identity().decode, tp: 4, gpus: 4 },
    });
    const two = compareRuns(
      {
        label: 'new',
        runIds: ['new'],
        points: [...run, ...curve([[50, 900]], { runId: 'new', config: tp4 })],
      },
      {
        label: 'old',
        runIds: ['old'],
        points: [...base, ...curve([[50, 1000]], { runId: 'old', config: tp4 })],
      },
    );
    expect(two.verdict).toBe('mixed');
    expect(verdictLine(two)).toBe('Verdict: mixed (1 config better, 1 worse).');
    const same = compareRuns(
      { label: 'runs/old', runIds: ['old'], points: base },
      { label: 'old', runIds: ['old'], points: base },
    );
    expect(verdictLine(same)).toBe('Verdict: same run: the run and the baseline are the same run (old).');
  });
});

describe('formats', () => {
  it('text: aligned tables, notes, configs on one side', () => {
    const text = formatCompareText(report);
    expect(text).toContain('runs/new vs baseline runs/old (median interactivity)\nVerdict: better');
    expect(text).toContain('== dsr1 1k/1k h200 sglang fp8 tp8');
    expect(text).toMatch(/tok\/s\/user +baseline tok\/s\/GPU +run tok\/s\/GPU +gain +verdict/);
    expect(text).toMatch(/ +75 +2,250 +3,250 +\+44\.4% +better +\$0\.444 +\$0\.308/);
    expect(text).toContain('outside baseline front');
    expect(text).toContain('cost at $3.6/GPU-hour (--price-per-gpu-hour)');
    expect(text).toContain('At equal concurrency:');
    expect(text).toContain('Only in the baseline (not run): dsr1 1k/1k b200 sglang fp8 tp8');
  });

  it('markdown: a section to paste in a pull request', () => {
    const md = formatCompareMarkdown(report);
    expect(md.startsWith('### Performance vs baseline\n')).toBe(true);
    expect(md).toContain('#### dsr1 1k/1k h200 sglang fp8 tp8');
    expect(md).toContain('**Verdict: better (1 config better).**');
    expect(md).toContain(
      '**Better: at matched interactivity this config beats the baseline by 44.4% to 66.7%',
    );
    expect(md).toContain(
      '| tok/s/user | baseline tok/s/GPU | run tok/s/GPU | gain | verdict | baseline $/M tok | run $/M tok |',
    );
    expect(md).toContain('| 75 | 2,250 | 3,250 | +44.4% | better | $0.444 | $0.308 |');
    expect(md).toContain('<details><summary>At equal concurrency</summary>');
    // conc 1 is (100, 1500) in the baseline and (150, 1000) in the run.
    expect(md).toContain('| 1 | tput/GPU (tok/s) ↑ | 1,500 | 1,000 | -500 ✗ | -33.3% |');
  });

  it('alignTable right-aligns numeric columns', () => {
    expect(
      alignTable(
        ['name', 'n'],
        [
          ['a', '1'],
          ['bb', '10'],
        ],
      ),
    ).toBe('name   n\n----  --\na      1\nbb    10');
  });

  it('simulated results: headers and labels say so; a simulated side is never matched with a real one', () => {
    const sim = (simulator: string) => ({ kind: 'simulated', simulator }) as const;
    const simBase = curve(
      [
        [100, 1500],
        [50, 3000],
      ],
      { runId: 'old', engine: sim('infx-sim/0.1.0+m1') },
    );
    const simRun = curve(
      [
        [150, 1000],
        [50, 4000],
      ],
      { runId: 'new', engine: sim('infx-sim/0.1.0+m2') },
    );
    const both = compareRuns(
      { label: 'runs/new', runIds: ['new'], points: simRun },
      { label: 'runs/old', runIds: ['old'], points: simBase },
      { at: [75] },
    );
    expect(both.run.engine).toBe('simulated');
    const c = both.configs[0]!;
    expect(c.label).toBe('dsr1 1k/1k h200 sglang fp8 tp8 (simulated)');
    expect(c.configKey.endsWith('|sim')).toBe(true);
    expect(c.engine).toEqual({
      kind: 'simulated',
      simulators: { run: ['infx-sim/0.1.0+m2'], baseline: ['infx-sim/0.1.0+m1'] },
    });
    expect(c.notes).toContain(
      'simulated on both sides, by infx-sim/0.1.0+m2 in the run and infx-sim/0.1.0+m1 in the baseline: a ' +
        'difference may come from the performance model, not the deployment',
    );
    const text = formatCompareText(both);
    expect(
      text.startsWith('runs/new (simulated) vs baseline runs/old (simulated) (median interactivity)\n'),
    ).toBe(true);
    expect(text).toContain('== dsr1 1k/1k h200 sglang fp8 tp8 (simulated)\n');
    expect(formatCompareMarkdown(both)).toContain('#### dsr1 1k/1k h200 sglang fp8 tp8 (simulated)\n');

    // Simulated run, real baseline: the same deployment, two curves; named, not compared.
    const cross = compareRuns(
      { label: 'runs/new', runIds: ['new'], points: simRun },
      { label: 'runs/old', runIds: ['old'], points: base },
    );
    expect(cross.configs).toEqual([]);
    expect(cross.onlyInRun.map((o) => [o.label, o.engine])).toEqual([
      ['dsr1 1k/1k h200 sglang fp8 tp8 (simulated)', 'simulated'],
    ]);
    expect(cross.onlyInBaseline.map((o) => o.engine)).toEqual(['real']);
    expect(cross.notes).toEqual([
      expect.stringMatching(
        /^1 config is simulated in the run and real in the baseline, so they are not compared/,
      ),
    ]);
    const crossText = formatCompareText(cross);
    expect(crossText).toContain('runs/new (simulated) vs baseline runs/old (real)');
    expect(crossText).toContain('note: 1 config is simulated in the run and real in the baseline');
    expect(formatCompareMarkdown(cross)).toContain('> 1 config is simulated in the run and real');
    // All real: no engine words anywhere.
    expect(formatCompareText(report)).not.toContain('simulated');
    expect(report.notes).toEqual([]);
  });
});
