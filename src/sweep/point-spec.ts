import { readFile } from 'node:fs/promises';
import { notRunnable } from '../metrics/aggregate.ts';
import { MatrixRowSchema } from '../schema/matrix-row.ts';
import { type PointSpec, PointSpecSchema } from '../schema/run-dir.ts';
import { withPublicCorpora } from './agentic-corpus.ts';
import { type PlanPointsOptions, planPoints, SweepPlanError } from './points.ts';

/**
 * What `infx sweep point --point FILE` runs: a point spec written by a sweep (points/<id>/spec.json), or
 * a plain matrix row (what a GitHub Actions matrix job holds), made into a point with the given defaults.
 */
export async function readPointSpec(
  path: string,
  defaults: Omit<PlanPointsOptions, 'canary'> & { conc?: number | undefined },
): Promise<PointSpec> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(path, 'utf8'));
  } catch (err) {
    throw new SweepPlanError(`--point ${path}: ${(err as Error).message}`);
  }
  if (typeof json === 'object' && json !== null && 'pointId' in json) {
    const parsed = PointSpecSchema.safeParse(json);
    const missing = parsed.success ? notRunnable(parsed.data.bench.kind) : null;
    if (missing) throw new SweepPlanError(`--point ${path}: ${missing.plan}`);
    if (parsed.success) return parsed.data;
    const first = parsed.error.issues[0];
    throw new SweepPlanError(
      `--point ${path} is not a valid point spec: ${first?.path.join('.') || '(root)'}: ${first?.message}`,
    );
  }
  const candidate = Array.isArray(json) && json.length === 1 ? json[0] : json;
  const parsed = MatrixRowSchema.safeParse(candidate);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new SweepPlanError(
      `--point ${path} is neither a matrix row (as printed by infx matrix) nor a sweep's point spec: ` +
        `${first?.path.join('.') || '(root)'}: ${first?.message}`,
    );
  }
  const agentic = await withPublicCorpora([parsed.data], defaults.agentic);
  const { points, skipped } = planPoints([parsed.data], { ...defaults, agentic, canary: false });
  if (skipped[0]) throw new SweepPlanError(`--point ${path}: ${skipped[0].reason}`);
  const concs = points.map((p) => p.conc);
  const conc = defaults.conc ?? concs[0];
  const point = points.find((p) => p.conc === conc);
  if (!point)
    throw new SweepPlanError(`--conc ${defaults.conc}: the row's concurrencies are ${concs.join(', ')}`);
  return { ...point, index: 0 };
}
