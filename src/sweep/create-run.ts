import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { arch, availableParallelism, hostname, platform } from 'node:os';
import { resolve } from 'node:path';
import { readChangelogMatrix } from '../changelog/matrix-file.ts';
import { buildMatrix, type GeneratorRequest } from '../matrix/build.ts';
import { parseMatrix } from '../matrix/plan.ts';
import type { MatrixRow } from '../schema/matrix-row.ts';
import type { BenchDefaults } from '../schema/reference-client.ts';
import type { PointEngine, RunManifest, RunOptions, RunProvenance, RunSource } from '../schema/run-dir.ts';
import { RUN_DIR_SCHEMA_VERSION, runIdProblem } from '../schema/run-dir.ts';
import { safeJoin } from '../schema/safe-path.ts';
import { withPublicCorpora } from './agentic-corpus.ts';
import type { EvalPlanDefaults } from './point-eval-plan.ts';
import { type AgenticPlanDefaults, type FaultRule, planPoints, SweepPlanError } from './points.ts';
import { runProvenance } from './provenance.ts';
import { manifestPath, writeManifest } from './run-dir.ts';

/** A new run: where its points come from, how they run, and the manifest that records it all. */

export type SweepSource = { kind: 'configs'; request: GeneratorRequest } | { kind: 'matrix'; file: string };

export interface NewRunRequest {
  source: SweepSource;
  outDir: string;
  runId?: string | undefined;
  seed: number;
  options: RunOptions;
  bench: BenchDefaults;
  engine: Omit<PointEngine, 'faults'>;
  faults: readonly FaultRule[];
  /**
   * The agentic rows' corpus and settings (`--traces`, else each row's public corpus from the local Hugging
   * Face cache); null or absent: they are listed as not run.
   */
  agentic?: AgenticPlanDefaults | null;
  /** run-eval rows' eval settings; null or absent: those rows are listed as not run. */
  eval?: EvalPlanDefaults | null;
  version: string;
  /** Where the sweep runs (tests); default: read from the environment (src/sweep/provenance.ts). */
  provenance?: RunProvenance;
}

/** `20261130-064501-3fa2`: sorts by time, unique enough for runs started the same second. */
export function newRunId(now = new Date()): string {
  const t = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${t}-${randomBytes(2).toString('hex')}`;
}

export function checkRunId(id: string): string {
  const problem = runIdProblem(id);
  if (problem) throw new SweepPlanError(problem);
  return id;
}

/** The machine a run is planned on, as its manifest records it. */
export function runHost(): RunManifest['host'] {
  return {
    hostname: hostname(),
    platform: platform(),
    arch: arch(),
    node: process.version,
    cpus: availableParallelism(),
  };
}

async function sha256Of(path: string): Promise<string> {
  try {
    return createHash('sha256')
      .update(await readFile(path))
      .digest('hex');
  } catch (err) {
    throw new SweepPlanError(`cannot read ${path}: ${(err as Error).message}`);
  }
}

async function rowsOf(source: SweepSource): Promise<{ rows: MatrixRow[]; source: RunSource }> {
  if (source.kind === 'matrix') {
    let json: unknown;
    try {
      json = JSON.parse(await readFile(source.file, 'utf8'));
    } catch (err) {
      throw new SweepPlanError(`--matrix ${source.file}: ${(err as Error).message}`);
    }
    const fromChangelog = readChangelogMatrix(json, `--matrix ${source.file}`);
    if (fromChangelog && fromChangelog.rows.length === 0)
      throw new SweepPlanError(
        `--matrix ${source.file}: the changelog entries select no throughput or eval rows`,
      );
    const rows = parseMatrix(fromChangelog ? fromChangelog.rows : json);
    const file = { path: resolve(source.file), sha256: await sha256Of(source.file) };
    return {
      rows,
      source: fromChangelog
        ? { kind: 'matrix', file, changelog: fromChangelog.metadata }
        : { kind: 'matrix', file },
    };
  }
  const keys: string[] = [];
  const req = source.request;
  const rows = await buildMatrix(req, (k) => keys.push(k));
  const { configFiles, runnerConfig, command, options } = req;
  return {
    rows,
    source: {
      kind: 'configs',
      command,
      configFiles: await Promise.all(
        configFiles.map(async (f) => ({ path: resolve(f), sha256: await sha256Of(f) })),
      ),
      runnerConfig: { path: resolve(runnerConfig), sha256: await sha256Of(runnerConfig) },
      selectedKeys: keys,
      filters: Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)),
    },
  };
}

/** Builds the run's manifest without writing anything (what --dry-run prints). */
export async function planRun(req: NewRunRequest): Promise<{ runDir: string; manifest: RunManifest }> {
  const runId = req.runId !== undefined ? checkRunId(req.runId) : newRunId();
  const runDir = safeJoin(req.outDir, runId);
  const { rows, source } = await rowsOf(req.source);
  if (rows.length === 0) throw new SweepPlanError('the selection produced no matrix rows: nothing to run');
  const { points, skipped } = planPoints(rows, {
    runId,
    canary: req.options.canary,
    bench: { ...req.bench, seed: req.seed },
    engine: req.engine,
    faults: req.faults,
    agentic: await withPublicCorpora(rows, req.agentic),
    eval: req.eval ?? null,
  });
  const manifest: RunManifest = {
    schemaVersion: RUN_DIR_SCHEMA_VERSION,
    runId,
    createdAt: new Date().toISOString(),
    infxVersion: req.version,
    host: runHost(),
    source,
    provenance: req.provenance ?? runProvenance(),
    seed: req.seed,
    options: req.options,
    points,
    skipped,
  };
  return { runDir, manifest };
}

/** Plans the run and writes its manifest; refuses to reuse the folder of an existing run. */
export async function createRun(req: NewRunRequest): Promise<{ runDir: string; manifest: RunManifest }> {
  const planned = await planRun(req);
  await writeNewRun(planned, req.outDir);
  return planned;
}

/**
 * Writes a planned run's manifest, refusing an existing run's folder. Under the run's lock (src/sweep/lock.ts),
 * so of two sweeps started at once with one --run-id exactly one gets here.
 */
export async function writeNewRun(
  planned: { runDir: string; manifest: RunManifest },
  outDir: string,
): Promise<void> {
  if (existsSync(manifestPath(planned.runDir)))
    throw new SweepPlanError(
      `run ${planned.manifest.runId} already exists in ${outDir}: resume it with --resume ${planned.manifest.runId}, or pick another --run-id`,
    );
  if (planned.manifest.points.length === 0)
    throw new SweepPlanError(
      `none of the ${planned.manifest.skipped.length} rows can be run: ${planned.manifest.skipped[0]?.reason}`,
    );
  await writeManifest(planned.runDir, planned.manifest);
}
