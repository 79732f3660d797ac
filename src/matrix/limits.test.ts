import { describe, expect, it } from 'vitest';
import type { ConfigEntry } from '../config/load.ts';
import type { MasterEntry } from '../schema/master-config.ts';
import { fullSweep, testConfig } from './generate.ts';
import { MAX_MATRIX_ROWS, TooManyRowsError } from './limits.ts';
import { formatSummary, type MatrixSummary } from './summary.ts';

const entry = (concs: number, entries: number): MasterEntry => ({
  image: 'img:v1',
  model: 'm',
  'model-prefix': 'x',
  precision: 'fp8',
  framework: 'vllm',
  runner: 'h200',
  multinode: false,
  scenarios: {
    'fixed-seq-len': [
      {
        isl: 1024,
        osl: 1024,
        'search-space': Array.from({ length: entries }, () => ({
          tp: 8,
          'conc-list': Array.from({ length: concs }, (_, i) => i + 1),
        })),
      },
    ],
  },
});

const configs = (e: MasterEntry) => {
  const ce: ConfigEntry = { key: 'k', entry: e, file: 'f.yaml' };
  return { entries: [ce], byKey: new Map([['k', ce]]) };
};
const runners = { labels: { h200: ['h200_0'] }, hardware: {} };

describe('matrix row bound', () => {
  it('generates up to the bound and refuses one row more, naming the config', () => {
    const per = MAX_MATRIX_ROWS / 100;
    expect(fullSweep(configs(entry(per, 100)), runners, {})).toHaveLength(MAX_MATRIX_ROWS);
    const over = () => testConfig(configs(entry(per, 101)), runners, { configKeys: ['k'] });
    expect(over).toThrow(TooManyRowsError);
    expect(over).toThrow(/more than 100,000 matrix rows/);
    try {
      over();
    } catch (err) {
      expect(err).toMatchObject({ key: 'k', file: 'f.yaml' });
    }
  });

  it('formats a summary of 150k keys (a spread of that many arguments overflowed the stack)', () => {
    const keys = Array.from({ length: 150_000 }, (_, i) => ({
      key: `k${i}`,
      file: 'f.yaml',
      runner: 'h200',
      kind: 'single-node' as const,
      scenarios: ['1k1k'],
      jobs: 1,
      points: 1,
      gpusPerPoint: [8],
      gpuPoints: 8,
    }));
    const s: MatrixSummary = { keys, jobs: keys.length, points: keys.length, gpuPoints: 8 * keys.length };
    expect(formatSummary(s)).toContain('150000 config keys');
  });
});
