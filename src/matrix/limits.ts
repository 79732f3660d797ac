import { at } from '../config/diagnostics.ts';
import { readInputText } from '../config/read.ts';
import type { Diagnostic } from '../schema/diagnostic.ts';
import { MatrixError } from './errors.ts';

/**
 * The most rows (or `infx check` points) one invocation generates: 55 × the 1,820 rows of both reference
 * master configs. Memory and output stay bounded, and a sweep past it is almost certainly a mistake.
 */
export const MAX_MATRIX_ROWS = 100_000;

/** Too many rows (or points): the config key and file where the bound was crossed. */
export class TooManyRowsError extends MatrixError {
  readonly key: string;
  readonly file: string;
  constructor(key: string, file: string, what: 'matrix rows' | 'points' = 'matrix rows') {
    super(
      `the configs expand to more than ${MAX_MATRIX_ROWS.toLocaleString('en-US')} ${what} (the bound is crossed at this config): select fewer configs (--config-keys, --model-prefix, ...) or trim the search space`,
    );
    this.name = 'TooManyRowsError';
    this.key = key;
    this.file = file;
  }

  /** The error as a diagnostic at the config key's line (the file is read again; it validated a moment ago). */
  async diagnostic(): Promise<Diagnostic> {
    // The YAML parser is only loaded when a position is needed.
    const { SourceMap } = await import('../config/yaml-source.ts');
    const read = readInputText(this.file);
    const source = new SourceMap('text' in read ? read.text : '');
    return at({ file: this.file, source }, [this.key], { key: true }, 'matrix.too-many-rows', this.message);
  }
}
