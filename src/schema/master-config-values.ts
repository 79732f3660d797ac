import * as z from 'zod';
import { SPEC_DECODING } from './enums.ts';
import { isInt, isRecord } from './guards.ts';
import { closed, list, oneOf, pyTypeName, report, str } from './zod-helpers.ts';

/**
 * The values a master config is built from (matrix-spec §2): bounded integers and strings, names that
 * become parts of file names, pinned component versions, concurrency lists and ranges, and the checks
 * that several search-space shapes share.
 */

/**
 * Bounds on config values, far above what any real sweep needs, so that a typo or a hostile file cannot
 * make later stages build 10^13 prompts or write outside the run directory (README, `infx validate`).
 */
export const CONFIG_BOUNDS = {
  /** conc-start, conc-end and every conc-list entry: concurrent requests of one point. */
  maxConcurrency: 100_000,
  /** Entries of one conc-list. */
  maxConcList: 1_024,
  /** isl and osl, tokens (10^7: above any model's context today). */
  maxSeqLen: 10_000_000,
  /** tp, pp, ep, dcp-size, pcp-size and num-worker. */
  maxParallelism: 16_384,
  /** model-prefix, precision, framework and runner: they become parts of point ids and file names. */
  maxNameChars: 64,
  maxImageChars: 512,
  maxModelChars: 256,
  /** Every other string (additional-settings entries, component names and versions, ...). */
  maxTextChars: 4_096,
} as const;

/**
 * Values that become parts of file names (point ids, result names): letters, digits and `_ . : -`, starting
 * with a letter or digit, so no `/`, `..`, blank or control character can reach a path.
 */
export const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.:-]*$/;

const fmt = (n: number) => n.toLocaleString('en-US');
const shown = (input: unknown) => (typeof input === 'number' ? String(input) : pyTypeName(input));

function describeInput(input: unknown): string {
  if (typeof input === 'string') return `str '${input.length > 80 ? `${input.slice(0, 80)}…` : input}'`;
  if (input === null || input === undefined) return 'null';
  if (typeof input === 'object') return pyTypeName(input);
  return `${pyTypeName(input)} ${String(input)}`;
}

interface IntBounds {
  min?: number;
  max: number;
  /** What the number counts, for the message ("concurrent requests", "tokens", "GPUs"). */
  unit: string;
}

/**
 * An integer field with bounds. Above the maximum (or beyond the safe-integer range, e.g. a 23-digit YAML
 * int) the message says "too large" with rule value.too-large; below the minimum it is value.range.
 */
export function boundedInt({ min, max, unit }: IntBounds) {
  const large = (input: unknown) => `is too large (${shown(input)}): at most ${fmt(max)} ${unit}`;
  const small = (input: unknown) =>
    min === undefined
      ? `is too small (${shown(input)})`
      : `must be ${min === 1 ? 'greater than 0' : `at least ${fmt(min)}`} (got ${shown(input)})`;
  let field = z.int({
    error: (iss) => {
      if (iss.input === undefined) return 'required key is missing';
      if (iss.code === 'too_big') return large(iss.input);
      if (iss.code === 'too_small') return small(iss.input);
      return `expected an integer, got ${describeInput(iss.input)}`;
    },
  });
  if (min !== undefined) field = field.gte(min, { error: (iss) => small(iss.input) });
  return field.refine((v) => v <= max, {
    error: (iss) => large(iss.input),
    params: { rule: 'value.too-large' },
  });
}

/** U+0000–U+001F and U+007F. */
const isControl = (c: number) => c < 0x20 || c === 0x7f;
function hasControl(v: string): boolean {
  for (let i = 0; i < v.length; i++) if (isControl(v.charCodeAt(i))) return true;
  return false;
}
/** The value as a message may quote it: at most 80 characters, control characters as \xNN. */
function quoted(v: string): string {
  let out = '';
  for (const c of v.slice(0, 80)) {
    const code = c.charCodeAt(0);
    out += isControl(code) ? `\\x${code.toString(16).padStart(2, '0')}` : c;
  }
  return v.length > 80 ? `${out}…` : out;
}

/** A string of bounded length without control characters (values reach environment variables and logs). */
export function text(max: number = CONFIG_BOUNDS.maxTextChars, opts: { nonEmpty?: boolean } = {}) {
  let field = str().max(max, {
    error: (iss) =>
      `is too long (${typeof iss.input === 'string' ? fmt(iss.input.length) : '?'} characters): at most ${fmt(max)}`,
  });
  if (opts.nonEmpty) field = field.min(1, { error: 'must not be empty' });
  return field.refine((v) => !hasControl(v), {
    error: 'must not contain control characters (newlines, tabs, NUL, ...)',
    params: { rule: 'value.control-character' },
  });
}

/** A value that becomes part of point ids and result file names (naming.unsafe otherwise). */
export function name() {
  return str()
    .max(CONFIG_BOUNDS.maxNameChars, {
      error: (iss) =>
        `is too long (${typeof iss.input === 'string' ? fmt(iss.input.length) : '?'} characters): at most ${CONFIG_BOUNDS.maxNameChars}; it becomes part of every point id and result file name`,
    })
    .refine((v) => v.length > CONFIG_BOUNDS.maxNameChars || SAFE_NAME.test(v), {
      error: (iss) =>
        `'${typeof iss.input === 'string' ? quoted(iss.input) : ''}' cannot be part of a file name: it becomes part of every point id and result file name, so use only letters, digits and _ . : - (starting with a letter or digit)`,
      params: { rule: 'naming.unsafe' },
    });
}

