import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tmpDir } from '../../test/helpers.ts';
import { fixedRow } from '../../test/rows.ts';
import { REFERENCE_BENCH } from '../schema/reference-client.ts';
import type { PointPhase, PointStatus, RunManifest, RunOptions } from '../schema/run-dir.ts';
import type { AttemptJob, PointExecutor } from './executors/types.ts';
import { formatOutcome } from './format.ts';
import { planPoints } from './points.ts';
import { ATTEMPT_FILES, writeJson, writeManifest } from './run-dir.ts';
import { runSweep, type Selection } from './sweep.ts';

/**
 * The scheduler alone: which attempts start, in what order, and what a failure stops. Its executor here
 * plays a script (outcome per attempt, how long it takes) and writes status.json as `infx sweep point` does;
 * the real executors are tested end to end in test/sweep*.test.ts.
 */

/** ok, ok but not valid (the client or the engine set the pace), or a failure in that phase. */
type Outcome = 'ok' | 'invalid' | PointPhase;
type Script = Record<number, { outcomes: Outcome[]; ms?: number; onStart?: () => void }>;

function scripted(script: Script, order: string[]): PointExecutor {
  return {
    name: 'scripted',
    async start(job: AttemptJob) {
      order.push(`${job.spec.conc}#${job.attempt}`);
      const plan = script[job.spec.conc] ?? { outcomes: ['ok'] };
      plan.onStart?.();
      const outcome = plan.outcomes[job.attempt - 1] ?? plan.outcomes.at(-1) ?? 'ok';
      let cancel!: () => void;
      const cancelled = new Promise<void>((r) => {
        cancel = r;
      });
      const finished = new Promise<boolean>((r) => {
        setTimeout(() => r(false), plan.ms ?? 5);
        void cancelled.then(() => r(true));
      });
      const done = finished.then(async (interrupted) => {
        const now = new Date().toISOString();
        const ran = (outcome === 'ok' || outcome === 'invalid') && !interrupted;
        const status: PointStatus = {
          schemaVersion: 1,
          pointId: job.spec.pointId,
          attempt: job.attempt,
          status: ran ? 'ok' : 'failed',
          phase: ran ? null : outcome === 'ok' || outcome === 'invalid' ? 'benchmark' : outcome,
          reason: interrupted
            ? 'interrupted'
            : outcome === 'ok'
              ? null
              : outcome === 'invalid'
                ? 'the result is not valid: engine-limited: scripted'
                : `scripted ${outcome} failure`,
          interrupted,
          valid: ran ? outcome === 'ok' : null,
          startedAt: now,
          finishedAt: now,
          durationS: 0.01,
          host: hostname(),
          engineExit: null,
          logTail: [],
        };
        await writeJson(join(job.dir, ATTEMPT_FILES.status), status);
        return status;
      });
      return {
        id: 'scripted',
        done,
        async cancel() {
          cancel();
          await done;
        },
      };
    },
    async close() {},
  };
}

