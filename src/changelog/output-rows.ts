import type { MatrixRow } from '../schema/matrix-row.ts';

/**
 * The reference processor validates its output against strict row models before printing
 * (changelog-pr-spec §2.7) and prints what the models dump: their fields in declaration order, the
 * defaults filled in (pp, dcp-size, pcp-size = 1 and a worker's empty additional-settings; the
 * fixed-length models' eval flags false) and unset optional fields left out. The generator's own rows
 * (matrix output) keep the generator's order, so the processor's bytes differ from them; these are the
 * models' orders, read off the processor's output.
 */

const words = (s: string) => s.split(' ');

const SINGLE_FIXED = words(
  'image model model-prefix precision framework spec-decoding runner isl osl tp pp dcp-size ' +
    'pcp-size ep dp-attn conc max-model-len exp-name disagg run-eval eval-only recipe-fingerprint',
);
const SINGLE_AGENTIC = words(
  'image model model-prefix precision framework runner tp pp dcp-size pcp-size ep dp-attn ' +
    'spec-decoding conc kv-offloading kv-offload-backend total-cpu-dram-gb duration exp-name ' +
    'scenario-type run-eval eval-only recipe-fingerprint',
);
const MULTI_FIXED = words(
  'image model model-prefix precision framework spec-decoding runner isl osl prefill decode conc ' +
    'max-model-len exp-name disagg run-eval eval-only eval-conc eval-all-concs router kv-p2p-transfer ' +
    'recipe-fingerprint',
);
const MULTI_AGENTIC = words(
  'image model model-prefix precision framework spec-decoding runner prefill decode conc ' +
    'kv-offloading kv-offload-backend router kv-p2p-transfer total-cpu-dram-gb duration exp-name ' +
    'disagg scenario-type run-eval eval-only eval-conc recipe-fingerprint',
);
const WORKER = ['num-worker', 'tp', 'pp', 'dcp-size', 'pcp-size', 'ep', 'dp-attn', 'additional-settings'];
const PARALLEL_DEFAULTS: Record<string, unknown> = { pp: 1, 'dcp-size': 1, 'pcp-size': 1 };
const WORKER_DEFAULTS = { ...PARALLEL_DEFAULTS, 'additional-settings': [] };
/** The fixed-length models default their eval flags; the agentic ones leave them unset. */
const SINGLE_FIXED_DEFAULTS = { ...PARALLEL_DEFAULTS, 'eval-only': false };
const MULTI_FIXED_DEFAULTS = { 'eval-only': false, 'eval-all-concs': false };

type Raw = Record<string, unknown>;

/** `fields` first in that order (defaults filled where the model has them), then any others as they came. */
function ordered(row: Raw, fields: readonly string[], defaults: Record<string, unknown>): Raw {
  const out: Raw = {};
  for (const f of fields) {
    const v = row[f] ?? defaults[f];
    if (v !== undefined && v !== null) out[f] = v;
  }
  for (const [k, v] of Object.entries(row))
    if (!(k in out) && !fields.includes(k) && v !== undefined) out[k] = v;
  return out;
}

const isRecord = (v: unknown): v is Raw => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A generator row as the processor prints it. */
export function processorRow(row: MatrixRow): MatrixRow {
  const r = row as unknown as Raw;
  const agentic = r['scenario-type'] === 'agentic-coding';
  if (isRecord(r.prefill)) {
    const worker = (w: unknown) => (isRecord(w) ? ordered(w, WORKER, WORKER_DEFAULTS) : w);
    const multi = { ...r, prefill: worker(r.prefill), decode: worker(r.decode) };
    return ordered(
      multi,
      agentic ? MULTI_AGENTIC : MULTI_FIXED,
      agentic ? {} : MULTI_FIXED_DEFAULTS,
    ) as unknown as MatrixRow;
  }
  return ordered(
    r,
    agentic ? SINGLE_AGENTIC : SINGLE_FIXED,
    agentic ? PARALLEL_DEFAULTS : SINGLE_FIXED_DEFAULTS,
  ) as unknown as MatrixRow;
}
