import { InvalidArgumentError } from 'commander';
import { ConfigError, formatDiagnostic } from '../config/diagnostics.ts';
import { MatrixError } from '../matrix/errors.ts';
import type { CliIO } from './io.ts';

/** Flag parsers and the mapping from errors to exit codes shared by every command. */

export function parseIntArg(value: string): number {
  if (!/^[-+]?\d+$/.test(value.trim())) throw new InvalidArgumentError(`invalid int value: '${value}'`);
  return Number.parseInt(value, 10);
}

export function collectInts(value: string, previous: number[] | undefined): number[] {
  return [...(previous ?? []), parseIntArg(value)];
}

/** Exit codes: 0 ok, 1 bad input (configs, keys, budgets), 2 bad usage (flags), as the reference. */
export function reportError(err: unknown, io: CliIO): number {
  if (err instanceof ConfigError) {
    for (const d of err.diagnostics) io.stderr(`${formatDiagnostic(d)}\n`);
    io.stderr(`error: ${err.message}\n`);
    return 1;
  }
  if (err instanceof MatrixError) {
    io.stderr(`error: ${err.message}\n`);
    return err.usage ? 2 : 1;
  }
  throw err;
}
