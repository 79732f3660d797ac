import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { reviewChange } from '../src/review/review.ts';
import { REPO_ROOT } from './helpers.ts';
import { agentic, CONCS, entry, HISTORY, KEY, repo, request, tp2, tp4 } from './review-repo.ts';

/**
 * `infx review` on config PRs rebuilt as git repositories here; the first is user thread 003's: a TP=2
 * search-space row added next to the TP=4 one of an agentic config, where the reference's eval grouping
 * keeps only one of the two topologies' evals.
 */

describe('infx review', () => {
  it('finds the eval-grouping collision of user thread 003 at the config key, blocking', async () => {
    const { dir, commit } = repo();
    commit({ [KEY]: agentic([tp4]) }, HISTORY, 'base');
    commit({ [KEY]: agentic([tp4, tp2]) }, `${HISTORY}\n${entry('XXX')}`, 'head');
    const report = await reviewChange(request(dir));
    expect(report.changedConfigs).toEqual([KEY]);
    const collision = report.findings.filter((f) => f.rule === 'evals.grouping-collision');
    expect(collision).toHaveLength(1);
    expect(collision[0]).toMatchObject({
      severity: 'blocking',
      file: 'configs/amd-master.yaml',
      line: 1,
      configKey: KEY,
    });
    expect(collision[0]?.message).toContain('tp=2');
    expect(collision[0]?.message).toContain('tp=4');
    // The TP=2 points' feasibility comes from infx check, at the same key.
    const tp2Check = report.findings.filter(
      (f) => f.rule.startsWith('check.') && f.message.startsWith('tp=2'),
    );
    expect(tp2Check.length).toBeGreaterThan(0);
    // The tokens a sequence gets are what is left after its fixed state: below what the warning says it needs.
    for (const f of tp2Check.filter((x) => x.rule === 'check.memory.kv-running-set')) {
      const [, each, need] = /~(\d+) tokens each, below the (\d+)/.exec(f.message) ?? [];
      expect(Number(each)).toBeLessThan(Number(need));
    }
    expect(report.blocking).toBe(1);
  });

  it('a config change without a changelog entry is blocking; the same change with one is clean', async () => {
    const { dir, commit } = repo();
    commit({ [KEY]: agentic([tp4]) }, HISTORY, 'base');
    const wider = { ...tp4, 'conc-list': [...CONCS, 96] };
    commit({ [KEY]: agentic([wider]) }, HISTORY, 'head');
    const missing = await reviewChange(request(dir));
    expect(missing.findings.map((f) => [f.rule, f.severity, f.line])).toContainEqual([
      'changelog.missing',
      'blocking',
      1,
    ]);
    const fixed = repo();
    fixed.commit({ [KEY]: agentic([tp4]) }, HISTORY, 'base');
    fixed.commit({ [KEY]: agentic([wider]) }, `${HISTORY}\n${entry('XXX')}`, 'head');
    const clean = await reviewChange(request(fixed.dir));
    expect(clean.findings.filter((f) => f.rule.startsWith('changelog.'))).toEqual([]);
    expect(clean.findings.filter((f) => f.rule === 'evals.grouping-collision')).toEqual([]);
  });

  it('checks the PR body: the AI model disclosure section and the checklist boxes', async () => {
    const { dir, commit } = repo();
    commit({ [KEY]: agentic([tp4]) }, HISTORY, 'base');
    commit({ [KEY]: agentic([tp4]) }, HISTORY, 'head');
    const body = join(dir, 'body.md');
    writeFileSync(
      body,
      '## Summary\nMore points.\n\n## Checklist\n- [x] ran validate\n- [ ] ran the sweep\n',
    );
    const none = await reviewChange(request(dir, { prBody: body }));
    expect(none.findings.map((f) => [f.rule, f.severity, f.line])).toEqual([
      ['pr-body.ai-disclosure', 'blocking', null],
      ['pr-body.checklist', 'warning', 6],
    ]);
    writeFileSync(
      body,
      '## AI model disclosure\n<!-- which models -->\n\n## Checklist\n- [x] ran validate\n',
    );
    expect(
      (await reviewChange(request(dir, { prBody: body }))).findings.map((f) => [f.rule, f.line]),
    ).toEqual([['pr-body.ai-disclosure', 1]]);
    writeFileSync(body, '## AI model disclosure\nNone.\n');
    expect((await reviewChange(request(dir, { prBody: body }))).findings).toEqual([]);
  });

  it('the command prints Markdown for a PR comment and exits 1 on a blocking finding, 0 when clean', () => {
    const { dir, commit } = repo();
    commit({ [KEY]: agentic([tp4]) }, HISTORY, 'base');
    commit({ [KEY]: agentic([tp4, tp2]) }, `${HISTORY}\n${entry('XXX')}`, 'head');
    const run = (...args: string[]) =>
      spawnSync(
        process.execPath,
        [join(REPO_ROOT, 'bin/infx.js'), 'review', ...args, '--config-files', 'configs/amd-master.yaml'],
        {
          cwd: dir,
          encoding: 'utf8',
        },
      );
    const md = run('--base-ref', 'base', '--head-ref', 'head');
    expect(md.status).toBe(1);
    expect(md.stdout).toContain('🔴 **BLOCKING** `evals.grouping-collision` `configs/amd-master.yaml:1`');
    const json = run('--base-ref', 'base', '--head-ref', 'head', '--format', 'json');
    expect(JSON.parse(json.stdout).blocking).toBe(1);
    const same = run('--base-ref', 'head', '--head-ref', 'head');
    expect(same.status).toBe(0);
    expect(same.stdout).toContain('LGTM');
  });

  it('an engine patched in a changed recipe is blocking until the PR brings its waiver', async () => {
    const { dir, commit } = repo();
    commit({ [KEY]: agentic([tp4]) }, HISTORY, 'base', { 'benchmarks/qwen.sh': 'vllm serve m\n' });
    const recipe = { 'benchmarks/qwen.sh': 'git apply /patches/fix.diff\nvllm serve m\n' };
    commit({ [KEY]: agentic([tp4]) }, `${HISTORY}\n${entry('XXX')}`, 'head', recipe);
    const patched = await reviewChange(request(dir, { pr: 42 }));
    expect(patched.findings.map((f) => [f.rule, f.file, f.line])).toContainEqual([
      'recipe.engine-patch',
      'benchmarks/qwen.sh',
      1,
    ]);
    commit({ [KEY]: agentic([tp4]) }, `${HISTORY}\n${entry('XXX')}`, 'waived', {
      ...recipe,
      'docs/waiver/42.md': 'Backport of the fix for X; goes with the next release.\n',
    });
    const waived = await reviewChange(request(dir, { pr: 42, headRef: 'waived' }));
    expect(waived.findings.filter((f) => f.rule === 'recipe.engine-patch')).toEqual([]);
  });

  it('warns when a change brings back a model the project archived', async () => {
    const { dir, commit } = repo();
    const archive = { 'configs/deprecated/amd-qwen.yaml': yaml.dump({ 'old-qwen': agentic([tp4]) }) };
    commit({}, HISTORY, 'base', archive);
    commit({ [KEY]: agentic([tp4]) }, `${HISTORY}\n${entry('XXX')}`, 'head', archive);
    const report = await reviewChange(request(dir));
    expect(
      report.findings.filter((f) => f.rule === 'model.deprecated').map((f) => [f.severity, f.configKey]),
    ).toEqual([['warning', KEY]]);
  });

  it('the changelog byte rule is a blocking finding at its line', async () => {
    const { dir, commit } = repo();
    commit({ [KEY]: agentic([tp4]) }, HISTORY, 'base');
    commit({ [KEY]: agentic([tp4]) }, `${HISTORY}  \n${entry('XXX')}`, 'head');
    const report = await reviewChange(request(dir, { pr: 42 }));
    expect(
      report.findings
        .filter((f) => f.rule === 'changelog.byte-rule')
        .map((f) => [f.severity, f.file, f.line]),
    ).toEqual([['blocking', 'perf-changelog.yaml', 6]]);
  });
});
