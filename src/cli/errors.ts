import { ConfigError, formatDiagnostic } from '../config/diagnostics.ts';
import { EXIT_INTERRUPTED, EXIT_USAGE, InfxError } from '../schema/errors.ts';
import type { CliIO } from './io.ts';

/**
 * The one mapping from an error to what the user sees and the exit code: 0 ok, 1 bad input (configs, keys,
 * budgets, a run directory, a database), 2 bad usage (flags), 130 interrupted, as the reference does. Any
 * other error is a bug: it is thrown on, to the process entry (launch.ts), which prints one line, writes
 * the trace to a report file and exits 70.
 */

/** A user catalog that cannot be used: the command does not run (exit 1, as for any bad input). */
export class CatalogLoadError extends InfxError {}

/** Bad flag combinations of the sweep commands: exit 2. */
export class UsageError extends InfxError {
  constructor(message: string) {
    super(message, { exitCode: EXIT_USAGE });
  }
}

/** Writes what the user sees for `err` on stderr and returns the exit code; rethrows a bug. */
export function reportError(err: unknown, io: CliIO): number {
  if (!(err instanceof InfxError)) throw err;
  if (err instanceof ConfigError) for (const d of err.diagnostics) io.stderr(`${formatDiagnostic(d)}\n`);
  io.stderr(errorText(err));
  return err.exitCode;
}

/** The stderr text of a user-facing error. */
export function errorText(err: InfxError): string {
  // A stop the user asked for is said as it is, not as an error.
  if (err.exitCode === EXIT_INTERRUPTED) return `${err.message}\n`;
  // The catalog is the program's option, refused before any command ran.
  if (err instanceof CatalogLoadError) return `infx: ${err.message}\n`;
  const lines = err.lineByLine ? err.message.split('\n') : [err.message];
  return (
    lines.map((line) => `error: ${line}\n`).join('') + (err.hint !== undefined ? `hint: ${err.hint}\n` : '')
  );
}
