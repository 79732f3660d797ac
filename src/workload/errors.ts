import { InfxError } from '../schema/errors.ts';
/**
 * A workload that cannot be built as asked: a tokenizer that cannot be loaded, or fixed-seq-len options
 * that make no sense. The message says what, where (the file or option) and how to fix it.
 */
export class WorkloadError extends InfxError {
  constructor(message: string) {
    super(message);
    this.name = 'WorkloadError';
  }
}
