import { describe, expect, it } from 'vitest';
import { readChangelogMatrix, readChangelogMetadata } from './matrix-file.ts';

/** `infx changelog matrix` output read back for a sweep and for ingest's --changelog. */

const entry = { 'config-keys': ['x-*'], description: ['d'], 'pr-link': 'XXX' };
const meta = { base_ref: 'base', head_ref: 'head', entries: [entry] };
const row = (conc: number) => ({ 'exp-name': 'x', conc });

describe('changelog matrix files', () => {
  it('takes the single-node then multi-node rows in printed order, then the eval rows marked eval-only', () => {
    const out = readChangelogMatrix(
      {
        single_node: { '1k1k': [row(1)], '8k1k': [row(2)] },
        multi_node: { '1k1k': [row(3)] },
        evals: [row(4)],
        multinode_evals: [row(5), row(6)],
        changelog_metadata: meta,
      },
      'cl.json',
    );
    const evalOnly = (conc: number) => ({ ...row(conc), 'eval-only': true });
    expect(out?.rows).toEqual([row(1), row(2), row(3), evalOnly(4), evalOnly(5), evalOnly(6)]);
    expect(out?.evalRows).toBe(3);
    expect(out?.metadata.entries[0]).toMatchObject({ 'config-keys': ['x-*'], 'append-only': false });
  });

  it('a plain row list is not one; broken metadata or buckets are refused naming the key', () => {
    expect(readChangelogMatrix([row(1)], 'm.json')).toBeNull();
    expect(() => readChangelogMatrix({ changelog_metadata: { ...meta, entries: [] } }, 'cl.json')).toThrow(
      'cl.json: changelog_metadata.entries: must hold at least one changelog entry',
    );
    expect(() =>
      readChangelogMatrix({ changelog_metadata: { ...meta, entries: [{ ...entry, bogus: 1 }] } }, 'cl.json'),
    ).toThrow(/^cl\.json: changelog_metadata\.entries\.0/);
    expect(() => readChangelogMatrix({ single_node: [], changelog_metadata: meta }, 'cl.json')).toThrow(
      'cl.json: single_node is not an object of row lists',
    );
    expect(() => readChangelogMatrix({ multi_node: { x: 1 }, changelog_metadata: meta }, 'cl.json')).toThrow(
      'cl.json: multi_node.x is not a list of matrix rows',
    );
    expect(() => readChangelogMatrix({ evals: {}, changelog_metadata: meta }, 'cl.json')).toThrow(
      'cl.json: evals is not a list of matrix rows',
    );
  });

  it('metadata files: the processor output or its changelog_metadata alone', () => {
    const whole = JSON.stringify({ single_node: {}, multi_node: {}, changelog_metadata: meta });
    expect(readChangelogMetadata(whole, 'a.json').head_ref).toBe('head');
    expect(readChangelogMetadata(JSON.stringify(meta), 'b.json').base_ref).toBe('base');
    expect(() => readChangelogMetadata('{', 'c.json')).toThrow(/^c\.json is not JSON/);
    expect(() => readChangelogMetadata('{"base_ref": "x"}', 'd.json')).toThrow(/^d\.json: head_ref: /);
  });
});
