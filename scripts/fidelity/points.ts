/**
 * The public measurements `npm run fidelity` scores the predictor against (bench/data/fidelity-points.yaml):
 * their schema, the regime each point belongs to, and the rule that splits them into a calibration half
 * and a held-out half. Only this script and its test read the file, so the schema lives here.
 */
import { readFileSync } from 'node:fs';
import yaml from 'js-yaml';
import { z } from 'zod';
import { InfxError } from '../../src/schema/errors.ts';

export const POINTS_FILE = 'bench/data/fidelity-points.yaml';

const Pool = z.strictObject({
  'num-worker': z.int().min(0),
  tp: z.int().min(1),
  ep: z.int().min(1),
  'dp-attn': z.boolean(),
});

/** The matrix-row fields the predictor needs; single-node rows carry tp/ep/dp-attn, disaggregated ones pools. */
const Row = z
  .strictObject({
    model: z.string().min(1),
    'model-prefix': z.string().min(1),
    runner: z.string().min(1),
    framework: z.string().min(1),
    precision: z.string().min(1),
    isl: z.int().min(1),
    osl: z.int().min(1),
    conc: z.int().min(1),
    'spec-decoding': z.enum(['none', 'mtp', 'draft_model']).default('none'),
    /**
     * The KV-cache dtype where the source states it. Recorded, not yet passed on: rows and predictRows have no
     * such field today; the simulator's KV-dtype work (issue 21) will read it.
     */
    'kv-cache-dtype': z.enum(['fp8', 'bf16']).optional(),
    tp: z.int().min(1).optional(),
    ep: z.int().min(1).optional(),
    'dp-attn': z.boolean().optional(),
    prefill: Pool.optional(),
    decode: Pool.optional(),
  })
  .refine((r) => (r.prefill === undefined) === (r.decode === undefined), 'prefill and decode go together')
  .refine(
    (r) => (r.prefill !== undefined) !== (r.tp !== undefined),
    'a row has either tp (single node) or prefill/decode pools (disaggregated), not both',
  );

const Measured = z.strictObject({
  'tput-per-gpu': z.number().positive(),
  interactivity: z.number().positive(),
  /** T: 1000 / median TPOT; E: OSL / request latency (TTFT included). */
  kind: z.enum(['T', 'E']),
  derived: z.string().optional(),
});

export const HALVES = ['calibration', 'held-out'] as const;
export type Half = (typeof HALVES)[number];

export const PointSchema = z.strictObject({
  id: z.string().regex(/^[A-Z]+\d+[a-z]?$/, 'ids look like P1a, S4 or X1c'),
  source: z.string().min(1),
  ref: z.string().optional(),
  date: z.string().optional(),
  engine: z.string().optional(),
  row: Row,
  lengths: z.enum(['random', 'fixed']),
  spec: z.strictObject({ 'draft-tokens': z.int().min(1), 'acceptance-length': z.number().min(1) }).optional(),
  /** What the recipe of the measurement's date set where today's script (the predictor's rule) differs. */
  recipe: z
    .strictObject({
      'piecewise-cuda-graphs': z.boolean().optional(),
      /** TensorRT-LLM's max_num_tokens per DP rank. */
      'max-num-tokens': z.int().min(1).optional(),
      /** TensorRT-LLM's kv_cache_config.free_gpu_memory_fraction (or another engine's memory fraction). */
      'free-gpu-memory-fraction': z.number().gt(0).max(1).optional(),
    })
    .optional(),
  measured: Measured,
  family: z.enum(['dense', 'moe']),
  vendor: z.enum(['nvidia', 'amd']),
  half: z.enum(HALVES),
  note: z.string().optional(),
});

const SourceSchema = z.strictObject({
  name: z.string().min(1),
  url: z.url(),
  /** The unit of independence: one publisher's measurement pipeline. */
  group: z.string().min(1),
});

export const PointsFileSchema = z
  .strictObject({
    sources: z.record(z.string(), SourceSchema),
    points: z.array(PointSchema).min(1),
  })
  .superRefine((f, ctx) => {
    const seen = new Set<string>();
    f.points.forEach((p, i) => {
      if (seen.has(p.id))
        ctx.addIssue({ code: 'custom', path: ['points', i, 'id'], message: `duplicate id ${p.id}` });
      seen.add(p.id);
      if (!(p.source in f.sources)) {
        ctx.addIssue({
          code: 'custom',
          path: ['points', i, 'source'],
          message: `unknown source '${p.source}'`,
        });
      }
    });
  });

export type FidelityPoint = z.infer<typeof PointSchema>;
export type PointsFile = z.infer<typeof PointsFileSchema>;

export class PointsFileError extends InfxError {
  override name = 'PointsFileError';
}

