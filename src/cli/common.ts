import { InvalidArgumentError } from 'commander';

/** Flag parsers shared by every command. */

export function parseIntArg(value: string): number {
  if (!/^[-+]?\d+$/.test(value.trim())) throw new InvalidArgumentError(`invalid int value: '${value}'`);
  return Number.parseInt(value, 10);
}

/** A port to listen on (0: any free port). */
export function portArg(value: string): number {
  const n = parseIntArg(value);
  if (n < 0 || n > 65535) throw new InvalidArgumentError(`must be a port from 0 to 65535, got '${value}'`);
  return n;
}

export function positiveInt(value: string): number {
  const n = parseIntArg(value);
  if (n < 1) throw new InvalidArgumentError(`must be a positive integer, got '${value}'`);
  return n;
}

export function nonNegativeInt(value: string): number {
  const n = parseIntArg(value);
  if (n < 0) throw new InvalidArgumentError(`must be 0 or more, got '${value}'`);
  return n;
}

/** A flag parser for a number in [min, max] (above min when exclusiveMin). */
export function numberIn(min: number, max = Number.POSITIVE_INFINITY, exclusiveMin = false) {
  return (value: string): number => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || n < min || (exclusiveMin && n === min) || n > max)
      throw new InvalidArgumentError(
        `must be a number ${exclusiveMin ? 'above' : 'from'} ${min}${Number.isFinite(max) ? ` to ${max}` : ''}, got '${value}'`,
      );
    return n;
  };
}

export function collectInts(value: string, previous: number[] | undefined): number[] {
  return [...(previous ?? []), parseIntArg(value)];
}

/** Every command reports a user's error through the one mapping (errors.ts). */
export { reportError } from './errors.ts';
