import { describe, expect, it } from 'vitest';
import {
  isAgentic,
  isFixed,
  isMultiNode,
  isSingleNode,
  type MatrixRow,
  MatrixRowSchema,
  type RowWorker,
  rowConcs,
  rowFields,
  rowKind,
} from './matrix-row.ts';

const identity = {
  image: 'lmsysorg/sglang:v0.5.2',
  model: 'deepseek-ai/DeepSeek-R1-0528',
  'model-prefix': 'dsr1',
  precision: 'fp8',
  framework: 'sglang',
  runner: 'h200',
} as const;
const par = { tp: 8, pp: 1, 'dcp-size': 1, 'pcp-size': 1, ep: 1, 'dp-attn': false } as const;
const worker: RowWorker = { 'num-worker': 1, ...par };
const agentic = {
  'kv-offloading': 'none',
  'total-cpu-dram-gb': 0,
  duration: 1800,
  'scenario-type': 'agentic-coding',
} as const;

const rows: Record<string, MatrixRow> = {
  'single-node-fixed': {
    ...identity,
    ...par,
    isl: 1024,
    osl: 1024,
    conc: 4,
    'max-model-len': 2248,
    'spec-decoding': 'none',
    'exp-name': 'dsr1_1k1k',
    disagg: false,
    'run-eval': false,
  },
  'multi-node-fixed': {
    ...identity,
    isl: 8192,
    osl: 1024,
    'spec-decoding': 'none',
    prefill: worker,
    decode: worker,
    conc: [4, 8],
    'max-model-len': 9416,
    'exp-name': 'dsr1_8k1k',
    disagg: false,
    'run-eval': false,
  },
  'single-node-agentic': {
    ...identity,
    ...par,
    'spec-decoding': 'none',
    conc: 16,
    ...agentic,
    'exp-name': 'dsr1_agentic',
  },
  'multi-node-agentic': {
    ...identity,
    'spec-decoding': 'none',
    prefill: worker,
    decode: worker,
    conc: [32],
    ...agentic,
    'exp-name': 'dsr1_agentic_mn',
    disagg: false,
  },
};

describe('matrix row kinds', () => {
  it.each(Object.entries(rows))('%s: the guards and rowKind agree with the keys', (kind, row) => {
    expect(MatrixRowSchema.safeParse(row).success).toBe(true);
    expect(rowKind(row)).toBe(kind);
    expect(isMultiNode(row)).toBe(kind.startsWith('multi'));
    expect(isSingleNode(row)).toBe(!kind.startsWith('multi'));
    expect(isAgentic(row)).toBe(kind.endsWith('agentic'));
    expect(isFixed(row)).toBe(kind.endsWith('fixed'));
  });

  it('rowConcs lists one or many concurrencies', () => {
    expect(rowConcs(rows['single-node-fixed']!)).toEqual([4]);
    expect(rowConcs(rows['multi-node-fixed']!)).toEqual([4, 8]);
    expect(rowConcs(rows['single-node-agentic']!)).toEqual([16]);
  });

  it('rowFields is the row itself, keys in their order', () => {
    const row = { ...rows['single-node-fixed']! };
    const fields = rowFields(row);
    expect(fields).toBe(row);
    expect(Object.keys(fields)).toEqual(Object.keys(rows['single-node-fixed']!));
    fields['run-eval'] = true;
    expect(row['run-eval']).toBe(true);
  });
});
