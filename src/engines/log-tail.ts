/**
 * Why an engine went away, in one line a person can act on, from the end of its log: the spawn error
 * process.ts wrote there (`=== infx: could not start ROLE: spawn vllm ENOENT`) when the program could not be
 * started at all, else the last line that says something (no blank lines, progress bars or routine INFO).
 */

/** The most of a log line a cause carries: the rest is in server.log. */
export const CAUSE_MAX_CHARS = 300;

/** process.ts's own lines in the log: `=== infx: starting ...`, `=== infx: could not start ROLE: MESSAGE`. */
const MARKER = /^=== infx: /;
const SPAWN_ERROR = /^=== infx: could not start (\S+): (.+)$/;

// ANSI colour and cursor codes, which engines write even into files.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the escape character is what is matched
const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g;

/**
 * Progress bars (tqdm, pip, docker pull): `NN%|`, `NN% Completed`, tqdm's `[00:03<00:04`, a run of block or
 * hash characters, or `1.2 GiB / 4.1 GiB`.
 */
const PROGRESS =
  /\d{1,3}%\s*(\||Completed)|\[\d+:\d{2}<\d+:\d{2}|[█▏▎▍▌▋▊▉#=]{8,}|^\s*[\d.]+\s*[kMG]?i?B\s*\/\s*[\d.]+\s*[kMG]?i?B\b/;

/** A routine line: an INFO or DEBUG record of a Python or Go logger, which says nothing about a failure. */
const ROUTINE = /^(?:\S+\s+){0,3}?(?:-\s+)?\[?(?:INFO|DEBUG|TRACE)\]?(?:[\s:]|$)|\blevel=(?:info|debug)\b/i;

/** Lines of a Python traceback that only point at code (`File "...", line 3`, `Traceback ...`, `^^^^`). */
const TRACE_FRAME = /^(Traceback \(most recent call last\):|File ".*", line \d+|[\s^~]+$)/;

const clean = (line: string) => line.replace(ANSI, '').replace(/\r$/, '').split('\r').at(-1)?.trim() ?? '';

/** Cuts a line to `max` characters (with an ellipsis), so a cause stays one readable line. */
export function capLine(line: string, max = CAUSE_MAX_CHARS): string {
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** The spawn error process.ts logged (`spawn vllm ENOENT`) and for which process; null when there is none. */
export function spawnError(lines: readonly string[]): { role: string; message: string } | null {
  for (let i = lines.length - 1; i >= 0; i--) {
    const m = SPAWN_ERROR.exec(clean(lines[i] as string));
    if (m) return { role: m[1] as string, message: m[2] as string };
  }
  return null;
}

/**
 * The last line of the log that says something: not blank, not one of infx's own markers, not a progress
 * bar, not a traceback frame; a routine INFO line only when nothing else is left. Null for an empty log.
 */
export function lastMeaningfulLine(lines: readonly string[]): string | null {
  let routine: string | null = null;
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = clean(lines[i] as string);
    if (line === '' || MARKER.test(line) || PROGRESS.test(line) || TRACE_FRAME.test(line)) continue;
    if (ROUTINE.test(line)) {
      routine ??= line;
      continue;
    }
    return capLine(line);
  }
  return routine === null ? null : capLine(routine);
}

/**
 * The cause of an engine that stopped on its own: `what` (e.g. "the engine's server process exited before
 * it was ready (exit code 1)") with the log's last meaningful line after it, or the spawn error alone.
 */
export function engineCause(what: string, lines: readonly string[]): string {
  const spawn = spawnError(lines);
  if (spawn) return `the engine's ${spawn.role} process could not start: ${capLine(spawn.message)}`;
  const last = lastMeaningfulLine(lines);
  return last === null ? what : `${what}: ${last}`;
}