/** Parses the points file; a bad file names the path and the failing key. */
export function parsePointsFile(text: string, file = POINTS_FILE): PointsFile {
  let doc: unknown;
  try {
    doc = yaml.load(text);
  } catch (err) {
    throw new PointsFileError(`${file}: not valid YAML: ${(err as Error).message}`);
  }
  const parsed = PointsFileSchema.safeParse(doc);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.join('.') || '(top level)';
    const id = pointIdAt(doc, issue.path);
    throw new PointsFileError(`${file}: ${where}${id ? ` (point ${id})` : ''}: ${issue.message}`, {
      hint: 'fix that key; the fields are described at the top of the file',
    });
  }
  return parsed.data;
}

/** The id of the point an issue path lies in (`points.3.…`), to name it in the message. */
function pointIdAt(doc: unknown, path: readonly PropertyKey[]): string | null {
  if (path[0] !== 'points' || typeof path[1] !== 'number') return null;
  const points = (doc as { points?: unknown[] } | null)?.points;
  const p = Array.isArray(points) ? (points[path[1]] as { id?: unknown } | undefined) : undefined;
  return typeof p?.id === 'string' ? p.id : null;
}

export function loadPointsFile(file = POINTS_FILE): PointsFile {
  return parsePointsFile(readFileSync(file, 'utf8'), file);
}

/** GPUs of a point: tp for one engine; every worker of both pools for a disaggregated row. */
export function gpusOf(p: FidelityPoint): number {
  const r = p.row;
  if (r.prefill && r.decode)
    return r.prefill['num-worker'] * r.prefill.tp + r.decode['num-worker'] * r.decode.tp;
  return r.tp ?? 1;
}

export type Parallel = 'tp' | 'ep' | 'dp-attn' | 'disagg-tp' | 'disagg-ep' | 'disagg-dp-attn';

/**
 * tp: tensor parallel only; ep: expert parallel without attention-DP; dp-attn: attention-DP (+ EP);
 * disagg-…: the same for a disaggregated row (prefill and decode pools), judged by its pools together.
 */
export function parallelOf(p: FidelityPoint): Parallel {
  const r = p.row;
  const disagg = r.prefill !== undefined && r.decode !== undefined;
  const pools =
    r.prefill && r.decode ? [r.prefill, r.decode] : [{ ep: r.ep ?? 1, 'dp-attn': r['dp-attn'] ?? false }];
  const kind = pools.some((x) => x['dp-attn']) ? 'dp-attn' : pools.some((x) => x.ep > 1) ? 'ep' : 'tp';
  return disagg ? `disagg-${kind}` : kind;
}

/** Saturation: at least 32 concurrent sequences per GPU (the max-throughput end of a sweep). */
export const SATURATION_CONC_PER_GPU = 32;
export const isSaturated = (p: FidelityPoint): boolean => p.row.conc / gpusOf(p) >= SATURATION_CONC_PER_GPU;

/** A regime: model family, vendor, parallelism, e.g. `moe/nvidia/dp-attn`. */
export const regimeOf = (p: FidelityPoint): string => `${p.family}/${p.vendor}/${parallelOf(p)}`;

/** Sort key of an id: prefix letters, number, suffix (P2a < P10a). */
function idKey(id: string): [string, number, string] {
  const m = /^([A-Z]+)(\d+)([a-z]?)$/.exec(id);
  return m ? [m[1]!, Number(m[2]), m[3]!] : [id, 0, ''];
}

export function compareIds(a: string, b: string): number {
  const [pa, na, sa] = idKey(a);
  const [pb, nb, sb] = idKey(b);
  if (pa !== pb) return pa < pb ? -1 : 1;
  if (na !== nb) return na - nb;
  return sa === sb ? 0 : sa < sb ? -1 : 1;
}

/**
 * The split rule: group the points by (source group, regime), sort each group by id, and alternate
 * calibration, held-out, calibration, … down each group. A point's half depends only on its group and its
 * rank there, so a point added with a new, later id leaves every other point's half as it was.
 */
export function assignHalves(file: PointsFile): Map<string, Half> {
  const groupOf = (p: FidelityPoint) => `${file.sources[p.source]?.group ?? p.source} ${regimeOf(p)}`;
  const groups = new Map<string, FidelityPoint[]>();
  for (const p of file.points) groups.set(groupOf(p), [...(groups.get(groupOf(p)) ?? []), p]);
  const out = new Map<string, Half>();
  for (const ps of groups.values()) {
    const sorted = [...ps].sort((a, b) => compareIds(a.id, b.id));
    sorted.forEach((p, i) => {
      out.set(p.id, HALVES[i % 2]!);
    });
  }
  return out;
}

/** Points whose recorded `half` is not what the rule assigns. */
export function halfMismatches(file: PointsFile): { id: string; recorded: Half; rule: Half }[] {
  const rule = assignHalves(file);
  return file.points
    .filter((p) => rule.get(p.id) !== p.half)
    .map((p) => ({ id: p.id, recorded: p.half, rule: rule.get(p.id)! }));
}
