import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TRACE_A } from '../../../test/support/replay-fixtures.ts';
import type { RequestRecord } from '../../schema/request-record.ts';
import { DONE, type DriverContext, type DriverRequest, type PhaseName, WAIT } from '../driver.ts';
import { loadTokenizer } from '../tokenizers.ts';
import { openCompiledCorpus } from './compile-open.ts';
import { createReplaySession } from './replay-session.ts';

const tokenizer = await loadTokenizer();
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const ok = { ok: true, error: null, cancelled: false } as unknown as RequestRecord;
const ctx = (phase: PhaseName): DriverContext => ({
  phase,
  thread: 0,
  threads: 1,
  dispatch: new Int32Array(1),
});

describe('createReplaySession: credit drops', () => {
  it('counts profiling calls released over 100 ms after they were due, never the warmup’s', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'infx-session-'));
    dirs.push(dir);
    const file = join(dir, 'traces.jsonl');
    writeFileSync(file, `${JSON.stringify(TRACE_A)}\n`);
    const corpus = await openCompiledCorpus([file], { tokenizer, seed: 1, cacheDir: join(dir, 'cache') });
    let now = 0;
    const session = createReplaySession({
      corpus,
      served: ['m'],
      tokenizer,
      runId: 'run',
      replay: { lanes: 1, seed: 1, durationS: 1000, startRatio: [0.5, 0.5], warmupRequestsPerLane: 2 },
      timeScale: 1,
      now: () => now,
      ignoreEos: true,
      failedRequestThreshold: 0.1,
      liveGateMinFinished: 10,
    });
    await session.prepared;
    // The warmup: every call asked for 500 ms after it became due (its predecessor's end).
    const warm = session.driver('warmup', ctx('warmup'));
    let sent = 0;
    for (let step = warm.next(); step !== DONE; step = warm.next()) {
      if (step === WAIT) throw new Error('the warmup of one lane never waits here');
      sent++;
      warm.complete(step as DriverRequest, ok, '');
      now += 500;
    }
    expect(sent).toBe(3);
    expect(session.creditDrops).toBe(0);
    // Profiling: bg#0 is due 0.5 s after the boundary; asked for at 0.6 s (on time), then root#5 (cut to
    // 10 s by the idle cap once bg#0 finished) asked for 150 ms late.
    const prof = session.driver('benchmark', ctx('benchmark'));
    const boundary = now;
    expect(prof.next()).toBe(WAIT);
    expect(prof.wakeAtMs?.()).toBe(boundary + 500);
    now = boundary + 560;
    const bg = prof.next() as DriverRequest;
    expect(bg.dueAtMs).toBe(boundary + 500);
    now = boundary + 1500;
    prof.complete(bg, ok, '');
    expect(prof.next()).toBe(WAIT);
    const due = prof.wakeAtMs?.() as number;
    expect(due).toBe(boundary + 1500 + 10_000);
    now = due + 150;
    const root = prof.next() as DriverRequest;
    expect(root.dueAtMs).toBe(due);
    expect(session.creditDrops).toBe(1);
  });
});