async function run(
  rows: ReturnType<typeof fixedRow>[],
  script: Script,
  opts: Partial<RunOptions> & { select?: Selection; runDir?: string; signal?: AbortSignal } = {},
) {
  const runDir = opts.runDir ?? tmpDir();
  const { points } = planPoints(rows, {
    runId: 'r',
    canary: opts.canary ?? false,
    bench: { ...REFERENCE_BENCH, requestTimeoutS: 60 },
    engine: { kind: 'sim', container: 'none', simTimeScale: 1, readyTimeoutS: 60, acceptance: 'golden' },
    faults: [],
  });
  const manifest = {
    runId: 'r',
    options: {
      executor: 'local',
      retries: 0,
      failFast: false,
      canary: false,
      parallel: 1,
      slurm: null,
      ...opts,
    },
    points,
  } as unknown as RunManifest;
  await writeManifest(runDir, manifest);
  const order: string[] = [];
  const outcome = await runSweep(runDir, manifest, scripted(script, order), opts.select ?? 'missing', {
    log: () => {},
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  const byConc = (ids: string[]) => ids.map((id) => Number(/conc(\d+)_/.exec(id)?.[1])).sort((a, b) => a - b);
  return {
    runDir,
    order,
    ok: byConc(outcome.ok),
    failed: byConc(outcome.failed.map((f) => f.pointId)),
    notRun: outcome.notRun.map((n) => `${/conc(\d+)_/.exec(n.pointId)?.[1]}: ${n.reason}`),
    outcome,
  };
}

const rows = (...concs: number[]) => concs.map((conc) => fixedRow({ conc }));

describe('runSweep', () => {
  it('counts a point that ran but is not valid as not ok, and says why', async () => {
    const r = await run(rows(1, 2, 4), { 2: { outcomes: ['invalid'] } });
    expect(r.ok).toEqual([1, 4]);
    expect(r.failed).toEqual([]);
    expect(r.outcome.invalid.map((v) => v.reason)).toEqual([
      'the result is not valid: engine-limited: scripted',
    ]);
    const text = formatOutcome(r.outcome, r.runDir, { runId: 'r' } as RunManifest);
    expect(text).toMatch(/^run r: 2 ok this sweep, 1 not valid, 0 failed, 0 not run/);
    expect(text).toContain('not valid ');
    // It is done (not rerun on resume): its result stays as measured.
    const again = await run(rows(1, 2, 4), {}, { runDir: r.runDir });
    expect(again.order).toEqual([]);
  });

  it('retries a failed point right away, as attempt 2, 3, … up to --retries', async () => {
    const r = await run(rows(1, 2), { 1: { outcomes: ['setup', 'benchmark', 'ok'] } }, { retries: 2 });
    expect(r.order).toEqual(['1#1', '1#2', '1#3', '2#1']);
    expect(r.ok).toEqual([1, 2]);
    const none = await run(rows(1, 2), { 1: { outcomes: ['setup', 'ok'] } }, { retries: 0 });
    expect(none.failed).toEqual([1]);
    expect(none.outcome.failed[0]?.status.phase).toBe('setup');
  });

  it('fail-fast stops the failed bucket (running points too) after a benchmark failure, not the others', async () => {
    const other = fixedRow({ conc: 3, isl: 1024, osl: 1024 });
    const r = await run(
      [...rows(1, 2, 4), other],
      { 1: { outcomes: ['benchmark'], ms: 30 }, 2: { outcomes: ['ok'], ms: 5000 } },
      { failFast: true, parallel: 2 },
    );
    expect(r.failed).toEqual([1]);
    expect(r.ok).toEqual([3]);
    expect(r.notRun.sort()).toEqual([
      expect.stringMatching(/^2: fail-fast: \S+conc1_\S+ failed in benchmark$/),
      expect.stringMatching(/^4: fail-fast: /),
    ]);
    // A point that never got its engine up says nothing about the others: no fail-fast.
    const setup = await run(rows(1, 2), { 1: { outcomes: ['setup'] } }, { failFast: true });
    expect(setup.ok).toEqual([2]);
  });

  it('runs the canary alone first (retries included) and stops everything when it fails', async () => {
    const canaryRows = [
      fixedRow({ conc: 2, isl: 1024, osl: 1024 }),
      fixedRow({ conc: 1, isl: 1024, osl: 1024 }),
    ];
    const ok = await run(
      canaryRows,
      { 1: { outcomes: ['setup', 'ok'] } },
      { canary: true, retries: 1, parallel: 2 },
    );
    expect(ok.order).toEqual(['1#1', '1#2', '2#1']);
    const failed = await run(canaryRows, { 1: { outcomes: ['benchmark'] } }, { canary: true, parallel: 2 });
    expect(failed.order).toEqual(['1#1']);
    expect(failed.outcome.canaryFailed).toBe(true);
    expect(failed.notRun).toEqual([expect.stringMatching(/^2: the canary \S+conc1_\S+ failed$/)]);
  });

  it('picks what to run from the files: missing points, failed ones, or both', async () => {
    const first = await run(rows(1, 2, 4), { 2: { outcomes: ['benchmark'] } });
    expect(first.failed).toEqual([2]);
    const again = await run(rows(1, 2, 4), {}, { runDir: first.runDir, select: 'missing' });
    expect(again.order).toEqual([]);
    expect(again.outcome.alreadyDone).toBe(2);
    const retry = await run(rows(1, 2, 4), {}, { runDir: first.runDir, select: 'failed' });
    expect(retry.order).toEqual(['2#2']);
    expect(retry.ok).toEqual([2]);
  });

  it('on abort cancels the running points and starts no more', async () => {
    const controller = new AbortController();
    // Once point 1 runs (a timer from the test's start could fire before it does on a busy machine).
    const abortSoon = () => setTimeout(() => controller.abort(), 20);
    const r = await run(
      rows(1, 2, 3),
      { 1: { outcomes: ['ok'], ms: 10_000, onStart: abortSoon } },
      { signal: controller.signal },
    );
    expect(r.order).toEqual(['1#1']);
    expect(r.outcome.interrupted).toBe(true);
    expect(r.notRun.sort()).toEqual(['1: interrupted', '2: interrupted', '3: interrupted']);
  });
});
