import { describe, expect, it } from 'vitest';
import { decideLabels } from '../src/matrix/labels.ts';
import { formatPlan, planSweep } from '../src/matrix/plan.ts';
import { annotatePriorities, DEFAULT_CI_PRIORITY_POLICY, priorityScore } from '../src/matrix/priority.ts';
import { recipeFingerprint, trimConc } from '../src/matrix/recipe.ts';
import { runCli, tmpDir, writeYaml } from './helpers.ts';
import { agenticRow, fixedRow, multiRow } from './rows.ts';

/** matrix-spec §13 cases 36 and 38–40, and the sweep plan of §9 / changelog-pr-spec §3. */

const agenticDramRow = (conc: number, backend: Record<string, unknown>) =>
  agenticRow(4, conc, {
    precision: 'fp4',
    framework: 'vllm',
    'kv-offloading': 'dram',
    'total-cpu-dram-gb': 1199,
    'exp-name': `x_tp4_conc${conc}_kvdram-${String(backend.name)}`,
    'kv-offload-backend': backend,
  });

describe('36: trim_conc', () => {
  it('keeps the lowest concurrency per single-node recipe, comparing nested objects deeply', () => {
    const a = agenticDramRow(8, { name: 'vllm-simple', version: '1.0' });
    const b = agenticDramRow(2, { version: '1.0', name: 'vllm-simple' });
    const c = agenticDramRow(4, { name: 'lmcache' });
    expect(trimConc([a, b, c]).map((r) => r.conc)).toEqual([2, 4]);
  });
  it('cuts multi-node rows to their smallest concurrency', () => {
    expect(trimConc([multiRow([8, 16])])[0]!.conc).toEqual([8]);
  });
});

describe('38: recipe fingerprint', () => {
  it('hashes the canonical row without conc and exp-name', () => {
    const hash = '21dccc0d8a6ac60213ad5eb7f5993efe4a5e778d61a43c6fbde0b30289232150';
    expect(recipeFingerprint(fixedRow())).toBe(hash);
    expect(recipeFingerprint(fixedRow({ conc: 16, 'exp-name': 'other' }))).toBe(hash);
  });
  it('changes with the recipe', () => {
    const base = recipeFingerprint(fixedRow());
    expect(recipeFingerprint(fixedRow({ tp: 4 }))).not.toBe(base);
    expect(recipeFingerprint(fixedRow({ duration: 1200 }))).not.toBe(base);
  });
});

describe('39: CI priority', () => {
  const pr = { event: 'pr', labels: [] as string[] };
  const job = (over: Record<string, unknown>) => ({
    runner: 'h100',
    framework: 'trt',
    'model-prefix': 'other',
    precision: 'fp8',
    'spec-decoding': 'none',
    ...over,
  });
  it('scores the base and the push bonus', () => {
    expect(priorityScore(job({}), pr)).toBe('1.000');
    expect(priorityScore(job({}), { event: 'push', labels: [] })).toBe('3.000');
  });
  it('adds every adjustment', () => {
    const all = job({
      prefill: {},
      'scenario-type': 'agentic-coding',
      precision: 'fp4',
      'spec-decoding': 'mtp',
      framework: 'sglang',
      'model-prefix': 'dsv4',
    });
    expect(priorityScore(all, pr)).toBe('6.000');
    expect(
      priorityScore(
        job({
          runner: 'b200',
          framework: 'sglang',
          'model-prefix': 'qwen3.5',
          precision: 'fp4',
          'spec-decoding': 'mtp',
        }),
        pr,
      ),
    ).toBe('3.750');
  });
  it('matches framework prefixes but model prefixes exactly', () => {
    const j = job({
      framework: 'sglang-disagg',
      'model-prefix': 'glm5.2',
      'spec-decoding': 'mtp',
      prefill: {},
    });
    expect(priorityScore(j, { event: 'push', labels: [] })).toBe('5.500');
  });
  it('applies label policies', () => {
    const j = job({ framework: 'sglang', precision: 'fp4' });
    expect(priorityScore(j, { event: 'pr', labels: ['skip_queue'] })).toBe('2.250');
    expect(priorityScore(j, { event: 'pr', labels: ['ci-patchwork'] })).toBe('0.000');
    expect(
      Number(priorityScore(j, { event: 'pr', labels: ['ci-patchwork', 'ci-patchwork-waived'] })),
    ).toBeGreaterThan(0);
    expect(priorityScore(j, { event: 'pr', labels: [], criteria: ['patchwork'] })).toBe('0.000');
    expect(priorityScore(job({}), { event: 'pr', labels: ['ci-checklist-complete'], criteria: [] })).toBe(
      '1.250',
    );
  });
  it('masks facts with classifier criteria and rejects unknown ones', () => {
    expect(
      priorityScore(job({ framework: 'vllm' }), { event: 'pr', labels: [], criteria: ['vllm', 'sglang'] }),
    ).toBe('1.500');
    expect(priorityScore(job({ precision: 'fp4' }), { event: 'pr', labels: [], criteria: [] })).toBe('1.000');
    expect(() => priorityScore(job({}), { event: 'pr', labels: [], criteria: ['unknown'] })).toThrow(
      /Unknown CI priority criteria/,
    );
  });
  it('rounds half up to three decimals', () => {
    const policy = structuredClone(DEFAULT_CI_PRIORITY_POLICY);
    policy.labels.patchwork.score = 0.7225;
    expect(priorityScore(job({}), { event: 'pr', labels: ['ci-patchwork'], policy })).toBe('0.723');
  });
});

