import { describe, expect, it } from 'vitest';
import { compareConfig, compareRuns } from './compare.ts';
import { alignTable, formatCompareMarkdown, formatCompareText, headline } from './compare-format.ts';
import { curve, identity } from './test-support.ts';

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

describe('headline', () => {
  it('the gain at matched interactivity and the change of the maximum', () => {
    expect(headline(report.configs[0]!)).toBe(
      'At matched interactivity this config beats the baseline by 55.6% on average (+44.4% to +66.7%); ' +
        'its maximum is 33.3% above the old maximum. It is at least as good across the whole baseline curve.',
    );
  });

  it('a loss, a lower maximum, a single point', () => {
    const c = compareConfig(base, run, { at: [100] });
    // At 100: 1500 vs 2500 → −40%; maximum 3000 vs 4000 → −25%.
    expect(headline(c)).toBe(
      'At matched interactivity this config trails the baseline by 40.0%; its maximum is 25.0% below the old maximum.',
    );
  });

  it('nothing matched', () => {
    const c = compareConfig(run, base, { at: [500] });
    expect(headline(c)).toMatch(/^No interactivity where both fronts are defined/);
  });
});

describe('formats', () => {
  it('text: aligned tables, notes, configs on one side', () => {
    const text = formatCompareText(report);
    expect(text).toContain('runs/new vs baseline runs/old (median interactivity)');
    expect(text).toContain('== dsr1 1k/1k h200 sglang fp8 tp8');
    expect(text).toMatch(/tok\/s\/user +baseline tok\/s\/GPU +run tok\/s\/GPU +gain/);
    expect(text).toMatch(/ +75 +2,250 +3,250 +\+44\.4% +\$0\.444 +\$0\.308/);
    expect(text).toContain('outside baseline front');
    expect(text).toContain('cost at $3.6/GPU-hour (--price-per-gpu-hour)');
    expect(text).toContain('At equal concurrency:');
    expect(text).toContain('Only in the baseline (not run): dsr1 1k/1k b200 sglang fp8 tp8');
  });

  it('markdown: a section to paste in a pull request', () => {
    const md = formatCompareMarkdown(report);
    expect(md.startsWith('### Performance vs baseline\n')).toBe(true);
    expect(md).toContain('#### dsr1 1k/1k h200 sglang fp8 tp8');
    expect(md).toContain('**At matched interactivity this config beats the baseline by 55.6%');
    expect(md).toContain(
      '| tok/s/user | baseline tok/s/GPU | run tok/s/GPU | gain | baseline $/M tok | run $/M tok |',
    );
    expect(md).toContain('| 75 | 2,250 | 3,250 | +44.4% | $0.444 | $0.308 |');
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
});
