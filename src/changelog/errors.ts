import { InfxError } from '../schema/errors.ts';
/** A changelog that cannot be turned into a sweep (mode conflicts, append-only violations, unknown keys). */
export class ChangelogError extends InfxError {
  /** The 1-based line of the changelog at fault, where one is. */
  readonly line: number | null;
  constructor(message: string, line: number | null = null, hint?: string) {
    super(message, hint === undefined ? {} : { hint });
    this.name = 'ChangelogError';
    this.line = line;
  }
}
