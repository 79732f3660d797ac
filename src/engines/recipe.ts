import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import {
  type ContainerRuntime,
  type EngineLaunch,
  EngineLaunchSchema,
  type EngineProcess,
} from '../schema/engine-launch.ts';
import type { MatrixRow } from '../schema/matrix-row.ts';
import { wrapInContainer } from './container.ts';
import { assignDevices, type GpuVendor, gpuVendor, hostDevices } from './devices.ts';
import { defaultRecipesDir, RecipeError, resolveRecipe, workersServeHttp } from './frameworks.ts';
import { recipeEnv } from './recipe-env.ts';
import { parseRecipeOutput, type RenderedRecipe } from './recipe-protocol.ts';
import { type SpecOptions, specPlan } from './spec.ts';
import { type PlannedProcess, planProcesses } from './topology.ts';

/**
 * A matrix row → the exact command lines of its engine: runs the framework's recipe (recipes/*.sh) once
 * per process with INFX_RENDER=1, parses what it prints and wraps each command in its container runtime.
 */

export { RecipeError } from './frameworks.ts';
export type { Acceptance } from './spec.ts';

export interface RecipeOptions extends SpecOptions {
  /** The concurrency the client will drive (a multi-node row lists several: the caller picks one). */
  conc: number;
  /** Called once per process that listens, front first; the CLI hands out 8000, 8001, … */
  allocatePort: () => Promise<number> | number;
  /** Absolute directory the recipes write their files into (mounted into containers). */
  workDir: string;
  /** Address the engines listen on (default 0.0.0.0). */
  host?: string;
  /** Address the client and the router reach the processes at (default 127.0.0.1, or host when specific). */
  connectHost?: string;
  container?: ContainerRuntime;
  recipesDir?: string;
  gpuMemoryUtilization?: number;
  /** Context length for rows without one (agentic); default: the model's native context. */
  maxModelLen?: number;
  gpusPerNode?: number;
  /**
   * Host GPU ids the point may use, split among its processes; null: unpinned. Default: what the local
   * executor gave this process (INFX_POINT_GPUS), else unpinned.
   */
  devices?: string[] | null;
  /** Default: the catalog's vendor of the row's runner (or the image's). */
  vendor?: GpuVendor;
  /** The host's Hugging Face cache mounted into containers; null: none. Default: HF_HOME or ~/.cache/huggingface. */
  hfHome?: string | null;
}

export interface RecipeRender {
  launch: EngineLaunch;
  /** What the user should know: fallbacks taken and notes of the recipes, each once. */
  warnings: string[];
}

const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]', '']);
const RENDER_TIMEOUT_MS = 30_000;

/** An IPv6 address goes into a URL in brackets. */
const urlHost = (h: string) => (h.includes(':') && !h.startsWith('[') ? `[${h}]` : h);

