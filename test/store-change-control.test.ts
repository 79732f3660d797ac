import { describe, expect, it } from 'vitest';
import { ChangelogEntrySchema } from '../src/schema/changelog-entry.ts';
import type { RunProvenance } from '../src/schema/run-dir.ts';
import { applyReuse, checkReuse, runAudit, stageRun, unstageRun } from '../src/store/change-control.ts';
import { openStore, type Store } from '../src/store/db.ts';
import { ingestRunDir } from '../src/store/ingest.ts';
import { curvePoints, runs } from '../src/store/queries.ts';
import type { LabelRules } from '../src/store/reuse.ts';
import { runRows } from '../src/store/rows.ts';
import { readRunDir } from '../src/store/run-dir-reader.ts';
import { changeRunStatus } from '../src/store/run-status.ts';
import { tmpDir } from './helpers.ts';
import { BACKENDS, freshStore, requirePostgres } from './store-helpers.ts';
import { type SyntheticPoint, syntheticRow, writeSyntheticRun } from './support/synthetic.ts';

/**
 * Reuse, staging and the audit trail on a real store, SQLite and PostgreSQL: runs with provenance and
 * changelog metadata in their manifests, status changes that the official view follows, refusals that change
 * nothing, and concurrent changes of one run that never lose an event.
 */

const ok = { kind: 'ok' } as const;
const row = syntheticRow();
const points = (...concs: number[]): SyntheticPoint[] => concs.map((conc) => ({ row, conc, attempts: [ok] }));
const HEAD = 'a'.repeat(40);
const LABELS: LabelRules = { fullSweep: ['full-sweep-enabled'], incompatible: ['evals-only', 'agentx-fast'] };

const prRun = (over: Partial<RunProvenance> = {}): RunProvenance => ({
  event: 'pull_request',
  prNumber: 42,
  headSha: HEAD,
  headBranch: 'feat',
  workflow: '.github/workflows/run-sweep.yml',
  ciRunId: '1001',
  ciRunAttempt: 1,
  runUrl: 'https://github.com/o/r/actions/runs/1001',
  labels: ['full-sweep-enabled'],
  ...over,
});

const entry = (key: string) =>
  ChangelogEntrySchema.parse({
    'config-keys': [key],
    description: [`bump ${key}`],
    'pr-link': 'https://github.com/o/r/pull/42',
  });
const meta = (base: string, head: string, ...keys: string[]) => ({
  base_ref: base,
  head_ref: head,
  entries: keys.map(entry),
});

function write(
  dir: string,
  runId: string,
  provenance: RunProvenance | undefined,
  withChangelog = true,
  at = '2026-01-01T00:00:00.000Z',
) {
  return writeSyntheticRun(dir, runId, points(1, 2), at, {
    manifest: {
      ...(provenance ? { provenance } : {}),
      source: {
        kind: 'matrix',
        file: { path: 'cl.json', sha256: 'c'.repeat(64) },
        ...(withChangelog ? { changelog: meta('base', 'head', 'x-*') } : {}),
      },
    },
  });
}

requirePostgres();

