import { type RouterOptions, type RouterOptionsInput, RouterOptionsSchema } from '../schema/router.ts';
import { powerOfTwo, randomPolicy, roundRobin } from './basic.ts';
import { cacheAware } from './cache-aware.ts';
import { type KvAwareSources, kvAware } from './kv-aware.ts';
import type { RoutingPolicy } from './policy.ts';
import { type Rng, seededRng } from './rng.ts';
import { smgConsistentHashing } from './smg-hash.ts';
import { vllmConsistentHash } from './vllm-hash.ts';

export interface PolicySources {
  /** Overrides the seeded random source (tests script their draws). */
  rng?: Rng;
  now?: KvAwareSources['now'];
  cachedBlocks?: KvAwareSources['cachedBlocks'];
}

/** The policy the options name, with the CLI defaults filled in for what they leave out. */
export function createPolicy(
  input: RouterOptionsInput | RouterOptions,
  sources: PolicySources = {},
): RoutingPolicy {
  const options = RouterOptionsSchema.parse(input);
  const rng = sources.rng ?? seededRng(options.seed);
  switch (options.policy) {
    case 'round-robin':
      return roundRobin();
    case 'random':
      return randomPolicy(rng);
    case 'power-of-two':
      return powerOfTwo(rng);
    case 'consistent-hash':
      return options.hashFlavor === 'smg' ? smgConsistentHashing(rng) : vllmConsistentHash();
    case 'cache-aware':
      return cacheAware(options.cacheAware);
    case 'kv-aware':
      return kvAware(options.kvAware, {
        rng,
        ...(sources.now ? { now: sources.now } : {}),
        ...(sources.cachedBlocks ? { cachedBlocks: sources.cachedBlocks } : {}),
      });
  }
}
