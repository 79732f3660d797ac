import type { CheckRun } from '../schema/github.ts';
import { BotError } from './errors.ts';
import type { GitHub } from './github.ts';

/**
 * Waiting on a commit's check runs (changelog-pr-spec §4.4 steps 6–7): one named check (the newest run of
 * it by start time decides), then every check of the commit with fail-fast, as `gh pr checks --watch
 * --fail-fast` does. Both poll at an interval up to a timeout.
 */

export interface WaitOptions {
  timeoutS: number;
  pollIntervalS: number;
  log: (line: string) => void;
  sleep?: (ms: number) => Promise<void>;
}

/** A completed check with one of these conclusions passes; any other conclusion fails. */
const PASSING = new Set(['success', 'neutral', 'skipped']);

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

const started = (c: CheckRun) => (c.started_at === null ? 0 : Date.parse(c.started_at) || 0);

/** The newest run of each check name (a re-run replaces the run it re-ran). */
export function newestByName(runs: readonly CheckRun[]): CheckRun[] {
  const out = new Map<string, CheckRun>();
  for (const r of runs) {
    const seen = out.get(r.name);
    if (seen === undefined || started(r) > started(seen) || (started(r) === started(seen) && r.id > seen.id))
      out.set(r.name, r);
  }
  return [...out.values()];
}

const describe = (c: CheckRun) =>
  `${c.name} (${c.status === 'completed' ? `conclusion ${c.conclusion ?? 'none'}` : c.status})${c.html_url ? ` ${c.html_url}` : ''}`;

const isWaiting = (r: unknown): r is { waiting: string } =>
  typeof r === 'object' && r !== null && !Array.isArray(r) && 'waiting' in r;

async function poll<T>(
  what: string,
  opts: WaitOptions,
  step: () => Promise<T | { waiting: string }>,
): Promise<T> {
  const sleep = opts.sleep ?? defaultSleep;
  const deadline = Date.now() + opts.timeoutS * 1000;
  let last = '';
  for (;;) {
    const r = await step();
    if (!isWaiting(r)) return r;
    if (Date.now() >= deadline)
      throw new BotError(
        `timed out after ${opts.timeoutS} s waiting for ${what} (${r.waiting})`,
        'raise --check-timeout, or look at the checks on GitHub and run again',
      );
    if (r.waiting !== last) opts.log(`waiting for ${what}: ${r.waiting}`);
    last = r.waiting;
    await sleep(opts.pollIntervalS * 1000);
  }
}

/** Waits for the newest `name` check run on `sha` to complete; anything but success is fatal. */
export function waitForCheck(gh: GitHub, sha: string, name: string, opts: WaitOptions): Promise<CheckRun> {
  return poll(`the ${name} check on ${sha}`, opts, async () => {
    const runs = (await gh.checkRuns(sha, name)).filter((c) => c.name === name);
    const newest = newestByName(runs)[0];
    if (newest === undefined) return { waiting: 'not started yet' };
    if (newest.status !== 'completed') return { waiting: newest.status };
    if (newest.conclusion !== 'success')
      throw new BotError(
        `check ${describe(newest)} on ${sha} did not succeed`,
        'fix what it reports (infx changelog validate runs the same gate locally), push, then run again',
      );
    return newest;
  });
}

/** Waits for every check on `sha` to complete, failing at the first that fails. */
export function watchChecks(gh: GitHub, sha: string, opts: WaitOptions): Promise<CheckRun[]> {
  return poll(`the checks on ${sha}`, opts, async () => {
    const latest = newestByName(await gh.checkRuns(sha));
    const failed = latest.filter((c) => c.status === 'completed' && !PASSING.has(c.conclusion ?? ''));
    if (failed.length > 0)
      throw new BotError(
        `${failed.length} check(s) failed on ${sha}: ${failed.map(describe).join('; ')}`,
        'fix the failing check, push, then run merge-with-reuse again',
      );
    const pending = latest.filter((c) => c.status !== 'completed');
    if (pending.length === 0) return latest;
    return {
      waiting: `${pending.length} of ${latest.length} pending: ${pending.map((c) => c.name).join(', ')}`,
    };
  });
}
