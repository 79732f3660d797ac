/** Bad input a user can fix: the message says what and how. `usage`: a flag is wrong (exit 2), else exit 1. */
export class SourceError extends Error {
  override name = 'SourceError';
  constructor(
    message: string,
    readonly usage = false,
  ) {
    super(message);
  }
}
