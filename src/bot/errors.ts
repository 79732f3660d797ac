import { InfxError } from '../schema/errors.ts';

/** A refused precondition or a failed step of the GitHub layer (exit 1): the message says what and how to fix. */
export class BotError extends InfxError {
  constructor(message: string, hint?: string) {
    super(message, hint === undefined ? {} : { hint });
    this.name = 'BotError';
  }
}
