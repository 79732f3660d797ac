import type { ContainerRuntime, EngineFile } from '../schema/engine-launch.ts';
import { CONTAINER_HF_HOME, type GpuVendor, PASSED_BY_NAME, visibleDevicesEnv } from './devices.ts';
import { shellQuote } from './shell.ts';

/**
 * Wraps an engine command in its container runtime. Docker and Podman get the environment as -e flags
 * and the work directory mounted at the same path (recipes write their files there); srun (Slurm with the
 * pyxis plugin) inherits the environment from srun's own, and --container-env makes those values win over
 * the image's. Docker and Podman also get the vendor's GPU flags (only the point's GPUs when it was given
 * some), the host's Hugging Face cache, and HF_TOKEN by name.
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
  /** Host GPU ids this process may use (devices.ts assignDevices); null or absent: every GPU. */
  devices?: string[] | null;
}

export interface WrapContext {
  runtime: ContainerRuntime;
  image: string;
  workDir: string;
  /** Whose GPUs: the device flags and visibility variables differ (default nvidia). */
  vendor?: GpuVendor;
  /** The host's Hugging Face cache, mounted so a model is downloaded once, not once per point; null: none. */
  hf?: { home: string; exists: boolean } | null;
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

/**
 * Docker/Podman flags that give a process its GPUs. NVIDIA: `--gpus` (the NVIDIA container toolkit), whose
 * value docker splits as CSV, so a list of devices goes in double quotes; Podman: CDI names. AMD: the ROCm
 * device nodes (every GPU; the visibility variables narrow them), the video group that owns them, and no
 * seccomp filter, as AMD's ROCm container guide runs them.
 */
function containerGpuFlags(
  runtime: 'docker' | 'podman',
  vendor: GpuVendor,
  devices: string[] | null,
): { flags: string[]; env: Record<string, string> } {
  if (vendor === 'amd')
    return {
      flags: [
        '--device',
        '/dev/kfd',
        '--device',
        '/dev/dri',
        '--group-add',
        'video',
        '--security-opt',
        'seccomp=unconfined',
      ],
      env: devices ? visibleDevicesEnv('amd', devices) : {},
    };
  // Inside an NVIDIA container the given GPUs are renumbered from 0: no CUDA_VISIBLE_DEVICES of host ids.
  if (runtime === 'docker')
    return { flags: ['--gpus', devices ? `"device=${devices.join(',')}"` : 'all'], env: {} };
  return {
    flags: (devices ?? ['all']).flatMap((d) => ['--device', `nvidia.com/gpu=${d}`]),
    env: {},
  };
}

export function wrapInContainer(input: WrapInput, ctx: WrapContext): Wrapped {
  const warnings: string[] = [];
  const spans = input.nodes > 1 && input.rankFlag !== null;
  const vendor = ctx.vendor ?? 'nvidia';
  // [] (a router) needs no GPU and null every GPU: neither narrows anything.
  const devices = input.devices && input.devices.length > 0 ? input.devices : null;
  if (ctx.runtime !== 'none')
    for (const f of input.files)
      if (!inside(f.path, ctx.workDir))
        warnings.push(
          `${input.label}: ${f.path} is outside the work directory ${ctx.workDir}, which is all the container sees`,
        );

  if (ctx.runtime === 'srun') {
    const gpusPerNode = Math.ceil(input.gpus / input.nodes);
    // Slurm binds the step's GPUs itself; a cache missing on the node would fail the mount, so only one
    // that exists is mounted. The job's environment (HF_TOKEN included) reaches the container as it is.
    const hf = ctx.hf?.exists ? ctx.hf.home : null;
    const env = hf ? { ...input.env, HF_HOME: CONTAINER_HF_HOME } : input.env;
    const names = Object.keys(env);
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
        [`${ctx.workDir}:${ctx.workDir}`, ...(hf ? [`${hf}:${CONTAINER_HF_HOME}`] : [])].join(','),
        ...(names.length > 0 ? ['--container-env', names.join(',')] : []),
        ...argv,
      ],
      env,
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
  if (ctx.runtime === 'none')
    return {
      argv,
      env: devices ? { ...input.env, ...visibleDevicesEnv(vendor, devices) } : input.env,
      warnings,
    };

  const gpu = input.gpus === 0 ? { flags: [], env: {} } : containerGpuFlags(ctx.runtime, vendor, devices);
  const env = { ...input.env, ...gpu.env };
  const hf = ctx.hf ? ctx.hf.home : null;
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
      ...gpu.flags,
      ...Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]),
      // A bare name: the runtime copies the value from its own environment (and skips it when unset).
      ...PASSED_BY_NAME.flatMap((name) => ['-e', name]),
      ...(hf ? ['-v', `${hf}:${CONTAINER_HF_HOME}`, '-e', `HF_HOME=${CONTAINER_HF_HOME}`] : []),
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