describe('40: queue tokens', () => {
  const payload = {
    single_node: { '8k1k': [{ runner: 'b200', framework: 'sglang' }] },
    changelog_metadata: { base_ref: 'a' },
  };
  it('annotates jobs with priority and a namespaced token, leaving other objects alone', () => {
    const out = annotatePriorities(payload, { event: 'pr', labels: [], namespace: '1:1' }) as typeof payload;
    expect(out.single_node['8k1k'][0]).toEqual({
      runner: 'b200',
      framework: 'sglang',
      priority: '1.500',
      'queue-token': '45194b84e8448685825ffff8e40824bb',
    });
    expect(out.changelog_metadata).toEqual({ base_ref: 'a' });
    expect(payload.single_node['8k1k'][0]).not.toHaveProperty('priority');
  });
  it('gives a different token per run attempt, and skip-queue-pr with skip_queue', () => {
    const tok = (ns: string) =>
      (annotatePriorities(payload, { event: 'pr', labels: [], namespace: ns }) as typeof payload).single_node[
        '8k1k'
      ][0] as Record<string, unknown>;
    expect(tok('123:1')['queue-token']).not.toBe(tok('123:2')['queue-token']);
    const skip = annotatePriorities(payload, {
      event: 'pr',
      labels: ['skip_queue'],
      namespace: '1:1',
      prNumber: 2124,
    }) as typeof payload;
    expect(skip.single_node['8k1k'][0]).toHaveProperty('skip-queue-pr', 2124);
  });
});

describe('labels', () => {
  it('fails on several primary labels and runs nothing without one', () => {
    expect(decideLabels(['sweep-enabled', 'full-sweep-enabled'], 'pr').errors[0]).toMatch(
      /multiple conflicting sweep labels/,
    );
    const none = decideLabels(['all-evals'], 'pr');
    expect(none.runs).toBe(false);
    expect(none.warnings[0]).toMatch(/no effect without a primary/);
  });
  it('ignores labels on push', () => {
    const d = decideLabels(['full-sweep-fail-fast'], 'push');
    expect(d).toMatchObject({ runs: true, primary: null });
    expect(d.policy).toMatchObject({ canary: false, failFast: false, trimConc: false });
  });
  it('makes evals-only and agentx-fast runs ineligible for reuse', () => {
    expect(decideLabels(['full-sweep-fail-fast'], 'pr').reuseEligible).toBe(true);
    expect(decideLabels(['full-sweep-fail-fast', 'evals-only'], 'pr').reuseEligible).toBe(false);
    expect(decideLabels(['full-sweep-fail-fast', 'agentx-fast'], 'pr').reuseEligible).toBe(false);
    expect(decideLabels(['sweep-enabled'], 'pr').reuseEligible).toBe(false);
  });
});

