import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { YAML11_SCHEMA } from './yaml11.ts';

const load = (text: string) => yaml.load(text, { schema: YAML11_SCHEMA });

describe('YAML 1.1 scalars (as PyYAML reads them)', () => {
  it('reads ints with underscores, octal, hex, binary and sexagesimal', () => {
    expect(load('[2_063_837, 017, 0x1F, 0b101, -1_000, 190:20:30, 0, +7]')).toEqual([
      2063837, 15, 31, 5, -1000, 685230, 0, 7,
    ]);
  });
  it('reads yes/no/on/off as booleans', () => {
    expect(load('[yes, No, ON, off, true, FALSE, y, n]')).toEqual([
      true,
      false,
      true,
      false,
      true,
      false,
      'y',
      'n',
    ]);
  });
  it('needs a dot for floats and keeps dates as strings', () => {
    expect(load('[0.80, 1.0e+3, 1e3, .5, .inf, 2026-01-01]')).toEqual([
      0.8,
      1000,
      '1e3',
      0.5,
      Number.POSITIVE_INFINITY,
      '2026-01-01',
    ]);
  });
  it('merges mappings with <<', () => {
    expect(load('base: &b {tp: 8}\nother:\n  <<: *b\n  ep: 2\n')).toEqual({
      base: { tp: 8 },
      other: { tp: 8, ep: 2 },
    });
  });
});
