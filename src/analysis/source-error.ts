import { EXIT_INPUT, EXIT_USAGE, InfxError } from '../schema/errors.ts';
/** Bad input a user can fix: the message says what and how. `usage`: a flag is wrong (exit 2), else exit 1. */
export class SourceError extends InfxError {
  override name = 'SourceError';
  constructor(
    message: string,
    readonly usage = false,
  ) {
    super(message, { exitCode: usage ? EXIT_USAGE : EXIT_INPUT });
  }
}
