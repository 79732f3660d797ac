/** Type guards for untyped input (parsed YAML/JSON), free of zod so hot paths need not load it. */

export const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
