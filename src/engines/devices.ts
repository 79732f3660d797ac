import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { accelerator } from '../catalog/index.ts';
import type { AcceleratorSpec } from '../schema/catalog.ts';
import type { MatrixRow } from '../schema/matrix-row.ts';

/**
 * What a real engine needs from the host it runs on: whose GPUs they are (the flags and variables differ
 * per vendor), which of them a point was given, and where the Hugging Face cache lives.
 */

export type GpuVendor = AcceleratorSpec['vendor'];

/** Set by the local executor on each point process: the GPUs (host ids) that point may use, comma-separated. */
export const POINT_GPUS_ENV = 'INFX_POINT_GPUS';

/** Where the cache goes inside a container (engine images run as root) and what HF_HOME says there. */
export const CONTAINER_HF_HOME = '/root/.cache/huggingface';

/** Passed into containers by name only, so the value never lands in an argv, a log or point.json. */
export const PASSED_BY_NAME = ['HF_TOKEN'] as const;

/**
 * The vendor of a row's GPUs: the catalog's, for the runner it names; a runner the catalog does not know
 * falls back on the image (ROCm builds say so in their tags: `…-rocm700-mi35x`, `rocm/…`).
 */
export function gpuVendor(row: Pick<MatrixRow, 'runner' | 'image'>): GpuVendor {
  try {
    return accelerator(row.runner).vendor;
  } catch {
    return /(^|[/:_.-])rocm|mi3\d\d/i.test(row.image) ? 'amd' : 'nvidia';
  }
}

/** `0,1` → ['0', '1']; ids may be indices or UUIDs (GPU-…), both of which the drivers and runtimes take. */
export function parseGpuList(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/**
 * The variables that confine a process to `devices` (host ids). NVIDIA: CUDA_VISIBLE_DEVICES. AMD: ROCm
 * filters twice — ROCR_VISIBLE_DEVICES picks host GPUs, then HIP_VISIBLE_DEVICES (and CUDA_VISIBLE_DEVICES,
 * which HIP also reads and vLLM checks against it) index into what ROCR left. So ROCR gets the host ids and
 * HIP 0..n-1; the same host ids in both would point past the end of ROCR's list.
 */
export function visibleDevicesEnv(vendor: GpuVendor, devices: readonly string[]): Record<string, string> {
  if (vendor === 'nvidia') return { CUDA_VISIBLE_DEVICES: devices.join(',') };
  const relative = devices.map((_, i) => String(i)).join(',');
  return {
    ROCR_VISIBLE_DEVICES: devices.join(','),
    HIP_VISIBLE_DEVICES: relative,
    CUDA_VISIBLE_DEVICES: relative,
  };
}

/** The host's Hugging Face cache: HF_HOME, else ~/.cache/huggingface, as huggingface_hub resolves it. */
export function hostHfHome(env: NodeJS.ProcessEnv = process.env): string {
  const set = env.HF_HOME?.trim();
  if (set) return resolve(set);
  return join(env.HOME?.trim() || homedir(), '.cache', 'huggingface');
}

export interface HostDevices {
  /** The GPUs this point was given; null: not pinned (the engine sees every GPU, as before slots). */
  devices: string[] | null;
  hfHome: string;
}

/** What the point process's environment says about its GPUs and cache (see POINT_GPUS_ENV). */
export function hostDevices(env: NodeJS.ProcessEnv = process.env): HostDevices {
  const pinned = env[POINT_GPUS_ENV];
  return {
    devices: pinned === undefined || pinned.trim() === '' ? null : parseGpuList(pinned),
    hfHome: hostHfHome(env),
  };
}

/**
 * Splits a point's GPUs among its processes in start order. A process that serves no GPU work gets [];
 * one that spans nodes, or that the remaining GPUs cannot cover, gets null (unpinned) and a warning.
 */
export function assignDevices(
  processes: readonly { label: string; gpus: number; nodes: number }[],
  devices: readonly string[] | null,
): { perProcess: (string[] | null)[]; warnings: string[] } {
  const warnings: string[] = [];
  if (devices === null) return { perProcess: processes.map(() => null), warnings };
  let next = 0;
  const perProcess = processes.map((p) => {
    if (p.gpus === 0) return [];
    if (p.nodes > 1) {
      warnings.push(`${p.label} spans ${p.nodes} nodes: its GPUs are not pinned to this host's`);
      return null;
    }
    if (next + p.gpus > devices.length) {
      warnings.push(
        `${p.label} needs ${p.gpus} GPUs but only ${devices.length - next} of the point's ` +
          `${devices.length} (${devices.join(',')}) are left: not pinned`,
      );
      return null;
    }
    const mine = devices.slice(next, next + p.gpus);
    next += p.gpus;
    return mine;
  });
  return { perProcess, warnings };
}
