import { describe, expect, it } from 'vitest';
import { appendOnlyDelta } from '../src/changelog/append-only.ts';
import { resolveChangelogKeys } from '../src/changelog/keys.ts';
import { processChangelogEntries } from '../src/changelog/process.ts';
import { loadInputs } from '../src/matrix/build.ts';
import { type ChangelogEntry, ChangelogEntrySchema } from '../src/schema/changelog-entry.ts';
import { tmpDir, writeYaml } from './helpers.ts';
import { fixedRow, multiRow, rowWorker } from './rows.ts';

/** matrix-spec §13 case 37 (append-only), and the changelog processor's entry rules (changelog-pr-spec §2). */

const row = (conc: number, over: Record<string, unknown> = {}) =>
  fixedRow({
    image: 'img:1',
    runner: 'h100',
    isl: 1024,
    osl: 1024,
    tp: 4,
    conc,
    'max-model-len': 2304,
    'exp-name': 'x_1k1k',
    ...over,
  });

const multi = (conc: number[]) =>
  multiRow(conc, {
    image: 'img:1',
    prefill: rowWorker(1, 4, { ep: 4, 'dp-attn': true }),
    decode: rowWorker(1, 8, { ep: 8, 'dp-attn': true }),
  });

describe('37: append_only_delta', () => {
  const base = [row(4), row(8)];
  it('emits only the added concurrencies', () => {
    expect(appendOnlyDelta(base, [row(4), row(8), row(12)]).map((r) => r.conc)).toEqual([12]);
    expect(appendOnlyDelta([multi([8, 16])], [multi([8, 16, 24, 24])]).map((r) => r.conc)).toEqual([[24]]);
  });
  it('accepts a new recipe on the same visual curve and image', () => {
    const delta = appendOnlyDelta(base, [...base, row(12, { tp: 8 }), row(16, { tp: 8 })]);
    expect(delta.map((r) => [(r as { tp: number }).tp, r.conc])).toEqual([
      [8, 12],
      [8, 16],
    ]);
  });
  it('rejects modified recipes, removed points, new images and empty deltas', () => {
    expect(() =>
      appendOnlyDelta(base, [
        row(4, { image: 'img:2' }),
        row(8, { image: 'img:2' }),
        row(12, { image: 'img:2' }),
      ]),
    ).toThrow('append-only may not remove or modify existing generated recipes');
    expect(() => appendOnlyDelta(base, [row(8), row(12)])).toThrow(
      'append-only may not remove existing concurrency points: [4]',
    );
    expect(() => appendOnlyDelta(base, [...base, row(12, { tp: 16, image: 'img:2' })])).toThrow(
      'append-only additions must belong to an existing visual curve with one unchanged non-null image',
    );
    expect(() => appendOnlyDelta(base, base)).toThrow('append-only did not add any generated points');
    expect(() => appendOnlyDelta([], base)).toThrow(
      'append-only requires an existing curve in the base revision',
    );
    expect(() => appendOnlyDelta(base, [...base, row(0, { conc: 'x' })])).toThrow(
      'invalid concurrency value',
    );
  });
});

describe('37: changelog-level append-only', () => {
  it('rejects append-only with eval selection fields', () => {
    const entry = { 'config-keys': ['a'], description: ['d'], 'pr-link': 'XXX', 'append-only': true };
    expect(ChangelogEntrySchema.safeParse(entry).success).toBe(true);
    for (const extra of [{ 'all-evals': true }, { 'evals-only': true }, { 'eval-min-prefill-ep': 2 }]) {
      const r = ChangelogEntrySchema.safeParse({ ...entry, ...extra });
      expect(r.success).toBe(false);
      expect(r.error?.issues.map((i) => i.message)).toContain(
        'append-only cannot be combined with eval selection fields',
      );
    }
  });
});

