import { InfxError } from '../schema/errors.ts';
/** A changelog that cannot be turned into a sweep (mode conflicts, append-only violations, unknown keys). */
export class ChangelogError extends InfxError {
  constructor(message: string) {
    super(message);
    this.name = 'ChangelogError';
  }
}
