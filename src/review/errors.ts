import { InfxError } from '../schema/errors.ts';

/** Input the review or the sign-off check cannot read (a malformed CODEOWNERS, a missing file). */
export class ReviewError extends InfxError {
  constructor(message: string, hint?: string) {
    super(message, hint === undefined ? {} : { hint });
    this.name = 'ReviewError';
  }
}
