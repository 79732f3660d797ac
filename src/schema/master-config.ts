import * as z from 'zod';
import { KV_OFFLOADING, SCENARIO_TYPES, SPEC_DECODING } from './enums.ts';
import { isInt, isRecord } from './guards.ts';
import { always, bool, closed, list, oneOf, pyTypeName, report, str } from './zod-helpers.ts';

/**
 * Master-config entries exactly as the reference generator accepts them (matrix-spec §2), with two
 * deliberate tightenings: integers and booleans must be real YAML ints/bools (the reference coerces "8"
 * and then copies the string into rows), and an agentic entry's shape must agree with `multinode`
 * (the reference accepts the mismatch and then crashes in the generator).
 */

export { KV_OFFLOADING, SCENARIO_TYPES, type ScenarioType, SPEC_DECODING } from './enums.ts';

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
function text(max: number = CONFIG_BOUNDS.maxTextChars, opts: { nonEmpty?: boolean } = {}) {
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
function name() {
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

const conc = () => boundedInt({ max: CONFIG_BOUNDS.maxConcurrency, unit: 'concurrent requests per point' });
const seqLen = () => boundedInt({ min: 1, max: CONFIG_BOUNDS.maxSeqLen, unit: 'tokens' });
const gpus = () => boundedInt({ min: 1, max: CONFIG_BOUNDS.maxParallelism, unit: 'GPUs' });
const nonEmptyText = (max?: number) => text(max, { nonEmpty: true });

/** Refinements run even when the value has the wrong type (`always`); they only look at mappings. */
const guarded =
  (check: (v: Raw, ctx: Ctx) => void) =>
  (v: unknown, ctx: Ctx): void => {
    if (isRecord(v)) check(v, ctx);
  };

type Ctx = z.core.$RefinementCtx;
type Raw = Record<string, unknown>;

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
const specDecoding = () => oneOf(SPEC_DECODING).default('none');
const kvP2pTransfer = () =>
  nonEmptyText(256).describe('KV transfer library between prefill and decode (nixl, mooncake, mori, ...)');

const concFields = {
  'conc-start': conc().nullish(),
  'conc-end': conc().nullish(),
  'conc-list': list(conc())
    .max(CONFIG_BOUNDS.maxConcList, {
      error: (iss) =>
        `has ${Array.isArray(iss.input) ? fmt(iss.input.length) : 'too many'} entries: at most ${fmt(CONFIG_BOUNDS.maxConcList)} concurrencies per list`,
    })
    .nullish(),
};

function checkConcurrency(v: Raw, ctx: Ctx): void {
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

function checkDcpDividesTp(v: Raw, ctx: Ctx): void {
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

function checkHardwarePair(v: Raw, ctx: Ctx): void {
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

const WORKER_ONLY = 'worker blocks (prefill/decode) are only valid in multinode: true configs';

export const WorkerConfigSchema = closed({
  'num-worker': boundedInt({ min: 0, max: CONFIG_BOUNDS.maxParallelism, unit: 'workers' }).describe(
    'Workers in this pool; decode 0 means an aggregated multinode deployment',
  ),
  tp: gpus(),
  pp: gpus().default(1),
  'dcp-size': gpus().default(1),
  'pcp-size': gpus().default(1),
  ep: gpus(),
  'dp-attn': bool(),
  hardware: nonEmptyText(CONFIG_BOUNDS.maxNameChars)
    .nullish()
    .describe('GPU SKU metadata only; it does not affect scheduling'),
  'additional-settings': list(text())
    .default([])
    .describe('KEY=VALUE strings exported as environment variables'),
}).superRefine(guarded(checkDcpDividesTp), always);

export const SingleNodeSearchSpaceSchema = closed(
  {
    tp: gpus(),
    pp: gpus().default(1),
    'dcp-size': gpus().default(1),
    'pcp-size': gpus().default(1),
    ep: gpus().nullish(),
    'dp-attn': bool().nullish(),
    'spec-decoding': specDecoding(),
    router: ComponentMetadataSchema.nullish(),
    ...concFields,
  },
  {
    'kv-p2p-transfer': 'kv-p2p-transfer is only valid when multinode=true',
    'kv-offloading': 'kv-offloading is only valid in agentic-coding search-space entries',
    'kv-offload-backend': 'kv-offload-backend is only valid in agentic-coding search-space entries',
    prefill: WORKER_ONLY,
    decode: WORKER_ONLY,
  },
)
  .superRefine(guarded(checkConcurrency), always)
  .superRefine(guarded(checkDcpDividesTp), always);

export const MultiNodeSearchSpaceSchema = closed(
  {
    'spec-decoding': specDecoding(),
    prefill: WorkerConfigSchema,
    decode: WorkerConfigSchema,
    router: ComponentMetadataSchema.nullish(),
    'kv-p2p-transfer': kvP2pTransfer().nullish(),
    ...concFields,
  },
  {
    tp: 'multi-node entries set tp inside prefill and decode',
    'kv-offloading': 'kv-offloading is only valid in agentic-coding search-space entries',
  },
)
  .superRefine(guarded(checkConcurrency), always)
  .superRefine(guarded(checkHardwarePair), always);

function checkAgenticEntry(v: Raw, ctx: Ctx): void {
  const single = v.tp != null;
  const hasPrefill = v.prefill != null;
  const hasDecode = v.decode != null;
  if (single ? hasPrefill || hasDecode : !(hasPrefill && hasDecode)) {
    report(ctx, {
      rule: 'agentic.shape',
      message: 'Agentic search-space entries must specify either tp or both prefill and decode',
    });
    return;
  }
  if (single) {
    if (v['kv-offloading'] == null) {
      report(ctx, {
        rule: 'agentic.kv-offloading-required',
        message: 'Single-node agentic search-space entries must specify kv-offloading (none or dram)',
      });
    }
    checkDcpDividesTp(v, ctx);
  } else {
    const explicit = (['pp', 'dcp-size', 'pcp-size'] as const).filter((k) => k in v);
    if (explicit.length > 0) {
      report(ctx, {
        rule: 'agentic.multinode-topology-fields',
        path: [explicit[0]!],
        message:
          "Multinode agentic search-space entries cannot specify 'pp', 'dcp-size', 'pcp-size'; set them inside prefill and decode",
      });
    }
    checkHardwarePair(v, ctx);
  }
  const kv = v['kv-offloading'];
  const backend = v['kv-offload-backend'];
  if (backend != null && kv == null) {
    report(ctx, {
      rule: 'kvoffload.backend-requires-offload',
      path: ['kv-offload-backend'],
      message: 'kv-offload-backend requires kv-offloading',
    });
  } else if (backend != null && kv === 'none') {
    report(ctx, {
      rule: 'kvoffload.backend-with-none',
      path: ['kv-offload-backend'],
      message: "kv-offload-backend can only be set when kv-offloading is not 'none'",
    });
  } else if (backend == null && kv === 'dram') {
    report(ctx, {
      rule: 'kvoffload.backend-required',
      path: ['kv-offloading'],
      message: "kv-offload-backend is required when kv-offloading is 'dram'",
    });
  }
}

export const AgenticSearchSpaceSchema = closed(
  {
    tp: gpus()
      .nullish()
      .describe('Set for the single-node shape; omit and set prefill + decode for multi-node'),
    pp: gpus().optional(),
    'dcp-size': gpus().optional(),
    'pcp-size': gpus().optional(),
    ep: gpus().nullish(),
    'dp-attn': bool().nullish(),
    'spec-decoding': specDecoding(),
    prefill: WorkerConfigSchema.nullish(),
    decode: WorkerConfigSchema.nullish(),
    'kv-offloading': oneOf(KV_OFFLOADING).nullish(),
    'kv-offload-backend': KvOffloadBackendSchema.nullish(),
    router: ComponentMetadataSchema.nullish(),
    'kv-p2p-transfer': kvP2pTransfer().nullish(),
    ...concFields,
  },
  {
    'total-cpu-dram-gb':
      'total-cpu-dram-gb is computed from runners.yaml hardware metadata and dram-utilization',
    duration: 'agentic duration is not configurable in master configs (generated rows use 3600 s)',
  },
)
  .superRefine(guarded(checkConcurrency), always)
  .superRefine(guarded(checkAgenticEntry), always);

export const AgenticCodingConfigSchema = closed(
  {
    'search-space': list(AgenticSearchSpaceSchema),
    'dram-utilization': z
      .number({ error: 'expected a number' })
      .gt(0, { error: 'must be greater than 0' })
      .lte(1, { error: 'must be less than or equal to 1' })
      .nullish()
      .describe('Fraction of the runner host DRAM given to KV offload (0 < x <= 1)'),
  },
  {
    'trace-source': 'the trace corpus is chosen at run time from the model prefix, not in the master config',
    duration: 'agentic duration is not configurable in master configs (generated rows use 3600 s)',
    'gpus-per-node': 'gpus-per-node comes from runners.yaml hardware metadata',
    'available-cpu-dram-mib': 'available-cpu-dram-mib comes from runners.yaml hardware metadata',
    'total-cpu-dram-gb':
      'total-cpu-dram-gb is computed from runners.yaml hardware metadata and dram-utilization',
  },
).superRefine((v: unknown, ctx) => {
  if (!isRecord(v) || v['dram-utilization'] != null || !Array.isArray(v['search-space'])) return;
  const i = v['search-space'].findIndex((e) => isRecord(e) && e['kv-offloading'] === 'dram');
  if (i >= 0) {
    report(ctx, {
      rule: 'agentic.dram-utilization-required',
      path: ['search-space', i, 'kv-offloading'],
      message:
        "kv-offloading='dram' requires dram-utilization with runner hardware metadata (add dram-utilization: 0 < x <= 1 to this agentic-coding item)",
    });
  }
}, always);

const fixedItem = <T extends z.core.$ZodType>(entry: T) =>
  closed({ isl: seqLen(), osl: seqLen(), 'search-space': list(entry) });

export const SingleNodeFixedSeqLenSchema = fixedItem(SingleNodeSearchSpaceSchema);
export const MultiNodeFixedSeqLenSchema = fixedItem(MultiNodeSearchSpaceSchema);

function checkSomeScenario(v: Raw, ctx: Ctx): void {
  const nonEmpty = (x: unknown) => Array.isArray(x) && x.length > 0;
  if (!nonEmpty(v['fixed-seq-len']) && !nonEmpty(v['agentic-coding'])) {
    report(ctx, {
      rule: 'scenarios.none',
      message:
        'At least one scenario type must be specified (a non-empty fixed-seq-len or agentic-coding list)',
    });
  }
}

const scenarios = <T extends z.core.$ZodType>(fixed: T) =>
  closed({
    'fixed-seq-len': list(fixed).nullish(),
    'agentic-coding': list(AgenticCodingConfigSchema).nullish(),
  }).superRefine(guarded(checkSomeScenario), always);

/** Every search-space entry of a raw master entry (both scenario kinds), with its path. */
export function searchSpaceEntries(entry: Raw): { path: (string | number)[]; entry: Raw }[] {
  const out: { path: (string | number)[]; entry: Raw }[] = [];
  const sc = entry.scenarios;
  if (!isRecord(sc)) return out;
  for (const kind of SCENARIO_TYPES) {
    const items = sc[kind];
    if (!Array.isArray(items)) continue;
    items.forEach((item, i) => {
      if (!isRecord(item) || !Array.isArray(item['search-space'])) return;
      item['search-space'].forEach((e, j) => {
        if (isRecord(e)) out.push({ path: ['scenarios', kind, i, 'search-space', j], entry: e });
      });
    });
  }
  return out;
}

function checkEntryRules(v: Raw, ctx: Ctx): void {
  const sc = v.scenarios;
  const agentic = isRecord(sc) ? sc['agentic-coding'] : undefined;
  if (
    Array.isArray(agentic) &&
    agentic.length > 0 &&
    typeof v.runner === 'string' &&
    !v.runner.startsWith('cluster:')
  ) {
    report(ctx, {
      rule: 'agentic.cluster-runner',
      path: ['runner'],
      message: `Agentic master configs must use a 'cluster:<name>' runner so every point runs on one exact hardware fleet (got '${v.runner}').`,
    });
  }
  const entries = searchSpaceEntries(v);
  for (const field of ['router', 'kv-p2p-transfer'] as const) {
    const inEntry = entries.find((e) => e.entry[field] != null);
    if (v[field] != null && inEntry) {
      report(ctx, {
        rule: `scope.${field}`,
        path: [...inEntry.path, field],
        message: `${field} must be declared either at the top level or in search-space entries, not both`,
      });
    }
  }
  const multinode = v.multinode === true;
  if (!multinode) {
    const withP2p = entries.find((e) => e.entry['kv-p2p-transfer'] != null);
    if (withP2p) {
      report(ctx, {
        rule: 'scope.kv-p2p-transfer-multinode',
        path: [...withP2p.path, 'kv-p2p-transfer'],
        message: 'kv-p2p-transfer is only valid when multinode=true',
      });
    }
  }
  // A single-node config with disagg: true is already an error of its own; do not ask it for a transfer.
  if (multinode && v.disagg === true && v['kv-p2p-transfer'] == null) {
    const missing = entries.find((e) => e.entry['kv-p2p-transfer'] == null);
    if (entries.length === 0 || missing) {
      report(ctx, {
        rule: 'disagg.kv-p2p-transfer',
        path: missing ? missing.path : ['disagg'],
        message: 'disagg=true requires kv-p2p-transfer at the top level or in every search-space entry',
      });
    }
  }
  for (const e of entries) {
    if (e.path[1] !== 'agentic-coding') continue;
    const workers = e.entry.prefill != null || e.entry.decode != null;
    if (multinode && e.entry.tp != null) {
      report(ctx, {
        rule: 'agentic.shape-mismatch',
        path: [...e.path, 'tp'],
        message:
          'this multinode: true config has a single-node agentic entry (tp); use prefill and decode workers, or set multinode: false',
      });
    } else if (!multinode && workers) {
      report(ctx, {
        rule: 'agentic.shape-mismatch',
        path: e.path,
        message:
          'this multinode: false config has a multi-node agentic entry (prefill/decode); use tp, or set multinode: true',
      });
    }
  }
}

const commonTop = {
  image: text(CONFIG_BOUNDS.maxImageChars),
  model: text(CONFIG_BOUNDS.maxModelChars),
  'model-prefix': name(),
  precision: name(),
  framework: name(),
  runner: name(),
  router: ComponentMetadataSchema.nullish(),
};

export const SingleNodeMasterEntrySchema = closed(
  {
    ...commonTop,
    multinode: z.literal(false, {
      error: 'must be true (multi-node config with prefill/decode workers) or false (single-node config)',
    }),
    disagg: z
      .literal(false, {
        error: 'disagg: true requires multinode: true (a single-node config cannot be disaggregated)',
      })
      .default(false),
    scenarios: scenarios(SingleNodeFixedSeqLenSchema),
  },
  { 'kv-p2p-transfer': 'kv-p2p-transfer is only valid when multinode=true' },
).superRefine(guarded(checkEntryRules), always);

export const MultiNodeMasterEntrySchema = closed({
  ...commonTop,
  multinode: z.literal(true),
  disagg: bool().default(false),
  'kv-p2p-transfer': kvP2pTransfer().nullish(),
  scenarios: scenarios(MultiNodeFixedSeqLenSchema),
}).superRefine(guarded(checkEntryRules), always);

/** The reference dispatches on `multinode: true`; anything else is validated as a single-node entry. */
export function masterEntrySchemaFor(raw: unknown) {
  return isRecord(raw) && raw.multinode === true ? MultiNodeMasterEntrySchema : SingleNodeMasterEntrySchema;
}

export const MasterEntrySchema = z.union([SingleNodeMasterEntrySchema, MultiNodeMasterEntrySchema]);
export const MasterConfigFileSchema = z.record(z.string(), MasterEntrySchema);

export type SingleNodeMasterEntry = z.input<typeof SingleNodeMasterEntrySchema>;
export type MultiNodeMasterEntry = z.input<typeof MultiNodeMasterEntrySchema>;
export type MasterEntry = SingleNodeMasterEntry | MultiNodeMasterEntry;
export type WorkerConfig = z.input<typeof WorkerConfigSchema>;
export type SingleNodeSearchSpace = z.input<typeof SingleNodeSearchSpaceSchema>;
export type MultiNodeSearchSpace = z.input<typeof MultiNodeSearchSpaceSchema>;
export type AgenticSearchSpace = z.input<typeof AgenticSearchSpaceSchema>;
export type AgenticCodingConfig = z.input<typeof AgenticCodingConfigSchema>;
export type ComponentMetadata = z.input<typeof ComponentMetadataSchema>;
export type KvOffloadBackend = z.input<typeof KvOffloadBackendSchema>;