function runRecipe(path: string, name: string, env: Record<string, string>): Promise<RenderedRecipe> {
  return new Promise((resolve, reject) => {
    execFile(
      'bash',
      // --norc: bash sources ~/.bashrc when it thinks a remote shell started it; nothing may print but the render.
      ['--norc', '--noprofile', path],
      // A clean environment: what a recipe renders depends on the row and options only.
      { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C', ...env }, timeout: RENDER_TIMEOUT_MS },
      (err, stdout, stderr) => {
        if (err) {
          const code = (err as NodeJS.ErrnoException).code;
          if (code === 'ENOENT')
            return reject(new RecipeError('bash is needed to render recipes and was not found'));
          const why = stderr.trim() || `exit ${typeof code === 'number' ? code : (err.signal ?? code)}`;
          return reject(new RecipeError(`${name} failed for ${env.INFX_ROLE} ${env.INFX_INDEX}: ${why}`));
        }
        try {
          resolve(parseRecipeOutput(stdout, name));
        } catch (parseErr) {
          reject(parseErr);
        }
      },
    );
  });
}

async function portOf(allocate: RecipeOptions['allocatePort']): Promise<number> {
  const port = await allocate();
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new RecipeError(`allocatePort returned ${port}, not a TCP port (1-65535)`);
  return port;
}

/** Renders a row's engine launch, with the warnings of the render. */
export async function renderRecipeWithWarnings(row: MatrixRow, opts: RecipeOptions): Promise<RecipeRender> {
  if (!isAbsolute(opts.workDir))
    throw new RecipeError(
      `workDir must be an absolute path (it is mounted into containers), got '${opts.workDir}'`,
    );
  if (!Number.isInteger(opts.conc) || opts.conc < 1)
    throw new RecipeError(`conc must be a positive integer, got ${opts.conc}`);
  const framework = row.framework;
  const recipe = resolveRecipe(framework, opts.recipesDir ?? defaultRecipesDir());
  const spec = specPlan(row, opts);
  const warnings = [...spec.warnings];
  const host = opts.host ?? '0.0.0.0';
  const connectHost = urlHost(opts.connectHost ?? (WILDCARD_HOSTS.has(host) ? '127.0.0.1' : host));
  const container = opts.container ?? 'none';
  const { processes: planned, disagg } = planProcesses(row, {
    workersListen: workersServeHttp(framework),
    gpusPerNode: opts.gpusPerNode ?? 8,
  });
  if ('disagg' in row && row.disagg && !disagg)
    warnings.push(`the row is marked disagg but one of its pools has no workers: it runs aggregated`);

  // The front (last) gets the first port, so the port a user asks for is the one the client drives;
  // the workers follow in start order.
  const ports = new Map<PlannedProcess, number>();
  const front = planned[planned.length - 1] as PlannedProcess;
  for (const p of [front, ...planned.slice(0, -1)])
    if (p.listens) ports.set(p, await portOf(opts.allocatePort));
  const urlsOf = (role: PlannedProcess['role']) =>
    planned
      .filter((p) => p.role === role && ports.has(p))
      .map((p) => `http://${connectHost}:${ports.get(p)}`);
  const urls = { prefill: urlsOf('prefill'), decode: urlsOf('decode'), server: urlsOf('server') };
  const totalGpus = planned.reduce((sum, p) => sum + p.gpus, 0);
  const maxModelLen = opts.maxModelLen ?? ('max-model-len' in row ? row['max-model-len'] : null);

  // What this host says (its environment and the cache folder), unless the caller decided.
  const local = hostDevices();
  const vendor = opts.vendor ?? gpuVendor(row);
  const hfHome = opts.hfHome === undefined ? local.hfHome : opts.hfHome;
  const hf = hfHome === null ? null : { home: hfHome, exists: existsSync(hfHome) };
  const assigned = assignDevices(
    planned.map((p) => ({ label: `${p.role} ${p.index}`, gpus: p.gpus, nodes: p.nodes })),
    opts.devices === undefined ? local.devices : opts.devices,
  );
  warnings.push(...assigned.warnings);

  const rendered = await Promise.all(
    planned.map((p) =>
      runRecipe(
        recipe.path,
        recipe.name,
        recipeEnv(p, {
          row,
          conc: opts.conc,
          host,
          connectHost,
          port: ports.get(p) ?? null,
          workDir: opts.workDir,
          gpuMemoryUtilization: opts.gpuMemoryUtilization ?? 0.9,
          maxModelLen,
          spec,
          disagg,
          totalGpus,
          urls,
        }),
      ),
    ),
  );

  const processes: EngineProcess[] = planned.map((p, i) => {
    const r = rendered[i] as RenderedRecipe;
    warnings.push(...r.notes);
    const wrapped = wrapInContainer(
      {
        label: `${p.role} ${p.index}`,
        argv: r.argv,
        env: r.env,
        files: r.files,
        rankFlag: r.rankFlag,
        gpus: p.gpus,
        nodes: p.nodes,
        devices: assigned.perProcess[i] ?? null,
      },
      { runtime: container, image: row.image, workDir: opts.workDir, vendor, hf },
    );
    warnings.push(...wrapped.warnings);
    return {
      role: p.role,
      argv: wrapped.argv,
      env: wrapped.env,
      files: r.files,
      port: ports.get(p) ?? null,
      nodes: p.nodes,
      gpus: p.gpus,
      // Each worker behind the front answers its own readiness probe (the front's covers only itself).
      ...(i < planned.length - 1 && ports.get(p) !== undefined ? { readyPath: r.readyPath } : {}),
    };
  });
  const frontProcess = processes[processes.length - 1] as EngineProcess;
  const launch = EngineLaunchSchema.parse({
    kind: 'recipe',
    framework,
    recipe: recipe.name,
    container,
    image: row.image,
    processes,
    baseUrl: `http://${connectHost}:${frontProcess.port}`,
    readyPath: (rendered[rendered.length - 1] as RenderedRecipe).readyPath,
    servedModel: row.model,
  });
  return { launch, warnings: [...new Set(warnings)] };
}

/** Renders a row's engine launch; see renderRecipeWithWarnings for what the render had to fall back on. */
export async function renderRecipe(row: MatrixRow, opts: RecipeOptions): Promise<EngineLaunch> {
  return (await renderRecipeWithWarnings(row, opts)).launch;
}