describe('sweep plan', () => {
  const matrix = () => [
    fixedRow({ isl: 1024, osl: 1024, 'exp-name': 'x_1k1k', 'max-model-len': 2304, conc: 8 }),
    fixedRow({ isl: 1024, osl: 1024, 'exp-name': 'x_1k1k', 'max-model-len': 2304, conc: 4 }),
    fixedRow({ conc: 16 }),
    fixedRow({ conc: 32 }),
    fixedRow({ conc: 64 }),
    fixedRow({ conc: 2 }),
    multiRow([8, 16, 32]),
    agenticDramRow(8, { name: 'lmcache' }),
    agenticDramRow(16, { name: 'lmcache' }),
  ];

  it('buckets benchmark rows with fingerprints and derives eval rows', () => {
    const plan = planSweep(matrix(), { labels: ['full-sweep-enabled'], event: 'pr' });
    expect(Object.keys(plan.buckets.single_node).sort()).toEqual(['1k1k', '8k1k', 'agentic']);
    expect(plan.buckets.single_node['8k1k']!.map((r) => r.conc)).toEqual([16, 32, 64, 2]);
    expect(plan.buckets.multi_node['8k1k']).toHaveLength(1);
    for (const r of plan.buckets.single_node['8k1k']!)
      expect(r['recipe-fingerprint']).toMatch(/^[0-9a-f]{64}$/);
    // Default eval policy: median and max of {16, 32, 64} in the 8k1k group; the agentic max; the multi-node topology.
    expect(plan.buckets.evals.map((r) => r.conc)).toEqual([32, 64]);
    expect(plan.buckets.agentic_evals.map((r) => r.conc)).toEqual([16]);
    expect(plan.buckets.multinode_evals[0]).toMatchObject({ 'eval-conc': 32, 'eval-only': true });
    expect(plan.buckets.evals.every((r) => r['recipe-fingerprint'] === undefined)).toBe(true);
  });

  it('takes the lowest-concurrency 1k1k/8k1k row as canary and removes it from the remaining rows', () => {
    const plan = planSweep(matrix(), { labels: ['full-sweep-fail-fast'], event: 'pr' });
    expect(plan.canary).toMatchObject({ bucket: '8k1k', row: { conc: 2 } });
    expect(plan.remaining['8k1k']!.map((r) => r.conc)).toEqual([16, 32, 64]);
    expect(plan.remaining['1k1k']).toHaveLength(2);
    expect(plan.failFast).toBe(true);
    expect(plan.families.every((f) => f.failFast)).toBe(true);
    expect(
      planSweep(matrix(), { labels: ['full-sweep-fail-fast-no-canary'], event: 'pr' }).canary,
    ).toBeNull();
  });

  it('trims with sweep-enabled and drops throughput with evals-only', () => {
    const trimmed = planSweep(matrix(), { labels: ['sweep-enabled'], event: 'pr' });
    expect(trimmed.buckets.single_node['8k1k']!.map((r) => r.conc)).toEqual([2]);
    expect(trimmed.buckets.multi_node['8k1k']![0]!.conc).toEqual([8]);
    expect(trimmed.canary).toBeNull();
    const evalsOnly = planSweep(matrix(), { labels: ['full-sweep-enabled', 'evals-only'], event: 'pr' });
    expect(evalsOnly.buckets.single_node).toEqual({});
    expect(evalsOnly.buckets.evals).toHaveLength(2);
  });

  it('expands evals with all-evals and keeps throughput', () => {
    const plan = planSweep(matrix(), { labels: ['non-canary-full-sweep-enabled', 'all-evals'], event: 'pr' });
    expect(plan.buckets.evals.map((r) => r.conc)).toEqual([16, 32, 64, 2]);
    expect(plan.buckets.multinode_evals[0]).toMatchObject({ 'eval-all-concs': true });
    expect(plan.buckets.single_node['8k1k']).toHaveLength(4);
  });

  it('plans nothing on label errors, everything on push', () => {
    expect(planSweep(matrix(), { labels: ['sweep-enabled', 'full-sweep-enabled'], event: 'pr' }).runs).toBe(
      false,
    );
    const push = planSweep(matrix(), { labels: [], event: 'push' });
    expect(push.runs).toBe(true);
    expect(push.canary).toBeNull();
    expect(formatPlan(push)).toContain('single-node 8k1k');
  });

  it('rejects an eval-only matrix', () => {
    expect(() =>
      planSweep([fixedRow({ 'eval-only': true, 'run-eval': true })], {
        labels: ['sweep-enabled'],
        event: 'pr',
      }),
    ).toThrow(/throughput matrix/);
  });
});

describe('CLI', () => {
  it('infx matrix plan reads a matrix from stdin and exits 1 on conflicting labels', async () => {
    const input = JSON.stringify([fixedRow({ conc: 2 })]);
    const ok = await runCli(
      ['matrix', 'plan', '--labels', 'full-sweep-fail-fast', '--format', 'json'],
      input,
    );
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ runs: true, canary: { row: { conc: 2 } } });
    const bad = await runCli(['matrix', 'plan', '--labels', 'sweep-enabled', 'full-sweep-enabled'], input);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain('multiple conflicting sweep labels');
  });

  it('infx matrix priority annotates any payload and reads a policy file', async () => {
    const input = JSON.stringify({ single_node: { '8k1k': [{ runner: 'b200', framework: 'sglang' }] } });
    const out = await runCli(['matrix', 'priority', '--namespace', '1:1'], input);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('"queue-token": "45194b84e8448685825ffff8e40824bb"');
    const dir = tmpDir();
    const policy = writeYaml(dir, 'ci-priority.yaml', {
      version: 1,
      'base-score': 5,
      adjustments: { event: { push: 2 } },
      labels: {
        'skip-queue': { name: 'skip_queue' },
        'checklist-complete': { names: ['ok'], adjustment: 0.25 },
        patchwork: { names: ['pw'], score: 0, 'waived-by': [] },
      },
    });
    const custom = await runCli(['matrix', 'priority', '--policy', policy], input);
    expect(custom.stdout).toContain('"priority": "5.000"');
    const bad = writeYaml(dir, 'bad.yaml', { version: 2, 'base-score': 1, adjustments: {}, labels: {} });
    const rejected = await runCli(['matrix', 'priority', '--policy', bad], input);
    expect(rejected.code).toBe(1);
    expect(rejected.stderr).toContain('Unsupported CI priority policy version: 2');
  });
});
