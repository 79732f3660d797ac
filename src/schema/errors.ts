/**
 * The base of every error a user can act on: bad input, bad usage, a run that was stopped. The CLI prints
 * its message and exits with its code (src/cli/errors.ts is the one place that maps errors to exit codes);
 * anything else that reaches the CLI is a bug in infx (exit 70, see src/cli/launch.ts). Each layer throws
 * its own subclass; this module imports nothing so that every layer may extend it.
 */

/** Exit codes, as the reference generator and the shell use them. */
export const EXIT_INPUT = 1;
export const EXIT_USAGE = 2;
export const EXIT_BUG = 70;
export const EXIT_INTERRUPTED = 130;

export interface InfxErrorOptions {
  /** EXIT_INPUT (the default) for bad input, EXIT_USAGE for bad flags, EXIT_INTERRUPTED for a stop asked for. */
  exitCode?: number;
  /** What to do about it, printed on a line of its own after the message. */
  hint?: string;
  /** Print every line of a multi-line message as an error line of its own (a list of problems). */
  lineByLine?: boolean;
  cause?: unknown;
}

export class InfxError extends Error {
  readonly exitCode: number;
  readonly hint: string | undefined;
  readonly lineByLine: boolean;
  constructor(message: string, options: InfxErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.exitCode = options.exitCode ?? EXIT_INPUT;
    this.hint = options.hint;
    this.lineByLine = options.lineByLine ?? false;
  }
}
