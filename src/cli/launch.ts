import { mkdirSync, readdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { INFX_VERSION } from '../schema/version.ts';

/**
 * What the process entries (bin.ts, sim-serve-bin.ts) do around a command line: exit codes, a broken pipe,
 * and errors nobody expected. Those are bugs: the user gets one line saying so and where the full report
 * went (a file under the cache folder, else the temp folder), never a stack trace, and exit code 70
 * (EX_SOFTWARE).
 */

export const BUG_EXIT_CODE = 70;

/** Reports kept in a folder: the newest; older ones are removed as a new one is written. */
export const MAX_BUG_REPORTS = 20;

/** Folders a bug report may go in, in order: $INFX_BUG_DIR, $XDG_CACHE_HOME/infx/bugs, ~/.cache/infx/bugs, the temp folder. */
function reportDirs(env: NodeJS.ProcessEnv): string[] {
  const dirs: string[] = [];
  if (env.INFX_BUG_DIR) dirs.push(env.INFX_BUG_DIR);
  if (env.XDG_CACHE_HOME) dirs.push(join(env.XDG_CACHE_HOME, 'infx', 'bugs'));
  try {
    dirs.push(join(homedir(), '.cache', 'infx', 'bugs'));
  } catch {
    // No home directory.
  }
  dirs.push(join(tmpdir(), 'infx-bugs'));
  return dirs;
}

const describe = (err: unknown) =>
  err instanceof Error ? `${err.name}: ${err.message}` : `thrown value ${String(err)}`;

/** Writes the full report of an unexpected error; returns its path, or null when no folder took it. */
export function writeBugReport(err: unknown, argv: readonly string[], env = process.env): string | null {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const text = [
    `infx ${INFX_VERSION} internal error (a bug in infx)`,
    `time: ${new Date().toISOString()}`,
    `command: infx ${argv.join(' ')}`,
    `cwd: ${process.cwd()}`,
    `node: ${process.version} on ${process.platform}-${process.arch}`,
    '',
    err instanceof Error ? (err.stack ?? describe(err)) : describe(err),
    ...(err instanceof Error && err.cause !== undefined ? ['', `cause: ${String(err.cause)}`] : []),
    '',
  ].join('\n');
  for (const dir of reportDirs(env)) {
    try {
      mkdirSync(dir, { recursive: true });
      const path = join(dir, `infx-bug-${stamp}-${process.pid}.txt`);
      writeFileSync(path, text, { flag: 'wx' });
      pruneReports(dir);
      return path;
    } catch {
      // Try the next folder.
    }
  }
  return null;
}

/** Keeps the folder bounded; names sort by time (an ISO stamp), so the oldest go first. */
function pruneReports(dir: string): void {
  try {
    const reports = readdirSync(dir)
      .filter((f) => f.startsWith('infx-bug-') && f.endsWith('.txt'))
      .sort();
    for (const f of reports.slice(0, Math.max(0, reports.length - MAX_BUG_REPORTS))) unlinkSync(join(dir, f));
  } catch {
    // The report is written; a folder that cannot be cleaned only grows.
  }
}

/** The one line a user sees for a bug. */
export function bugLine(err: unknown, report: string | null): string {
  const first = describe(err).split('\n')[0]?.slice(0, 300) ?? '';
  return (
    `infx: internal error (this is a bug in infx): ${first}; ` +
    (report ? `the full report is in ${report}` : 'no report could be written') +
    '; please report it with the command line that caused it\n'
  );
}

let reported = false;

/** Reports an unexpected error once (one line, the report file) and sets exit code 70. */
export function reportBug(err: unknown, argv: readonly string[]): void {
  if (reported) return;
  reported = true;
  const path = writeBugReport(err, argv);
  try {
    process.stderr.write(bugLine(err, path));
  } catch {
    // stderr is gone: the report file and the exit code still say it.
  }
  process.exitCode = BUG_EXIT_CODE;
}

export function launch(run: (argv: readonly string[]) => Promise<number>): void {
  const argv = process.argv.slice(2);
  // `infx matrix … | head` closes the pipe early; that is not an error worth a stack trace.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    reportBug(err, argv);
    process.exit(BUG_EXIT_CODE);
  });
  // An error thrown where no command catches it (a callback, a timer) is a bug as well.
  const fatal = (err: unknown) => {
    reportBug(err, argv);
    process.exit(BUG_EXIT_CODE);
  };
  process.on('uncaughtException', fatal);
  process.on('unhandledRejection', fatal);

  run(argv).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => reportBug(err, argv),
  );
}
