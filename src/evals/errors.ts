import { InfxError, type InfxErrorOptions } from '../schema/errors.ts';

/** Bad eval input (a dataset line, a responses file, a thresholds file, a flag value). */
export class EvalInputError extends InfxError {
  constructor(message: string, options: InfxErrorOptions = {}) {
    super(message, options);
    this.name = 'EvalInputError';
  }
}
