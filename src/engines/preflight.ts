import { execFile } from 'node:child_process';
import { accessSync, constants, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import type { ContainerRuntime } from '../schema/engine-launch.ts';
import type { MatrixRow } from '../schema/matrix-row.ts';
import type { PointSpec } from '../schema/run-dir.ts';
import { dockerImage } from './container.ts';
import { hostHfHome } from './devices.ts';

/**
 * What a sweep of real engines needs on this host, checked once before its first point: an engine that is
 * not installed, a container daemon that is down or an image that was never pulled would otherwise fail
 * every point, one ready-timeout at a time. Each problem says what is missing and how to fix it.
 */

export interface PreflightPlan {
  /** Programs that must be on PATH, with the points' reason. */
  binaries: { name: string; why: string }[];
  /** Runtimes whose daemon (`<runtime> info`) must answer. */
  daemons: ('docker' | 'podman')[];
  images: { runtime: 'docker' | 'podman'; image: string }[];
  /** The Hugging Face cache containers mount (created when missing); null without containers. */
  hfHome: string | null;
}

export interface PreflightOptions {
  env?: NodeJS.ProcessEnv;
  /** How long `docker info` / `image inspect` may take (default 15 s). */
  timeoutMs?: number;
}

/** The engine-level fields of a row: rows that differ only in concurrency render the same programs. */
export const rowKey = (row: MatrixRow) => JSON.stringify({ ...row, conc: null, 'exp-name': null });

/**
 * What the real-engine points need. Process engines: each distinct row is rendered once (the recipes run
 * in render mode, nothing starts) to learn the programs its processes run. A row that cannot render is
 * left to its point, which records why.
 */
export async function planPreflight(points: readonly PointSpec[]): Promise<PreflightPlan> {
  const plan: PreflightPlan = { binaries: [], daemons: [], images: [], hfHome: null };
  const seen = new Set<string>();
  const add = <T>(list: T[], key: string, item: T) => {
    if (seen.has(key)) return;
    seen.add(key);
    list.push(item);
  };
  const rendered = new Set<string>();
  for (const p of points) {
    if (p.engine.kind !== 'recipe') continue;
    const runtime: ContainerRuntime = p.engine.container;
    if (runtime === 'docker' || runtime === 'podman') {
      add(plan.binaries, `bin:${runtime}`, { name: runtime, why: `--container ${runtime}` });
      add(plan.daemons, `daemon:${runtime}`, runtime);
      add(plan.images, `image:${runtime}:${p.row.image}`, { runtime, image: dockerImage(p.row.image) });
      continue;
    }
    if (runtime === 'srun') {
      add(plan.binaries, 'bin:srun', { name: 'srun', why: '--container srun' });
      continue;
    }
    const key = rowKey(p.row);
    if (rendered.has(key)) continue;
    rendered.add(key);
    try {
      const { renderRecipe } = await import('./recipe.ts');
      let port = 8000;
      const launch = await renderRecipe(p.row, {
        conc: p.conc,
        allocatePort: () => port++,
        workDir: join(tmpdir(), 'infx-preflight'),
        container: 'none',
        acceptance: p.engine.acceptance,
        devices: null,
        hfHome: null,
      });
      for (const proc of launch.processes) {
        const name = proc.argv[0] as string;
        add(plan.binaries, `bin:${name}`, {
          name,
          why: `the ${p.row.framework} ${proc.role} (${launch.recipe})`,
        });
      }
    } catch {
      // The point itself fails in setup with the render's message.
    }
  }
  if (plan.daemons.length > 0) plan.hfHome = hostHfHome();
  return plan;
}

/** The checks as lines, for a dry run. */
export function describePreflight(plan: PreflightPlan): string[] {
  return [
    ...plan.binaries.map((b) => `${b.name} on PATH (${b.why})`),
    ...plan.daemons.map((d) => `${d} reachable (${d} info)`),
    ...plan.images.map((i) => `image ${i.image} present (${i.runtime} image inspect)`),
    ...(plan.hfHome ? [`Hugging Face cache ${plan.hfHome} (mounted; created if missing)`] : []),
  ];
}

/** Where `name` resolves on PATH (or the path itself, when it names one), or null. */
export function onPath(name: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const executable = (file: string) => {
    try {
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (name.includes('/')) {
    const file = isAbsolute(name) ? name : resolve(name);
    return executable(file) ? file : null;
  }
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const file = join(dir, name);
    if (executable(file)) return file;
  }
  return null;
}

interface Ran {
  code: number | null;
  timedOut: boolean;
  stderr: string;
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<Ran> {
  return new Promise((done) => {
    execFile(cmd, args, { env, timeout: timeoutMs, killSignal: 'SIGKILL' }, (err, _out, stderr) => {
      if (!err) return done({ code: 0, timedOut: false, stderr });
      const e = err as NodeJS.ErrnoException & { killed?: boolean; code?: number | string };
      done({
        code: typeof e.code === 'number' ? e.code : null,
        timedOut: e.killed === true,
        stderr: stderr || e.message,
      });
    });
  });
}

const firstLine = (s: string) =>
  s
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '') ?? '';

function missingBinary(name: string, why: string): string {
  if (name === 'docker')
    return `docker is not on PATH (${why}): install Docker (https://docs.docker.com/engine/install/) or run without a container (--container none)`;
  if (name === 'podman')
    return `podman is not on PATH (${why}): install Podman (https://podman.io/docs/installation) or run without a container (--container none)`;
  if (name === 'srun')
    return `srun is not on PATH (${why}): run on a Slurm node, or pick --container docker|podman|none`;
  return (
    `${name} is not on PATH (${why}): install the engine on this host (e.g. pip install vllm / sglang), ` +
    `activate the environment that has it, or run it in its image (--container docker)`
  );
}

/**
 * Runs the checks; the problems found (empty: all clear). Creates a missing Hugging Face cache folder, so
 * Docker does not create it owned by root and Podman does not refuse the mount.
 */
export async function runPreflight(plan: PreflightPlan, opts: PreflightOptions = {}): Promise<string[]> {
  const env = opts.env ?? process.env;
  const timeoutMs = opts.timeoutMs ?? 15_000;
  const problems: string[] = [];
  const missing = new Set<string>();
  for (const b of plan.binaries)
    if (onPath(b.name, env) === null) {
      missing.add(b.name);
      problems.push(missingBinary(b.name, b.why));
    }
  const up = new Set<string>();
  for (const d of plan.daemons) {
    if (missing.has(d)) continue;
    const r = await run(d, ['info'], env, timeoutMs);
    if (r.code === 0) {
      up.add(d);
      continue;
    }
    const why = r.timedOut
      ? `\`${d} info\` did not answer within ${timeoutMs < 1000 ? `${timeoutMs} ms` : `${Math.round(timeoutMs / 1000)} s`}`
      : `\`${d} info\` failed${r.code !== null ? ` (exit ${r.code})` : ''}: ${firstLine(r.stderr)}`;
    problems.push(
      d === 'docker'
        ? `the Docker daemon is not reachable: ${why}; start it (sudo systemctl start docker) and make sure ` +
            'your user may use it (the docker group, or DOCKER_HOST)'
        : `Podman cannot run containers: ${why}; see \`podman info\` (rootless: podman system migrate)`,
    );
  }
  // Images are asked of a daemon that answered; another's missing image would only repeat its problem.
  const checked = await Promise.all(
    plan.images
      .filter((i) => up.has(i.runtime))
      .map(async (i) => ({
        ...i,
        ok: (await run(i.runtime, ['image', 'inspect', i.image], env, timeoutMs)).code === 0,
      })),
  );
  for (const i of checked)
    if (!i.ok)
      problems.push(
        `image ${i.image} is not on this host (\`${i.runtime} image inspect\` failed): pull it first: ` +
          `${i.runtime} pull ${i.image}`,
      );
  if (plan.hfHome)
    try {
      mkdirSync(plan.hfHome, { recursive: true });
    } catch (err) {
      problems.push(
        `the Hugging Face cache ${plan.hfHome} cannot be created (${(err as Error).message}): set HF_HOME to a writable folder`,
      );
    }
  return problems;
}
