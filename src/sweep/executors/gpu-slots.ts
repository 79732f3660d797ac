import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseGpuList } from '../../engines/devices.ts';

/**
 * The GPUs of this host as slots the local executor hands to points: each real-engine point holds the
 * ones it needs from start to end, so two points running side by side never share a GPU.
 */

/** Which GPUs a sweep may use: `0,1,2,3` (ids or UUIDs) or `none`; overrides what the host reports. */
export const SWEEP_GPUS_ENV = 'INFX_GPUS';

export interface HostGpus {
  ids: string[];
  /** Where the list came from, for messages. */
  source: string;
}

function countEntries(dir: string, keep: (name: string) => boolean = () => true): number {
  try {
    return readdirSync(dir).filter(keep).length;
  } catch {
    return 0;
  }
}

/** A kfd topology node is a GPU when its gpu_id is not 0 (CPU nodes have 0). */
function isAmdGpuNode(root: string) {
  return (name: string) => {
    try {
      return readFileSync(join(root, name, 'gpu_id'), 'utf8').trim() !== '0';
    } catch {
      return false;
    }
  };
}

/**
 * The GPUs a sweep on this host may hand out: INFX_GPUS, else the visibility list the sweep itself was
 * started with (host ids, which the point's flags pass on), else the GPUs the drivers list, else none.
 * `root` is for tests (a fake /proc and /sys).
 */
export function hostGpus(env: NodeJS.ProcessEnv = process.env, root = '/'): HostGpus {
  const given = env[SWEEP_GPUS_ENV]?.trim();
  if (given !== undefined && given !== '')
    return { ids: given === 'none' ? [] : parseGpuList(given), source: SWEEP_GPUS_ENV };
  // ROCR before HIP: HIP's list indexes into ROCR's, so only ROCR's are host ids.
  for (const name of ['CUDA_VISIBLE_DEVICES', 'ROCR_VISIBLE_DEVICES', 'HIP_VISIBLE_DEVICES']) {
    const v = env[name];
    if (v === undefined) continue;
    const ids = parseGpuList(v).filter((id) => id !== '-1');
    return { ids, source: name };
  }
  const nvidia = countEntries(join(root, 'proc/driver/nvidia/gpus'));
  if (nvidia > 0) return { ids: range(nvidia), source: '/proc/driver/nvidia/gpus' };
  const kfd = join(root, 'sys/class/kfd/kfd/topology/nodes');
  const amd = countEntries(kfd, isAmdGpuNode(kfd));
  if (amd > 0) return { ids: range(amd), source: '/sys/class/kfd' };
  return { ids: [], source: 'no GPU found' };
}

const range = (n: number) => Array.from({ length: n }, (_, i) => String(i));

interface Waiter {
  n: number;
  resolve: (ids: string[]) => void;
}

/** First come, first served: a big point waiting at the head is not overtaken by small ones forever. */
export class GpuSlots {
  private free: string[];
  private waiting: Waiter[] = [];

  constructor(readonly ids: readonly string[]) {
    this.free = [...ids];
  }

  get size(): number {
    return this.ids.length;
  }

  /** `n` GPUs now if nobody is waiting and they are free, else null. */
  tryAcquire(n: number): string[] | null {
    if (this.waiting.length > 0 || n > this.free.length) return null;
    return this.take(n);
  }

  /** `n` GPUs (the lowest free ones), once they are free; n must not exceed size. */
  acquire(n: number): { ids: Promise<string[]>; cancel: () => void } {
    if (n > this.ids.length) throw new RangeError(`${n} GPUs asked of ${this.ids.length}`);
    let waiter: Waiter | undefined;
    const ids = new Promise<string[]>((resolve) => {
      waiter = { n, resolve };
      this.waiting.push(waiter);
    });
    this.serve();
    return {
      ids,
      cancel: () => {
        const at = waiter ? this.waiting.indexOf(waiter) : -1;
        if (at >= 0) this.waiting.splice(at, 1);
        this.serve();
      },
    };
  }

  release(ids: readonly string[]): void {
    this.free.push(...ids);
    this.serve();
  }

  private serve(): void {
    while (this.waiting.length > 0 && (this.waiting[0] as Waiter).n <= this.free.length) {
      const w = this.waiting.shift() as Waiter;
      w.resolve(this.take(w.n));
    }
  }

  private take(n: number): string[] {
    // Lowest ids first (in the host's order), so a point's GPUs are neighbours where they can be.
    this.free.sort((a, b) => this.ids.indexOf(a) - this.ids.indexOf(b));
    return this.free.splice(0, n);
  }
}
