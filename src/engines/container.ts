import type { ContainerRuntime, EngineFile } from '../schema/engine-launch.ts';
import { shellQuote } from './shell.ts';

/**
 * Wraps an engine command in its container runtime. Docker and Podman get the environment as -e flags
 * and the work directory mounted at the same path (recipes write their files there); srun (Slurm with the
 * pyxis plugin) inherits the environment from srun's own, and --container-env makes those values win over
 * the image's.
 */

export interface WrapInput {
  /** Names the process in warnings, e.g. `prefill 0`. */
  label: string;
  argv: string[];
  env: Record<string, string>;
  files: EngineFile[];
  rankFlag: string | null;
  gpus: number;
  nodes: number;
}

export interface WrapContext {
  runtime: ContainerRuntime;
  image: string;
  workDir: string;
}

export interface Wrapped {
  argv: string[];
  env: Record<string, string>;
  warnings: string[];
}

/**
 * enroot (under pyxis) separates a registry host from the image path with '#': `nvcr.io#nvidia/x:tag`.
 * Docker Hub names (`lmsysorg/sglang:tag`) have no host and pass unchanged.
 */
export function enrootImage(image: string): string {
  if (image.includes('#')) return image;
  const slash = image.indexOf('/');
  if (slash < 0) return image;
  const first = image.slice(0, slash);
  const isHost = first.includes('.') || first.includes(':') || first === 'localhost';
  return isHost ? `${first}#${image.slice(slash + 1)}` : image;
}

/** The Docker/Podman spelling of an image a config wrote in enroot's `host#path` form. */
export function dockerImage(image: string): string {
  const hash = image.indexOf('#');
  return hash < 0 ? image : `${image.slice(0, hash)}/${image.slice(hash + 1)}`;
}

const inside = (path: string, dir: string) =>
  path === dir || path.startsWith(dir.endsWith('/') ? dir : `${dir}/`);

export function wrapInContainer(input: WrapInput, ctx: WrapContext): Wrapped {
  const warnings: string[] = [];
  const spans = input.nodes > 1 && input.rankFlag !== null;
  if (ctx.runtime !== 'none')
    for (const f of input.files)
      if (!inside(f.path, ctx.workDir))
        warnings.push(
          `${input.label}: ${f.path} is outside the work directory ${ctx.workDir}, which is all the container sees`,
        );

  if (ctx.runtime === 'srun') {
    const gpusPerNode = Math.ceil(input.gpus / input.nodes);
    const names = Object.keys(input.env);
    // Every node runs the same command; the rank comes from Slurm on each.
    const argv = spans
      ? [
          'bash',
          '-c',
          `exec "$@" ${shellQuote(input.rankFlag as string)} "$SLURM_NODEID"`,
          'infx-node',
          ...input.argv,
        ]
      : input.argv;
    return {
      argv: [
        'srun',
        '--nodes',
        String(input.nodes),
        '--ntasks-per-node',
        '1',
        // A GPU-less process (the router) shares a node with the workers' steps.
        ...(input.gpus > 0 ? ['--gpus-per-node', String(gpusPerNode)] : ['--overlap']),
        '--container-image',
        enrootImage(ctx.image),
        '--container-mounts',
        `${ctx.workDir}:${ctx.workDir}`,
        ...(names.length > 0 ? ['--container-env', names.join(',')] : []),
        ...argv,
      ],
      env: input.env,
      warnings,
    };
  }

  let argv = input.argv;
  if (spans) {
    argv = [...argv, input.rankFlag as string, '0'];
    warnings.push(
      `${input.label} spans ${input.nodes} nodes: its command is node 0's; start the same command on the others with ` +
        `${input.rankFlag} 1..${input.nodes - 1} (or use --container srun)`,
    );
  }
  if (ctx.runtime === 'none') return { argv, env: input.env, warnings };

  const gpuFlags =
    input.gpus === 0 ? [] : ctx.runtime === 'docker' ? ['--gpus', 'all'] : ['--device', 'nvidia.com/gpu=all'];
  const [program, ...args] = argv as [string, ...string[]];
  return {
    argv: [
      ctx.runtime,
      'run',
      '--rm',
      '--network',
      'host',
      '--ipc',
      'host',
      ...gpuFlags,
      ...Object.entries(input.env).flatMap(([k, v]) => ['-e', `${k}=${v}`]),
      '-v',
      `${ctx.workDir}:${ctx.workDir}`,
      // Engine images set their own entrypoint (vllm/vllm-openai runs `vllm serve`): the recipe's command
      // replaces it rather than being appended to it.
      '--entrypoint',
      program,
      dockerImage(ctx.image),
      ...args,
    ],
    env: {},
    warnings,
  };
}
