import {
  chosen,
  type Decision,
  healthyIndices,
  noHealthyWorker,
  type RoutingPolicy,
  type WorkerView,
} from './policy.ts';
import { pickIndex, type Rng } from './rng.ts';

/** Round robin: one counter, advanced by every request, modulo the healthy workers (in worker order). */
export function roundRobin(): RoutingPolicy {
  let counter = 0;
  return {
    name: 'round-robin',
    select(_request, workers): Decision {
      const healthy = healthyIndices(workers);
      if (healthy.length === 0) return noHealthyWorker(workers);
      const index = healthy[counter % healthy.length]!;
      counter++;
      return chosen(index);
    },
  };
}

/** Random: a uniform pick among the healthy workers. */
export function randomPolicy(rng: Rng): RoutingPolicy {
  return {
    name: 'random',
    select(_request, workers): Decision {
      const healthy = healthyIndices(workers);
      if (healthy.length === 0) return noHealthyWorker(workers);
      return chosen(healthy[pickIndex(rng, healthy.length)]!);
    },
  };
}

/**
 * Power of two choices: two distinct random healthy workers, the one with the lower load; a tie goes to the
 * first drawn. One healthy worker is chosen outright.
 */
export function powerOfTwo(rng: Rng): RoutingPolicy {
  return {
    name: 'power-of-two',
    select(_request, workers: readonly WorkerView[]): Decision {
      const healthy = healthyIndices(workers);
      if (healthy.length === 0) return noHealthyWorker(workers);
      if (healthy.length === 1) return chosen(healthy[0]!);
      const a = pickIndex(rng, healthy.length);
      let b = pickIndex(rng, healthy.length - 1);
      if (b >= a) b++;
      const first = healthy[a]!;
      const second = healthy[b]!;
      return chosen(workers[second]!.load < workers[first]!.load ? second : first);
    },
  };
}
