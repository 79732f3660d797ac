import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { accelerator } from '../catalog/index.ts';
import { maxModelLen, seqLenName } from '../matrix/naming.ts';
import { BENCH_RUN_SCHEMA_VERSION, type BenchRun } from '../schema/bench-run.ts';
import type { MatrixRow, RowWorker } from '../schema/matrix-row.ts';
import type { PointEngine, RunManifest } from '../schema/run-dir.ts';
import { isRunId, RUN_DIR_SCHEMA_VERSION, RUN_TOP_FILES } from '../schema/run-dir.ts';
import { type BenchOptions, BenchUsageError, checkBenchOptions } from './bench-point.ts';
import { checkRunId, newRunId, runHost } from './create-run.ts';
import { planPoints, SweepPlanError } from './points.ts';
import { runProvenance } from './provenance.ts';

/**
 * The plan of `infx bench --out DIR`: a run directory (the layout `infx sweep` writes) for a server infx
 * did not start. The deployment is described by flags instead of a config — one matrix row whose `conc`
 * lists the concurrencies — so ingest, plot, compare and serve read it as any sweep's run: one curve.
 */

/** What `infx bench` asks of a run, before the server has been asked anything. */
export interface BenchRunRequest {
  /** The single-point options; `concurrency` and `out` are per point and ignored here. */
  bench: BenchOptions;
  concurrencies: readonly number[];
  runDir: string;
  /** null: the folder's name (see defaultRunId). */
  runId: string | null;
  /** The curve's identity; null model prefix: derived from --model. */
  labels: { modelPrefix: string | null; accelerator: string; framework: string; precision: string };
  /** Measure points again that the run directory already holds. */
  force: boolean;
}

/** What the server said about itself (src/client/probe.ts), as far as the plan goes. */
export interface ServerFacts {
  simulator: string | null;
  /** GPUs the simulated engine announces; null for other servers. */
  gpus: number | null;
}

export interface PlannedBenchRun {
  manifest: RunManifest;
  /** matrix.json: the manifest's source (`kind: matrix`), the one row the points come from. */
  matrixText: string;
  benchRun: BenchRun;
  gpus: { total: number; prefill: number | null; decode: number | null };
  /** Things to tell the user about the plan (an assumed GPU count). */
  notes: string[];
}

export const BENCH_FILES = { matrix: RUN_TOP_FILES.benchMatrix, bench: RUN_TOP_FILES.benchRun } as const;

/** Whether a run directory was written by `infx bench` (against a server infx did not start). */
export function isBenchRun(runDir: string): boolean {
  return existsSync(join(runDir, BENCH_FILES.bench));
}

/**
 * Names that go into point ids and the curve's identity. `_` separates a point id's fields and `:`/`~`
 * mean something in them (src/schema/run-dir.ts), so neither is allowed in one field.
 */
const NAME = /^[A-Za-z0-9][A-Za-z0-9.+=-]{0,63}$/;

