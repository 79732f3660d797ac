import * as z from 'zod';
import { SCENARIO_TYPES } from './enums.ts';
import { isRecord } from './guards.ts';
import {
  AgenticCodingConfigSchema,
  type AgenticSearchSpaceSchema,
  MultiNodeFixedSeqLenSchema,
  type MultiNodeSearchSpaceSchema,
  SingleNodeFixedSeqLenSchema,
  type SingleNodeSearchSpaceSchema,
  type WorkerConfigSchema,
} from './master-config-search-space.ts';
import {
  CONFIG_BOUNDS,
  ComponentMetadataSchema,
  type Ctx,
  guarded,
  type KvOffloadBackendSchema,
  kvP2pTransfer,
  name,
  type Raw,
  text,
} from './master-config-values.ts';
import { always, bool, closed, list, report } from './zod-helpers.ts';

/**
 * Master-config entries exactly as the reference generator accepts them (matrix-spec §2), with two
 * deliberate tightenings: integers and booleans must be real YAML ints/bools (the reference coerces "8"
 * and then copies the string into rows), and an agentic entry's shape must agree with `multinode`
 * (the reference accepts the mismatch and then crashes in the generator). This module holds the entry
 * and its scenarios; the search-space entries are in master-config-search-space.ts and the values both
 * are built from in master-config-values.ts.
 */

export { KV_OFFLOADING, SCENARIO_TYPES, type ScenarioType, SPEC_DECODING } from './enums.ts';
export {
  AgenticCodingConfigSchema,
  AgenticSearchSpaceSchema,
  MultiNodeFixedSeqLenSchema,
  MultiNodeSearchSpaceSchema,
  SingleNodeFixedSeqLenSchema,
  SingleNodeSearchSpaceSchema,
  WorkerConfigSchema,
} from './master-config-search-space.ts';
export {
  boundedInt,
  CONFIG_BOUNDS,
  ComponentMetadataSchema,
  KvOffloadBackendSchema,
  SAFE_NAME,
} from './master-config-values.ts';

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