export const conc = () =>
  boundedInt({ max: CONFIG_BOUNDS.maxConcurrency, unit: 'concurrent requests per point' });
export const seqLen = () => boundedInt({ min: 1, max: CONFIG_BOUNDS.maxSeqLen, unit: 'tokens' });
export const gpus = () => boundedInt({ min: 1, max: CONFIG_BOUNDS.maxParallelism, unit: 'GPUs' });
export const nonEmptyText = (max?: number) => text(max, { nonEmpty: true });

/** Refinements run even when the value has the wrong type (`always`); they only look at mappings. */
export const guarded =
  (check: (v: Raw, ctx: Ctx) => void) =>
  (v: unknown, ctx: Ctx): void => {
    if (isRecord(v)) check(v, ctx);
  };

export type Ctx = z.core.$RefinementCtx;
export type Raw = Record<string, unknown>;

const notImageRef = (v: string) => !v.startsWith('image:');
const IMAGE_REF_MESSAGE =
  'component version must be a release, package version, or source commit, not an image reference';

const version = () =>
  nonEmptyText(256).refine(notImageRef, {
    message: IMAGE_REF_MESSAGE,
    params: { rule: 'component.image-version' },
  });

export const ComponentMetadataSchema = closed({ name: nonEmptyText(256), version: version() }).describe(
  'A software component pinned to a release, package version or source commit (e.g. a router).',
);
export const KvOffloadBackendSchema = closed({
  name: nonEmptyText(256),
  version: version().optional(),
}).describe('The KV offload backend (hicache, vllm-simple, mooncake, lmcache, native, ...).');
export const specDecoding = () => oneOf(SPEC_DECODING).default('none');
export const kvP2pTransfer = () =>
  nonEmptyText(256).describe('KV transfer library between prefill and decode (nixl, mooncake, mori, ...)');

export const concFields = {
  'conc-start': conc().nullish(),
  'conc-end': conc().nullish(),
  'conc-list': list(conc())
    .max(CONFIG_BOUNDS.maxConcList, {
      error: (iss) =>
        `has ${Array.isArray(iss.input) ? fmt(iss.input.length) : 'too many'} entries: at most ${fmt(CONFIG_BOUNDS.maxConcList)} concurrencies per list`,
    })
    .nullish(),
};

export function checkConcurrency(v: Raw, ctx: Ctx): void {
  const start = v['conc-start'];
  const end = v['conc-end'];
  const concList = v['conc-list'];
  const hasRange = start != null && end != null;
  const hasList = concList != null && !(Array.isArray(concList) && concList.length === 0);
  if (hasRange && hasList) {
    report(ctx, {
      rule: 'conc.both',
      path: ['conc-list'],
      message:
        "Cannot specify both 'conc-list' list and 'conc-start'/'conc-end'. Use either a list or a range, not both.",
    });
  } else if (!hasRange && !hasList) {
    report(ctx, {
      rule: 'conc.neither',
      message: "Must specify either 'conc-list' list or both 'conc-start' and 'conc-end'.",
    });
  } else if (hasRange) {
    if (!isInt(start) || !isInt(end)) return;
    if (start <= 0 || end <= 0) {
      report(ctx, {
        rule: 'conc.range-positive',
        path: [start <= 0 ? 'conc-start' : 'conc-end'],
        message: "Input 'conc-start' and 'conc-end' must be greater than 0.",
      });
    } else if (start > end) {
      report(ctx, {
        rule: 'conc.range-order',
        path: ['conc-start'],
        message: `'conc-start' (${start}) must be <= 'conc-end' (${end}).`,
      });
    }
  } else if (Array.isArray(concList)) {
    const bad = concList.findIndex((c) => isInt(c) && c <= 0);
    if (bad >= 0) {
      report(ctx, {
        rule: 'conc.list-positive',
        path: ['conc-list', bad],
        message: "Input 'conc-list' entries must be greater than 0.",
      });
    }
  }
}

export function checkDcpDividesTp(v: Raw, ctx: Ctx): void {
  const tp = v.tp;
  const dcp = v['dcp-size'];
  if (isInt(tp) && isInt(dcp) && dcp > 0 && tp % dcp !== 0) {
    report(ctx, {
      rule: 'topology.dcp-divides-tp',
      path: ['dcp-size'],
      message: `'tp' (${tp}) must be divisible by 'dcp-size' (${dcp})`,
    });
  }
}

const hasHardware = (worker: unknown) =>
  isRecord(worker) && typeof worker.hardware === 'string' && worker.hardware.length > 0;

export function checkHardwarePair(v: Raw, ctx: Ctx): void {
  if (!isRecord(v.prefill) || !isRecord(v.decode)) return;
  const p = hasHardware(v.prefill);
  const d = hasHardware(v.decode);
  if (p !== d) {
    report(ctx, {
      rule: 'hardware.pair',
      path: [p ? 'decode' : 'prefill'],
      message: "'hardware' must be specified for both 'prefill' and 'decode', or neither",
    });
  }
}