describe.each(BACKENDS)('change control on the store (%s)', (backend) => {
  it('links the changelog at ingest, stages, unstages and reuses with every event audited', async () => {
    const store = await freshStore(backend);
    const dir = tmpDir();
    const report = await ingestRunDir(store, write(dir, 'pr1', prRun()), {
      status: 'unofficial',
      actor: 'ci',
    });
    expect(report.changelog).toMatchObject({ baseRef: 'base', headRef: 'head', entries: 1, change: 'new' });
    const commits = new Set([HEAD]);

    expect(await checkReuse(store, null, { pr: 42, commits, labels: LABELS })).toMatchObject({
      runId: 'pr1',
      reusable: true,
      pinned: false,
    });
    await stageRun(store, 'pr1', { pr: { pr: 42, commits, labels: LABELS }, actor: 'alice' });
    await stageRun(store, 'pr1', { pr: null, actor: 'alice', reason: 'new results' });
    expect((await runs(store))[0]?.status).toBe('staged');
    await unstageRun(store, 'pr1', { actor: 'bob' });
    // Staged and unofficial runs are not in the official view; a reused one is.
    expect(await curvePoints(store, { official: true })).toHaveLength(0);
    const { change } = await applyReuse(store, 'pr1', {
      pr: 42,
      commits,
      labels: LABELS,
      actor: 'carol',
      changelog: meta('main~1', 'main', 'x-*', 'y-*'),
    });
    expect(change.event).toMatchObject({
      action: 'reused',
      from: 'unofficial',
      to: 'official',
      actor: 'carol',
    });
    expect(await curvePoints(store, { official: true })).toHaveLength(2);

    const audit = await runAudit(store, 'pr1');
    expect(audit.events.map((e) => [e.seq, e.action, e.from, e.to, e.actor])).toEqual([
      [1, 'ingested', null, 'unofficial', 'ci'],
      [2, 'staged', 'unofficial', 'staged', 'alice'],
      [3, 'restaged', 'staged', 'staged', 'alice'],
      [4, 'unstaged', 'staged', 'unofficial', 'bob'],
      [5, 'reused', 'unofficial', 'official', 'carol'],
    ]);
    expect(audit.events[2]?.reason).toBe('new results');
    expect(audit.changelog.map((e) => [e.index, e.headRef, e.entry['config-keys']])).toEqual([
      [0, 'main', ['x-*']],
      [1, 'main', ['y-*']],
    ]);
    // Official runs are not staged; a second ingest adds no event, and a reused run is official to it.
    await expect(stageRun(store, 'pr1', { pr: null, actor: 'x' })).rejects.toThrow(/is official/);
    const again = await ingestRunDir(store, write(dir, 'pr1', prRun()), { actor: 'ci' });
    expect(again.status).toBe('official');
    expect((await runAudit(store, 'pr1')).events).toHaveLength(5);
  });

  it('refuses what §5.5 and §6 refuse, and a refusal changes nothing', async () => {
    const store = await freshStore(backend);
    const dir = tmpDir();
    await ingestRunDir(store, write(dir, 'local', undefined, false), { status: 'unofficial' });
    await ingestRunDir(store, write(dir, 'trimmed', prRun({ labels: ['sweep-enabled'] })), {
      status: 'unofficial',
    });
    await ingestRunDir(store, write(dir, 'moved', prRun({ headSha: 'b'.repeat(40) })), {
      status: 'unofficial',
    });
    const commits = new Set([HEAD]);
    const pinned = (runId: string) => checkReuse(store, runId, { pr: 42, commits, labels: LABELS });

    const local = await pinned('local');
    expect(local.reusable).toBe(false);
    expect(local.reason).toMatch(/^Reusable source run local is not a pull_request run/);
    expect((await pinned('trimmed')).reason).toMatch(/swept without any of: full-sweep-enabled/);
    expect((await pinned('moved')).reason).toBe(
      `Reusable source run moved head ${'b'.repeat(40)} is not in PR #42's commit list; pin a run whose commit is still part of the PR.`,
    );
    const unpinned = await checkReuse(store, null, { pr: 42, commits, labels: LABELS });
    expect(unpinned).toMatchObject({ runId: null, reusable: false, considered: 2 });

    await expect(stageRun(store, 'local', { pr: null, actor: 'a' })).rejects.toThrow(
      'Run local cannot be staged because it has no changelog entries',
    );
    await expect(
      stageRun(store, 'trimmed', { pr: { pr: 42, commits, labels: LABELS }, actor: 'a' }),
    ).rejects.toThrow('it was not created while a full-sweep label was applied');
    await expect(unstageRun(store, 'local', { actor: 'a' })).rejects.toThrow(
      'is not staged (it is unofficial)',
    );
    await expect(
      applyReuse(store, 'moved', {
        pr: 42,
        commits,
        labels: LABELS,
        actor: 'a',
        changelog: meta('m', 'n', 'z'),
      }),
    ).rejects.toThrow(/not reusable for PR #42/);
    // The refused reuse wrote neither its status nor its changelog.
    const moved = await runAudit(store, 'moved');
    expect(moved.status).toBe('unofficial');
    expect(moved.changelog.map((e) => e.headRef)).toEqual(['head']);
    expect(moved.events).toHaveLength(1);
    await expect(checkReuse(store, 'nope', { pr: 42, commits, labels: LABELS })).rejects.toThrow(
      "no run 'nope' in the database",
    );
  });
});

describe.each(BACKENDS)('migration 0004 (%s)', (backend) => {
  it('runs stored before it are local runs of unknown origin whose trail starts at their status', async () => {
    const old = await freshStore(backend, { upTo: '0003_agentic' });
    const rows = runRows(readRunDir(write(tmpDir(), 'old', undefined)));
    const { provenance_json, pr_number, sweep_active, ...run } = rows.run;
    const db = old.db as unknown as import('kysely').Kysely<Record<string, Record<string, unknown>>>;
    await db
      .insertInto('runs')
      .values({ ...run, status: 'staged', ingested_at: '2026-03-01T00:00:00.000Z' })
      .execute();
    const store = await openStore(old.rawUrl);
    try {
      const audit = await runAudit(store, 'old');
      expect(audit).toMatchObject({ status: 'staged', provenance: null, changelog: [] });
      expect(audit.events).toEqual([
        {
          seq: 1,
          at: '2026-03-01T00:00:00.000Z',
          action: 'ingested',
          from: null,
          to: 'staged',
          actor: '',
          reason: 'stored before infx kept an audit trail (migration 0004): the status it had then',
        },
      ]);
      await unstageRun(store, 'old', { actor: 'a' });
      expect((await runAudit(store, 'old')).events.map((e) => e.seq)).toEqual([1, 2]);
    } finally {
      await store.close();
    }
  });
});

// SQLite's writers are processes (one write transaction at a time, waiting on its busy timeout): two
// connections in one thread would wait on each other, so its concurrency is tested with two CLIs
// (test/change-control-cli.test.ts).
describe.each(BACKENDS.filter((b) => b === 'postgres'))('concurrent status changes (%s)', (backend) => {
  it('concurrent stage and unstage of one run keep a gapless trail that ends at the stored status', async () => {
    const store = await freshStore(backend);
    const other = await openStore(store.rawUrl);
    await ingestRunDir(store, write(tmpDir(), 'pr1', prRun()), { status: 'unofficial' });
    const flip = async (s: Store, n: number) => {
      for (let i = 0; i < n; i++) {
        await changeRunStatus(s, 'pr1', { request: 'stage', actor: 'a', reason: '' });
        await changeRunStatus(s, 'pr1', { request: 'unstage', actor: 'a', reason: '' }).catch(() => {});
      }
    };
    await Promise.all([flip(store, 10), flip(other, 10)]);
    const audit = await runAudit(store, 'pr1');
    expect(audit.events.map((e) => e.seq)).toEqual(audit.events.map((_, i) => i + 1));
    for (let i = 1; i < audit.events.length; i++) expect(audit.events[i]?.from).toBe(audit.events[i - 1]?.to);
    expect(audit.events.at(-1)?.to).toBe(audit.status);
    await other.close();
  });
});
