import type { AcceleratorSpec, ModelSpec } from '../schema/catalog.ts';
import { InfxError } from '../schema/errors.ts';
import { ACCELERATORS } from './accelerators.ts';
import { MODELS } from './models.ts';

export * from './memory.ts';

/** An unknown accelerator or model name; the message lists the known names and the file to extend. */
export class CatalogError extends InfxError {
  override name = 'CatalogError';
}

const ACCELERATOR_FILE = 'src/catalog/accelerators.ts';
const MODEL_FILE = 'src/catalog/models.ts';
const INDEX_FILE = 'src/catalog/index.ts';
/** Where a user adds an entry without editing source (see user.ts). */
const USER_CATALOG_HINT =
  'a catalog file of your own (--catalog FILE, or .infx/catalog.yaml; README § Catalog)';

/**
 * Suffixes the reference runner labels put after the hardware name (cluster, site, topology and purpose
 * tags): `cluster:gb300-nv`, `h100-dgxc-slurm_03`, `mi355x-disagg`, `b300-p1`, `rtx6000pro-lat`.
 */
export const RUNNER_SUFFIXES: readonly string[] = [
  'nv',
  'dgxc',
  'amds',
  'tw',
  'cw',
  'nb',
  'multinode',
  'disagg',
  'nscale',
  'dsv4',
  'new',
  'lat',
  'slurm',
  'p1',
  // infx's own: a fleet of simulated engines (examples/runners.yaml's cluster:h200-sim).
  'sim',
];

/** Other spellings of the base ids. */
const ACCELERATOR_ALIASES: Readonly<Record<string, string>> = {
  'h100-sxm': 'h100',
  'h100-sxm5': 'h100',
  'h200-sxm': 'h200',
  'rtx-pro-6000': 'rtx6000pro',
  rtxpro6000: 'rtx6000pro',
  'rtx6000-pro': 'rtx6000pro',
};

/** Catalog entries are shared by every caller: freeze them so none can change another's view. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
deepFreeze(ACCELERATORS);
deepFreeze(MODELS);

/** The built-in entries, then a user catalog's (user.ts): a user entry with a built-in id replaces it. */
let accelerators: readonly AcceleratorSpec[] = ACCELERATORS;
let models: readonly ModelSpec[] = MODELS;
const acceleratorById = new Map<string, AcceleratorSpec>(ACCELERATORS.map((a) => [a.id, a]));

function knownAccelerators(): string {
  return accelerators.map((a) => a.id).join(', ');
}

/** The base accelerator id of a name or runner label, or undefined. */
function acceleratorBase(label: string): string | undefined {
  let s = label.trim().toLowerCase();
  if (s.startsWith('cluster:')) s = s.slice('cluster:'.length);
  s = s.replace(/_\d+$/, ''); // runner instance: h100-dgxc-slurm_03
  for (;;) {
    const id = ACCELERATOR_ALIASES[s] ?? s;
    if (acceleratorById.has(id)) return id;
    const dash = s.lastIndexOf('-');
    if (dash <= 0 || !RUNNER_SUFFIXES.includes(s.slice(dash + 1))) return undefined;
    s = s.slice(0, dash);
  }
}

/** The accelerator `accelerator(name)` names, or undefined where it knows none (no message built). */
export function findAccelerator(name: string): AcceleratorSpec | undefined {
  const id = acceleratorBase(name);
  return id === undefined ? undefined : acceleratorById.get(id);
}

/**
 * The accelerator named by a base id (h100, mi355x, …) or a master-config runner label (cluster:gb300-nv,
 * mi355x-disagg, rtx6000pro-lat, h100-dgxc-slurm_03). Case-insensitive. Throws CatalogError when unknown.
 */
export function accelerator(name: string): AcceleratorSpec {
  const spec = findAccelerator(name);
  if (spec === undefined) {
    throw new CatalogError(
      `unknown accelerator '${name}': known: ${knownAccelerators()} (runner labels may add the suffixes ` +
        `${RUNNER_SUFFIXES.map((s) => `-${s}`).join(', ')}); add it in ${USER_CATALOG_HINT} or to ` +
        `${ACCELERATOR_FILE}, or a new runner suffix to RUNNER_SUFFIXES in ${INDEX_FILE}`,
    );
  }
  return spec;
}

