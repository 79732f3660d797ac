import yaml from 'js-yaml';

/**
 * A js-yaml schema that resolves plain scalars the way PyYAML's SafeLoader (YAML 1.1) does, so that
 * files written for the reference read the same here: `2_063_837` is an int, `yes`/`off` are booleans,
 * `017` is octal, `1e3` (no dot) stays a string, and `<<` merges mappings.
 */

const BOOL = /^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/;
const TRUE = new Set(['yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON']);

const INT =
  /^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$/;
const FLOAT =
  /^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;

function splitSign(text: string): [number, string] {
  const s = text.includes('_') ? text.replace(/_/g, '') : text;
  if (s.startsWith('-')) return [-1, s.slice(1)];
  if (s.startsWith('+')) return [1, s.slice(1)];
  return [1, s];
}

function sexagesimal(body: string): number {
  return body.split(':').reduce((acc, part) => acc * 60 + Number(part), 0);
}

const PLAIN_DECIMAL = /^-?(?:0|[1-9][0-9]*)$/;

function constructInt(text: string): number {
  if (PLAIN_DECIMAL.test(text)) return Number(text);
  const [sign, body] = splitSign(text);
  if (body === '0') return 0;
  if (body.startsWith('0b')) return sign * Number.parseInt(body.slice(2), 2);
  if (body.startsWith('0x')) return sign * Number.parseInt(body.slice(2), 16);
  if (body.startsWith('0')) return sign * Number.parseInt(body, 8);
  if (body.includes(':')) return sign * sexagesimal(body);
  return sign * Number(body);
}

function constructFloat(text: string): number {
  const [sign, body] = splitSign(text.toLowerCase());
  if (body === '.inf') return sign * Number.POSITIVE_INFINITY;
  if (body === '.nan') return Number.NaN;
  if (body.includes(':')) {
    const [whole, frac] = body.split('.');
    return sign * (sexagesimal(whole ?? '0') + Number(`0.${frac ?? ''}`));
  }
  return sign * Number(body);
}

const bool11 = new yaml.Type('tag:yaml.org,2002:bool', {
  kind: 'scalar',
  resolve: (data: string | null) => data !== null && BOOL.test(data),
  construct: (data: string) => TRUE.has(data),
  predicate: (v: unknown) => typeof v === 'boolean',
});

const int11 = new yaml.Type('tag:yaml.org,2002:int', {
  kind: 'scalar',
  resolve: (data: string | null) => data !== null && INT.test(data),
  construct: constructInt,
  predicate: (v: unknown) => typeof v === 'number' && Number.isInteger(v),
});

const float11 = new yaml.Type('tag:yaml.org,2002:float', {
  kind: 'scalar',
  resolve: (data: string | null) => data !== null && FLOAT.test(data),
  construct: constructFloat,
  predicate: (v: unknown) => typeof v === 'number' && !Number.isInteger(v),
});

/**
 * Timestamps are left out on purpose: no config field takes a date, so `2026-01-01` reads as a string, and
 * skipping js-yaml's timestamp regex on every plain scalar makes loading measurably faster.
 */
// js-yaml exports its built-in types at run time, but its type declarations do not list them.
const { merge } = (yaml as unknown as { types: { merge: yaml.Type } }).types;

export const YAML11_SCHEMA = yaml.CORE_SCHEMA.extend({ implicit: [bool11, int11, float11, merge] });
