import { EXIT_INPUT, EXIT_USAGE, InfxError } from '../schema/errors.ts';
/**
 * A problem with the request or the configs that the generator can only see while expanding (an unknown
 * config key, a DRAM budget that needs missing hardware facts). `usage` errors are bad flag combinations
 * (exit 2, like argparse in the reference); the rest exit 1.
 */
export class MatrixError extends InfxError {
  readonly usage: boolean;
  constructor(message: string, opts: { usage?: boolean } = {}) {
    super(message, { exitCode: opts.usage ? EXIT_USAGE : EXIT_INPUT });
    this.name = 'MatrixError';
    this.usage = opts.usage ?? false;
  }
}