describe('changelog processor', async () => {
  const dir = tmpDir();
  const master = (concs: number[], image = 'img:1') => ({
    'x-fp8-h100-sglang': {
      image,
      model: 'm',
      'model-prefix': 'x',
      precision: 'fp8',
      framework: 'sglang',
      runner: 'h100',
      multinode: false,
      scenarios: {
        'fixed-seq-len': [{ isl: 8192, osl: 1024, 'search-space': [{ tp: 4, 'conc-list': concs }] }],
      },
    },
    'y-fp8-h100-sglang': {
      image,
      model: 'm2',
      'model-prefix': 'y',
      precision: 'fp8',
      framework: 'sglang',
      runner: 'h100',
      multinode: false,
      scenarios: {
        'fixed-seq-len': [{ isl: 1024, osl: 1024, 'search-space': [{ tp: 8, 'conc-list': [4] }] }],
      },
    },
  });
  const runners = writeYaml(dir, 'runners.yaml', { labels: { h100: ['h100_0'] } });
  const load = async (name: string, m: object) => loadInputs([writeYaml(dir, name, m)], runners);
  const base = await load('base.yaml', master([16, 32]));
  const head = await load('head.yaml', master([16, 32, 64]));
  const entry = (over: Partial<ChangelogEntry>): ChangelogEntry =>
    ChangelogEntrySchema.parse({ 'config-keys': ['x-*'], description: ['d'], 'pr-link': 'XXX', ...over });

  it('generates throughput and default evals for a regular entry', () => {
    const run = processChangelogEntries([entry({})], head.configs, head.runners);
    expect(run.single_node['8k1k']!.map((r) => r.conc)).toEqual([16, 32, 64]);
    expect(
      run.single_node['8k1k']!.every((r) => /^[0-9a-f]{64}$/.test(String(r['recipe-fingerprint']))),
    ).toBe(true);
    expect(run.evals.map((r) => r.conc)).toEqual([32, 64]);
  });

  it('an append-only run emits only the new points and no evals', () => {
    const run = processChangelogEntries([entry({ 'append-only': true })], head.configs, head.runners, {
      base,
    });
    expect(run.single_node['8k1k']!.map((r) => r.conc)).toEqual([64]);
    expect(run.evals).toEqual([]);
    expect(run.changelog_metadata['append-only']).toBe(true);
  });

  it('enforces the mode rules across entries', () => {
    expect(() =>
      processChangelogEntries([entry({ 'append-only': true }), entry({})], head.configs, head.runners, {
        base,
      }),
    ).toThrow('append-only entries cannot share a sweep with regular changelog entries');
    expect(() =>
      processChangelogEntries([entry({ 'append-only': true })], head.configs, head.runners, {
        base,
        allEvals: true,
      }),
    ).toThrow('append-only sweeps cannot use all-evals or evals-only modifiers');
  });

  it('suppresses throughput for evals-only and all-evals entries, and expands evals for all-evals', () => {
    const evalsOnly = processChangelogEntries([entry({ 'evals-only': true })], head.configs, head.runners);
    expect(evalsOnly.single_node).toEqual({});
    expect(evalsOnly.evals.map((r) => r.conc)).toEqual([32, 64]);
    const all = processChangelogEntries([entry({ 'all-evals': true })], head.configs, head.runners);
    expect(all.single_node).toEqual({});
    expect(all.evals.map((r) => r.conc)).toEqual([16, 32, 64]);
    const label = processChangelogEntries([entry({})], head.configs, head.runners, {
      allEvals: true,
      trimConc: true,
    });
    expect(label.single_node['8k1k']!.map((r) => r.conc)).toEqual([16]);
    expect(label.evals).toHaveLength(3);
  });

  it('generates each config and scenario once across entries', () => {
    const run = processChangelogEntries(
      [entry({}), entry({ 'config-keys': ['x-fp8-h100-sglang', 'y-*'] })],
      head.configs,
      head.runners,
    );
    expect(run.single_node['8k1k']).toHaveLength(3);
    expect(run.single_node['1k1k']!.map((r) => r['model-prefix'])).toEqual(['y']);
  });

  it('resolves changelog keys with * only', () => {
    expect(resolveChangelogKeys(['config-*', 'config-a'], ['config-b', 'config-a', 'other'])).toEqual([
      'config-b',
      'config-a',
    ]);
    expect(() => resolveChangelogKeys(['conf?g-a'], ['config-a'])).toThrow(
      "Config key 'conf?g-a' not found in master configs.",
    );
    expect(() => resolveChangelogKeys(['z*'], ['config-a'])).toThrow(
      "No config keys matched the wildcard pattern 'z*' in master configs.",
    );
  });
});
