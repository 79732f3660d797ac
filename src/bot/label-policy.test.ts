import { describe, expect, it } from 'vitest';
import { labelPolicy } from './label-policy.ts';

describe('the sweep-label policy', () => {
  it('takes one primary label, with modifiers, and says what it runs', () => {
    expect(labelPolicy({ labels: ['full-sweep-fail-fast', 'bug'], fork: false })).toMatchObject({
      state: 'success',
      primary: 'full-sweep-fail-fast',
      description: 'full-sweep-fail-fast: full sweep, reusable at merge',
    });
    expect(labelPolicy({ labels: ['sweep-enabled'], fork: false }).description).toContain(
      'lowest concurrency',
    );
    expect(labelPolicy({ labels: ['full-sweep-enabled', 'agentx-fast'], fork: false }).description).toContain(
      'not reusable',
    );
  });

  it('refuses two primaries and lone modifiers; names a near miss', () => {
    expect(labelPolicy({ labels: ['full-sweep-enabled', 'full-sweep-fail-fast'], fork: false }).state).toBe(
      'failure',
    );
    const lone = labelPolicy({ labels: ['evals-only', 'all-evals'], fork: false });
    expect(lone).toMatchObject({ state: 'failure' });
    expect(lone.description).toMatch(/^evals-only, all-evals need a primary/);
    expect(labelPolicy({ labels: ['full-sweep-enable'], fork: false }).details[0]).toContain('did you mean');
  });

  it('on a fork, needs a maintainer to have applied every sweep label', () => {
    const labelers = new Map([
      ['full-sweep-fail-fast', { login: 'm', permission: 'maintain' }],
      ['all-evals', { login: 't', permission: 'triage' }],
    ]);
    const v = labelPolicy({ labels: ['full-sweep-fail-fast', 'all-evals'], fork: true, labelers });
    expect(v.state).toBe('failure');
    expect(v.details).toHaveLength(1);
    expect(v.details[0]).toContain("'all-evals' on a fork PR was applied by @t (triage permission)");
    expect(labelPolicy({ labels: ['documentation'], fork: true }).state).toBe('success');
  });

  it("on a fork, holds a maintainer's approval to the head it was given for", () => {
    const labelers = new Map([['full-sweep-enabled', { login: 'm', permission: 'write' }]]);
    const input = { labels: ['full-sweep-enabled'], fork: true, labelers, head: 'b'.repeat(40) };
    expect(labelPolicy({ ...input, approval: { head: 'b'.repeat(40), approved: true } }).state).toBe(
      'success',
    );
    expect(labelPolicy({ ...input, approval: { head: 'a'.repeat(40), approved: true } }).description).toMatch(
      /^The PR advanced to bbbbbbbbbbbb; remove and re-add the sweep label/,
    );
    expect(labelPolicy({ ...input, approval: { head: 'b'.repeat(40), approved: false } }).state).toBe(
      'failure',
    );
    // A PR the bot never saw move: who applied the labels decides.
    expect(labelPolicy({ ...input, approval: null }).state).toBe('success');
    expect(
      labelPolicy({ ...input, fork: false, approval: { head: 'a'.repeat(40), approved: false } }).state,
    ).toBe('success');
  });
});
