import * as z from 'zod';
import { editDistance } from './suggest.ts';

/**
 * Helpers that give every closed object and scalar field a message a config author can act on, and a
 * stable rule id (carried in `params.rule` for custom issues; derived from the issue code otherwise).
 */

export function pyTypeName(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  if (typeof value === 'string') return 'str';
  if (typeof value === 'boolean') return 'bool';
  if (value instanceof Date) return 'date';
  if (typeof value === 'object') return 'mapping';
  return typeof value;
}

export function closestName(name: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestScore = Number.POSITIVE_INFINITY;
  for (const c of candidates) {
    const d = editDistance(name, c);
    if (d < bestScore) {
      best = c;
      bestScore = d;
    }
  }
  return best !== undefined && bestScore <= Math.max(2, Math.floor(name.length / 3)) ? best : undefined;
}

/** Keys that are valid elsewhere but rejected in this object, with the reason to print. */
export type KeyHints = Readonly<Record<string, string>>;

/** A closed object: unknown keys are errors that list the allowed keys and suggest the nearest one. */
export function closed<S extends z.core.$ZodLooseShape>(shape: S, hints: KeyHints = {}) {
  const allowed = Object.keys(shape);
  const explain = (key: string) => {
    const hint = hints[key];
    if (hint) return `'${key}' is not allowed here: ${hint}`;
    const near = closestName(key, allowed);
    return `unknown key '${key}'.${near ? ` Did you mean '${near}'?` : ''}`;
  };
  return z.strictObject(shape, {
    error: (iss) => {
      if (iss.code !== 'unrecognized_keys') return undefined;
      return `${iss.keys.map(explain).join(' ')} Allowed keys: ${allowed.join(', ')}.`;
    },
  });
}

function describeInput(input: unknown): string {
  if (typeof input === 'string') return `str '${input}'`;
  if (input === null || input === undefined) return 'null';
  if (typeof input === 'object') return pyTypeName(input);
  return `${pyTypeName(input)} ${String(input)}`;
}

const missing = (input: unknown) => input === undefined;

export const str = () =>
  z.string({
    error: (iss) =>
      missing(iss.input) ? 'required key is missing' : `expected a string, got ${describeInput(iss.input)}`,
  });

export const nonEmptyStr = () => str().min(1, { error: 'must not be empty' });

export const int = () =>
  z.int({
    error: (iss) =>
      missing(iss.input) ? 'required key is missing' : `expected an integer, got ${describeInput(iss.input)}`,
  });

export const posInt = () => int().gt(0, { error: 'must be greater than 0' });

export const bool = () =>
  z.boolean({
    error: (iss) =>
      missing(iss.input)
        ? 'required key is missing'
        : `expected true or false, got ${describeInput(iss.input)}`,
  });

export const list = <T extends z.core.$ZodType>(item: T) =>
  z.array(item, {
    error: (iss) =>
      missing(iss.input) ? 'required key is missing' : `expected a list, got ${describeInput(iss.input)}`,
  });

export const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, {
    error: (iss) =>
      missing(iss.input)
        ? 'required key is missing'
        : `must be one of ${values.join(', ')} (got ${describeInput(iss.input)})`,
  });

/** A custom issue with a stable rule id. */
export interface RuleIssue {
  rule: string;
  message: string;
  path?: (string | number)[];
}

export function report(ctx: z.core.$RefinementCtx, issue: RuleIssue): void {
  ctx.addIssue({
    code: 'custom',
    message: issue.message,
    path: issue.path ?? [],
    params: { rule: issue.rule },
  });
}

/** Run refinements even when a field of the object has the wrong type, so every problem is reported at once. */
export const always = { when: () => true } as const;
