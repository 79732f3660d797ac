import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REFERENCE_BENCH } from '../schema/reference-client.ts';
import type { IngestReport } from '../schema/store.ts';
import { openStore } from '../store/db.ts';
import { ingestRunDir } from '../store/ingest.ts';
import { agenticPlanDefaults } from '../sweep/agentic-corpus.ts';
import { createRun } from '../sweep/create-run.ts';
import { executeRun } from '../sweep/execute.ts';
import { acquireRunLock, describeHolder } from '../sweep/lock.ts';
import { manifestPath } from '../sweep/run-dir.ts';
import type { SweepHooks, SweepOutcome } from '../sweep/sweep.ts';
import { writeSynthCorpusFile } from '../workload/agentic/synth.ts';

/**
 * `npm run demo`: the whole pipeline on one machine. A small sweep (examples/demo.yaml, and the AgentX replay
 * of examples/demo-agentic.yaml over a synthetic corpus) on the simulated
 * engine, time-scaled, into `<dir>/runs/demo`; its results ingested into the store; the dashboard over
 * them. A second run reuses the first: the sweep resumes (nothing left to do when it finished) and the
 * ingest changes nothing. Sits above every layer, like the CLI.
 */

export const DEMO_RUN_ID = 'demo';

/**
 * The demo's agentic corpus: a few synthetic traces within a 256k context (the same bytes for the seed, so
 * a resumed demo replays what it planned), replayed agentx-fast for a shortened profiling phase. Under the
 * reference's 900 s minimum its points are measured and shown but never valid submissions.
 */
export const DEMO_AGENTIC = { traces: 6, seed: 0, maxContext: 256_000, durationS: 180 } as const;

/** Writes the demo's corpus once; later demos find it (its bytes never change for the seed). */
export function demoCorpus(dir: string): string {
  const path = join(dir, 'traces', 'demo-synth.jsonl');
  if (!existsSync(path)) {
    mkdirSync(dirname(path), { recursive: true });
    writeSynthCorpusFile(
      { traces: DEMO_AGENTIC.traces, seed: DEMO_AGENTIC.seed, maxContext: DEMO_AGENTIC.maxContext },
      path,
    );
  }
  return path;
}

export interface DemoOptions {
  /** Where the demo keeps its runs (default .infx, beside the store). */
  dir: string;
  db: string;
  /** Simulated engine speed-up; auto: as fast as this host sustains for each point. */
  timeScale: number | 'auto';
  /** A quicker demo: only concurrencies up to this. */
  maxConc: number | undefined;
  version: string;
}

/** examples/ of the package, from sources or from the bundle. */
export function examplesDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++, dir = dirname(dir)) {
    if (existsSync(join(dir, 'examples', 'demo.yaml'))) return join(dir, 'examples');
  }
  return join(process.cwd(), 'examples');
}

export async function demoSweep(
  o: DemoOptions,
  hooks: SweepHooks,
): Promise<{ runDir: string; outcome: SweepOutcome; resumed: boolean }> {
  const outDir = join(o.dir, 'runs');
  const runDir = join(outDir, DEMO_RUN_ID);
  // One writer per run directory: a second demo at once is refused, naming the first.
  const lock = acquireRunLock(runDir, { command: 'infx demo', create: true });
  if (lock.tookOver)
    hooks.log(
      `took over the lock ${lock.path} left by ${describeHolder(lock.tookOver)}, which is no longer running`,
    );
  try {
    return await sweepLocked(o, hooks, outDir, runDir);
  } finally {
    lock.release();
  }
}

async function sweepLocked(
  o: DemoOptions,
  hooks: SweepHooks,
  outDir: string,
  runDir: string,
): Promise<{ runDir: string; outcome: SweepOutcome; resumed: boolean }> {
  const resumed = existsSync(manifestPath(runDir));
  if (!resumed) {
    const examples = examplesDir();
    await createRun({
      source: {
        kind: 'configs',
        request: {
          command: 'full-sweep',
          configFiles: [join(examples, 'demo.yaml'), join(examples, 'demo-agentic.yaml')],
          runnerConfig: join(examples, 'runners.yaml'),
          evalMode: 'no-evals',
          evalGrouping: 'reference',
          options: { stepSize: 2, maxConc: o.maxConc },
        },
      },
      outDir,
      runId: DEMO_RUN_ID,
      seed: 0,
      options: { executor: 'local', retries: 1, failFast: false, canary: false, parallel: 1, slurm: null },
      bench: { ...REFERENCE_BENCH, requestTimeoutS: 600 },
      engine: {
        kind: 'sim',
        container: 'none',
        simTimeScale: o.timeScale,
        readyTimeoutS: 60,
        acceptance: 'golden',
      },
      faults: [],
      agentic: await agenticPlanDefaults([demoCorpus(o.dir)], {
        maxContextTokens: null,
        fast: true,
        durationS: DEMO_AGENTIC.durationS,
      }),
      version: o.version,
    });
  }
  const { outcome } = await executeRun(runDir, 'missing', hooks);
  return { runDir, outcome, resumed };
}

export async function demoIngest(o: DemoOptions, runDir: string): Promise<IngestReport> {
  const store = await openStore(o.db);
  try {
    // Simulated results are never official: the official view is for measurements of real engines.
    return await ingestRunDir(store, runDir, { status: 'unofficial' });
  } finally {
    await store.close();
  }
}
