import { describe, expect, it } from 'vitest';
import { curvePoint, identity } from '../../test/support/curve-points.ts';
import { CSV_COLUMNS, pointsCsv } from './csv.ts';

describe('pointsCsv', () => {
  it('a header and a row per point; empty cells for what was not measured; the price in the costs', () => {
    const csv = pointsCsv([curvePoint({ conc: 4, tput: 1000, intvty: 50, ttftMs: 80 })], 3.6);
    const [head, row, end] = csv.split('\r\n');
    expect(end).toBe('');
    expect(head).toBe(CSV_COLUMNS.map((c) => c.name).join(','));
    const cells = Object.fromEntries(head!.split(',').map((k, i) => [k, row!.split(',')[i]]));
    expect(cells).toMatchObject({
      conc: '4',
      tput_per_gpu_tok_s: '1000',
      ttft_median_ms: '80',
      e2el_median_ms: '',
      joules_per_output_token: '',
      price_per_gpu_hour_usd: '3.6',
      cost_per_m_tokens_usd: '1',
      valid: 'true',
      parallelism: 'tp8',
      engine: 'real',
      simulator: '',
    });
    const sim = pointsCsv([
      curvePoint({ tput: 1, intvty: 1, engine: { kind: 'simulated', simulator: 'infx-sim/0.1.0+m2' } }),
    ]);
    const simCells = sim.split('\r\n')[1]!.split(',');
    expect(simCells[head!.split(',').indexOf('engine')]).toBe('simulated');
    expect(simCells[head!.split(',').indexOf('simulator')]).toBe('infx-sim/0.1.0+m2');
  });

  it('quotes commas, quotes and newlines; neutralizes spreadsheet formulas', () => {
    const config = identity({ framework: '=HYPERLINK("x"),\n' });
    const csv = pointsCsv([curvePoint({ tput: 1, intvty: 1, config })]);
    expect(csv).toContain(`"'=HYPERLINK(""x""),\n"`);
  });
});
