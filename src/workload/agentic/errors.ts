import { EXIT_USAGE, InfxError } from '../../schema/errors.ts';

/**
 * A trace corpus that cannot be used: a file that is missing or unreadable, a line that is not a trace
 * (the message names file:line and the field), a corpus with no trace left, a corpus absent from the
 * Hugging Face cache (the message says where it looked).
 */
export class TraceCorpusError extends InfxError {
  constructor(message: string, hint?: string) {
    super(message, hint === undefined ? {} : { hint });
    this.name = 'TraceCorpusError';
  }
}

/** A trace flag that makes no sense (`--max-context 12q`): bad usage, exit 2. */
export class TraceUsageError extends InfxError {
  constructor(message: string) {
    super(message, { exitCode: EXIT_USAGE });
    this.name = 'TraceUsageError';
  }
}
