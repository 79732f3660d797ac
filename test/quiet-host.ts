import { readFileSync } from 'node:fs';

/**
 * Global setup of the timing suites (vitest.timing.config.ts): they measure milliseconds and run "alone on
 * the machine", so they start once the host's CPUs have been quiet for a few seconds in a row, not while
 * the suite before them is still winding down (its servers and database checkpoints). A host that never
 * quiets down within the limit still runs them, with a warning: the tests then say what they measured.
 */

const QUIET_BUSY_SHARE = 0.25;
const QUIET_SECONDS = 3;
const LIMIT_SECONDS = 60;

/** All CPUs' busy and total jiffies from /proc/stat, or null off Linux. */
function cpuTimes(): { busy: number; total: number } | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
    const v = line.trim().split(/\s+/).slice(1).map(Number);
    if (v.length < 5 || v.some((x) => !Number.isFinite(x))) return null;
    const total = v.reduce((a, b) => a + b, 0);
    // user nice system idle iowait …: idle and iowait are the CPUs' free time.
    return { busy: total - v[3]! - v[4]!, total };
  } catch {
    return null;
  }
}

export default async function waitForQuietHost(): Promise<void> {
  let last = cpuTimes();
  if (last === null) return;
  let quiet = 0;
  for (let s = 0; s < LIMIT_SECONDS; s++) {
    await new Promise((r) => setTimeout(r, 1000));
    const now = cpuTimes();
    if (now === null) return;
    const share = (now.busy - last.busy) / Math.max(1, now.total - last.total);
    last = now;
    quiet = share < QUIET_BUSY_SHARE ? quiet + 1 : 0;
    if (quiet >= QUIET_SECONDS) return;
  }
  console.warn(`timing suites: the host stayed busy for ${LIMIT_SECONDS} s; running them anyway`);
}