/** Quantization and packaging suffixes of checkpoint names, stripped when no alias matches exactly. */
const CHECKPOINT_SUFFIX =
  /-(?:nvfp4|mxfp4|mxfp8|fp8|fp4|int4|int8|w4a16|w8a8|awq|gptq|fp8-dynamic|preview|v\d+(?:\.\d+)?)$/;

const basename = (id: string) => id.slice(id.lastIndexOf('/') + 1);

/** Lower-cased names (ids, aliases and their basenames) to models; the first model to claim a name keeps it. */
const modelByName = new Map<string, ModelSpec>();
function indexModels(list: readonly ModelSpec[], override: boolean): void {
  for (const m of list) {
    for (const name of [m.id, ...m.aliases]) {
      for (const key of [name.toLowerCase(), basename(name).toLowerCase()]) {
        if (override || !modelByName.has(key)) modelByName.set(key, m);
      }
    }
  }
}
indexModels(MODELS, false);

function lookupModel(name: string): ModelSpec | undefined {
  const s = name.trim().toLowerCase();
  const exact = modelByName.get(s) ?? modelByName.get(basename(s));
  if (exact !== undefined) return exact;
  // A checkpoint variant not listed: strip quantization suffixes one at a time (…-NVFP4-v3 → …).
  let base = basename(s);
  for (let stripped = base.replace(CHECKPOINT_SUFFIX, ''); stripped !== base; ) {
    base = stripped;
    const hit = modelByName.get(base);
    if (hit !== undefined) return hit;
    stripped = base.replace(CHECKPOINT_SUFFIX, '');
  }
  return undefined;
}

/**
 * The model named by its canonical Hugging Face id, a master-config model-prefix (dsr1, dsv4, qwen3.5,
 * glm5.2, …) or a quantized checkpoint id (nvidia/DeepSeek-R1-0528-NVFP4-v2, amd/GLM-5.2-MXFP4, …).
 * Case-insensitive; the organisation part is optional. Throws CatalogError when unknown.
 */
export function model(nameOrPrefix: string): ModelSpec {
  const spec = lookupModel(nameOrPrefix);
  if (spec === undefined) {
    const known = models
      .map((m) => (m.aliases[0] === undefined ? m.id : `${m.id} (${m.aliases[0]})`))
      .join(', ');
    throw new CatalogError(
      `unknown model '${nameOrPrefix}': known: ${known}; add it, or the name as an alias of its base model, ` +
        `in ${USER_CATALOG_HINT} or to ${MODEL_FILE}`,
    );
  }
  return spec;
}

export function listAccelerators(): readonly AcceleratorSpec[] {
  return accelerators;
}

export function listModels(): readonly ModelSpec[] {
  return models;
}

/**
 * Adds entries (a user catalog's, see user.ts) to the catalog: an accelerator with a known id and a model
 * whose names are known replace the earlier entries. Returns the ids that were replaced.
 */
export function addToCatalog(add: {
  accelerators: readonly AcceleratorSpec[];
  models: readonly ModelSpec[];
}): { replaced: string[] } {
  const replaced: string[] = [];
  const newAccs = add.accelerators.map((a) => deepFreeze(structuredClone(a)));
  for (const a of newAccs) {
    if (acceleratorById.has(a.id)) replaced.push(a.id);
    acceleratorById.set(a.id, a);
  }
  const newModels = add.models.map((m) => deepFreeze(structuredClone(m)));
  for (const m of newModels) if (lookupModel(m.id) !== undefined) replaced.push(m.id);
  indexModels(newModels, true);
  const accIds = new Set(newAccs.map((a) => a.id));
  accelerators = deepFreeze([...accelerators.filter((a) => !accIds.has(a.id)), ...newAccs]);
  const modelIds = new Set(newModels.map((m) => m.id.toLowerCase()));
  models = deepFreeze([...models.filter((m) => !modelIds.has(m.id.toLowerCase())), ...newModels]);
  return { replaced };
}