/** `meta-llama/Llama-3.1-8B-Instruct` → `llama-3.1-8b-instruct`: the last path segment, made a usable name. */
export function defaultModelPrefix(model: string): string {
  const last = model.split('/').filter(Boolean).at(-1) ?? '';
  const name = last
    .toLowerCase()
    .replace(/[^a-z0-9.+=-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .slice(0, 64);
  return name === '' ? 'model' : name;
}

/** Every problem with the flags of a bench run, checked before the server is contacted. */
export function checkBenchRun(req: BenchRunRequest): void {
  const problems: string[] = [];
  if (req.concurrencies.length === 0) problems.push('--concurrency needs at least one value');
  const seen = new Set<number>();
  for (const c of req.concurrencies) {
    if (!Number.isSafeInteger(c) || c < 1) problems.push(`--concurrency ${c} is not a positive integer`);
    else if (seen.has(c)) problems.push(`--concurrency ${c} is listed twice: give each concurrency once`);
    seen.add(c);
  }
  const l = req.labels;
  const names: [string, string | null][] = [
    ['--model-prefix', l.modelPrefix],
    ['--accelerator', l.accelerator],
    ['--framework', l.framework],
    ['--precision', l.precision],
  ];
  for (const [flag, v] of names)
    if (v !== null && !NAME.test(v))
      problems.push(
        `${flag} '${v}' is not a usable name: letters, digits, '.', '+', '=' and '-', starting with a letter or digit, at most 64 (it goes into point ids and folder names)`,
      );
  if (req.runId !== null) {
    try {
      checkRunId(req.runId);
    } catch (err) {
      problems.push(`--run-id: ${(err as Error).message}`);
    }
  }
  // The single-point checks, once per concurrency (the bounds depend on it); each message once.
  for (const c of seen.size ? [...seen] : [1]) {
    try {
      checkBenchOptions({ ...req.bench, concurrency: c });
    } catch (err) {
      if (!(err instanceof BenchUsageError)) throw err;
      for (const line of err.message.split('\n')) if (!problems.includes(line)) problems.push(line);
    }
  }
  if (problems.length) throw new BenchUsageError(problems.join('\n'));
}

/** What the chart and the cost figures will not know about the accelerator, said before the run. */
function acceleratorNote(name: string): string | null {
  if (name === 'unknown')
    return "no --accelerator: the run's hardware is 'unknown' (give --accelerator h100, h200, mi300x, … for its label and cost figures)";
  try {
    accelerator(name);
    return null;
  } catch {
    return `--accelerator ${name} is not in the catalog (add it in .infx/catalog.yaml): charts label it as given, without cost figures`;
  }
}

/**
 * The GPUs of the deployment: as given, else what the simulated engine announces. A real server does not
 * say, and every per-GPU figure divides by all of them, so a guess would be a silently wrong number: ask.
 */
function resolveGpus(o: BenchOptions, server: ServerFacts, notes: string[]): PlannedBenchRun['gpus'] {
  if (o.prefillGpus !== null && o.decodeGpus !== null)
    return { total: o.prefillGpus + o.decodeGpus, prefill: o.prefillGpus, decode: o.decodeGpus };
  if (o.gpus !== null) return { total: o.gpus, prefill: null, decode: null };
  if (server.gpus !== null) {
    notes.push(`no --gpus: the simulated engine says it runs on ${server.gpus}, so the run says so too`);
    return { total: server.gpus, prefill: null, decode: null };
  }
  throw new BenchUsageError(
    `--gpus N is needed: the server at ${o.baseUrl} does not say how many GPUs it runs on, and throughput ` +
      'per GPU divides by every GPU of the deployment (e.g. --gpus 8 for vllm serve --tensor-parallel-size 8; ' +
      '--prefill-gpus N --decode-gpus M for a disaggregated one)',
  );
}

const worker = (tp: number): RowWorker => ({
  'num-worker': 1,
  tp,
  ep: 1,
  'dp-attn': false,
  pp: 1,
  'dcp-size': 1,
  'pcp-size': 1,
});

/**
 * The row of the deployment. Its topology is what the flags say: TP over every GPU (one server), or one
 * prefill and one decode worker over their pools; `image` says infx did not start the server.
 */
function benchRow(req: BenchRunRequest, prefix: string, gpus: PlannedBenchRun['gpus']): MatrixRow {
  const o = req.bench;
  const l = req.labels;
  const concs = [...req.concurrencies];
  const head = {
    image: 'external',
    model: o.model,
    'model-prefix': prefix,
    precision: l.precision,
    framework: l.framework,
    runner: l.accelerator,
    isl: o.isl,
    osl: o.osl,
  };
  const expName = `${prefix}_${seqLenName(o.isl, o.osl)}`;
  if (gpus.prefill !== null && gpus.decode !== null)
    return {
      ...head,
      'spec-decoding': 'none',
      prefill: worker(gpus.prefill),
      decode: worker(gpus.decode),
      conc: concs,
      'max-model-len': maxModelLen(o.isl, o.osl),
      'exp-name': expName,
      disagg: true,
      'run-eval': false,
      'kv-p2p-transfer': 'unknown',
    };
  return {
    ...head,
    tp: gpus.total,
    pp: 1,
    'dcp-size': 1,
    'pcp-size': 1,
    conc: concs,
    'max-model-len': maxModelLen(o.isl, o.osl),
    ep: 1,
    'dp-attn': false,
    'spec-decoding': 'none',
    'exp-name': expName,
    disagg: false,
    'run-eval': false,
  };
}

/** The flags that make a run this run, as a person would type them (see BenchRun.identity). */
function identityOf(
  req: BenchRunRequest,
  prefix: string,
  gpus: PlannedBenchRun['gpus'],
  server: ServerFacts,
): Record<string, string> {
  const o = req.bench;
  return {
    server: server.simulator !== null ? "infx's simulated engine" : 'a real engine',
    '--model': o.model,
    '--model-prefix': prefix,
    '--accelerator': req.labels.accelerator,
    '--framework': req.labels.framework,
    '--precision': req.labels.precision,
    '--gpus': String(gpus.total),
    '--prefill-gpus': String(gpus.prefill ?? 'none'),
    '--decode-gpus': String(gpus.decode ?? 'none'),
    '--concurrency': req.concurrencies.join(' '),
    '--endpoint': o.endpoint,
    '--isl': String(o.isl),
    '--osl': String(o.osl),
    '--random-range-ratio': String(o.randomRangeRatio),
    '--num-prompts': o.numPrompts === null ? '10 x concurrency' : String(o.numPrompts),
    '--warmup': o.warmup === null ? '2 x concurrency' : String(o.warmup),
    '--request-rate': String(o.requestRate),
    '--burstiness': String(o.burstiness),
    '--ignore-eos': o.ignoreEos ? 'on' : 'off (--no-ignore-eos)',
    '--tokenizer': o.tokenizer === null ? 'built-in' : resolve(o.tokenizer),
    '--chat-template': o.chatTemplate ? 'on' : 'off',
    '--seed': String(o.seed),
    '--timeout': String(o.timeoutS),
    '--max-failure-rate': String(o.maxFailureRate),
    '--clock': o.clock ?? 'auto',
  };
}

/**
 * The folder's name, as a sweep's `runs/<run-id>` (so `infx plot my-vllm` and `infx serve --runs runs` find
 * it by id); a generated id when the name cannot be one.
 */
export function defaultRunId(runDir: string): string {
  const name = basename(resolve(runDir));
  return isRunId(name) ? name : newRunId();
}

/** The whole run as it would be written into an empty folder. */
export function planBenchRun(asked: BenchRunRequest, server: ServerFacts): PlannedBenchRun {
  const notes: string[] = [];
  // Points go from the lowest concurrency up, however they were listed: `4 2 1` is the run of `1 2 4`.
  const req = { ...asked, concurrencies: [...asked.concurrencies].sort((a, b) => a - b) };
  const runId = req.runId ?? defaultRunId(req.runDir);
  const prefix = req.labels.modelPrefix ?? defaultModelPrefix(req.bench.model);
  const gpus = resolveGpus(req.bench, server, notes);
  const hardware = acceleratorNote(req.labels.accelerator);
  if (hardware) notes.push(hardware);
  const row = benchRow(req, prefix, gpus);
  const matrixText = `${JSON.stringify([row], null, 2)}\n`;
  const o = req.bench;
  const engine: Omit<PointEngine, 'faults'> = {
    // What served the run, as far as the plan can say: a point without a result is counted by this.
    kind: server.simulator !== null ? 'sim' : 'recipe',
    container: 'none',
    simTimeScale: null,
    readyTimeoutS: 10,
    acceptance: 'real',
  };
  let planned: ReturnType<typeof planPoints>;
  try {
    planned = planPoints([row], {
      runId,
      canary: false,
      bench: {
        numPrompts: o.numPrompts,
        warmup: o.warmup,
        randomRangeRatio: o.randomRangeRatio,
        endpoint: o.endpoint,
        tokenizer: o.tokenizer === null ? null : resolve(o.tokenizer),
        seed: o.seed,
        maxFailureRate: o.maxFailureRate,
        requestTimeoutS: o.timeoutS,
      },
      engine,
      faults: [],
    });
  } catch (err) {
    if (err instanceof SweepPlanError) throw new BenchUsageError(err.message);
    throw err;
  }
  const createdAt = new Date().toISOString();
  const manifest: RunManifest = {
    schemaVersion: RUN_DIR_SCHEMA_VERSION,
    runId,
    createdAt,
    infxVersion: o.version,
    host: runHost(),
    source: {
      kind: 'matrix',
      file: {
        path: resolve(join(req.runDir, BENCH_FILES.matrix)),
        sha256: createHash('sha256').update(matrixText).digest('hex'),
      },
    },
    provenance: runProvenance(),
    seed: o.seed,
    options: { executor: 'local', retries: 0, failFast: false, canary: false, parallel: 1, slurm: null },
    points: planned.points,
    skipped: planned.skipped,
  };
  const benchRun: BenchRun = {
    kind: 'bench-run',
    schemaVersion: BENCH_RUN_SCHEMA_VERSION,
    runId,
    createdAt,
    baseUrl: o.baseUrl,
    identity: identityOf(req, prefix, gpus, server),
  };
  return { manifest, matrixText, benchRun, gpus, notes };
}

/**
 * Why an existing bench run is not the planned one (null: it is, and may be resumed). Each difference is
 * named by its flag, with both values, so the fix is obvious.
 */
export function runDifference(
  existing: { manifest: RunManifest; benchRun: BenchRun },
  planned: PlannedBenchRun,
  askedRunId: string | null,
): string | null {
  const was = existing.benchRun.identity;
  const now = planned.benchRun.identity;
  const diffs: string[] = [];
  for (const key of new Set([...Object.keys(was), ...Object.keys(now)]))
    if (was[key] !== now[key])
      diffs.push(
        `${key}: ${JSON.stringify(was[key] ?? 'not set')} there, ${JSON.stringify(now[key] ?? 'not set')} here`,
      );
  if (askedRunId !== null && askedRunId !== existing.manifest.runId)
    diffs.push(`--run-id: ${existing.manifest.runId} there, ${askedRunId} here`);
  if (diffs.length) return diffs.join('; ');
  if (existing.benchRun.runId !== existing.manifest.runId)
    return `bench.json is of run ${existing.benchRun.runId} but manifest.json of run ${existing.manifest.runId}`;
  const runId = existing.manifest.runId;
  const points = planned.manifest.points.map((p) => ({ ...p, runId }));
  if (!isDeepStrictEqual(points, existing.manifest.points))
    return "its manifest's points are not the ones these flags plan (written by another infx version, or edited)";
  return null;
}
