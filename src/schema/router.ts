import * as z from 'zod';

/**
 * The request router's contracts (src/router): the policy names `infx router --policy` takes, the options
 * each policy reads with the CLI defaults of the router it reproduces, and what `/metrics` answers.
 *
 * Parameter names follow the reference routers (addendum §2): SGLang Model Gateway's `cache_aware`
 * (`--cache-threshold`, `--balance-abs-threshold`, `--balance-rel-threshold`, `--eviction-interval`,
 * `--max-tree-size`, pinned to its CLI defaults, not `CacheAwareConfig::default()`), and the Dynamo KV
 * router (`--kv-overlap-score-weight`, `--router-temperature`, `--kv-cache-block-size`, `--kv-events`,
 * `--router-ttl-secs`).
 */

export const ROUTER_POLICIES = [
  'round-robin',
  'random',
  'power-of-two',
  'consistent-hash',
  'cache-aware',
  'kv-aware',
] as const;
export const RouterPolicyNameSchema = z.enum(ROUTER_POLICIES);
export type RouterPolicyName = z.infer<typeof RouterPolicyNameSchema>;

/**
 * Which router's consistent hash: `smg` is SGLang Model Gateway's `consistent_hashing` (X-SMG-Target-Worker,
 * X-SMG-Routing-Key, Authorization / X-Forwarded-For / Cookie; BLAKE3 ring of 150 points per worker), `vllm`
 * is vllm-router's `consistent_hash` (x-session-id … x-trace-id, body fields, body hash; fbi_hash ring of
 * 160 points per worker).
 */
export const HASH_FLAVORS = ['smg', 'vllm'] as const;
export const HashFlavorSchema = z.enum(HASH_FLAVORS);
export type HashFlavor = z.infer<typeof HashFlavorSchema>;

export const CacheAwareOptionsSchema = z.strictObject({
  /** `--cache-threshold`: route to the best-matching worker when matched/input characters is above it. */
  cacheThreshold: z.number().min(0).max(1).default(0.3),
  /** `--balance-abs-threshold`: imbalanced needs max − min in-flight load above this … */
  balanceAbsThreshold: z.int().min(0).default(64),
  /** `--balance-rel-threshold`: … and max above this × min. */
  balanceRelThreshold: z.number().min(0).default(1.5),
  /** `--eviction-interval` (seconds): how often the caller runs the tree's LRU eviction. */
  evictionIntervalSecs: z.number().min(0).default(120),
  /** `--max-tree-size`: characters each worker may keep in the tree after an eviction. */
  maxTreeSize: z.int().min(0).default(67108864),
});
export type CacheAwareOptions = z.infer<typeof CacheAwareOptionsSchema>;

export const KvAwareOptionsSchema = z.strictObject({
  /** `--kv-overlap-score-weight`: weight of the prefill blocks in the cost (0 = pure load balance). */
  overlapScoreWeight: z.number().min(0).default(1),
  /** `--router-temperature`: 0 takes the lowest cost; above 0 softmax-samples over normalised costs. */
  temperature: z.number().min(0).default(0),
  /** `--kv-cache-block-size`: tokens per KV block; must match the engines' page size. */
  blockSize: z.int().min(1).default(16),
  /**
   * `--kv-events`: overlaps come from the engines' own block hashes (what `infx sim serve` reports); off
   * (`--no-kv-events`), from the router's own routing history, each entry expiring after `ttlSecs`.
   */
  kvEvents: z.boolean().default(true),
  /** `--router-ttl-secs`: how long a routed block counts as cached on its worker without KV events. */
  ttlSecs: z.number().positive().default(120),
});
export type KvAwareOptions = z.infer<typeof KvAwareOptionsSchema>;

export const RouterOptionsSchema = z.strictObject({
  policy: RouterPolicyNameSchema.default('round-robin'),
  hashFlavor: HashFlavorSchema.default('smg'),
  /** Seed of every random choice (random, power of two, SMG's keyless fallback, kv-aware sampling). */
  seed: z.int().min(0).max(0xffffffff).default(0),
  cacheAware: CacheAwareOptionsSchema.prefault({}),
  kvAware: KvAwareOptionsSchema.prefault({}),
});
export type RouterOptions = z.infer<typeof RouterOptionsSchema>;
export type RouterOptionsInput = z.input<typeof RouterOptionsSchema>;

/**
 * Why a request got no worker: there are none, none is healthy, or SMG's `X-SMG-Target-Worker` named a
 * worker that is missing or unhealthy (that request fails rather than going elsewhere).
 */
export const NO_WORKER_REASONS = ['no-workers', 'no-healthy-worker', 'target-worker-unavailable'] as const;
export const NoWorkerReasonSchema = z.enum(NO_WORKER_REASONS);
export type NoWorkerReason = z.infer<typeof NoWorkerReasonSchema>;

/** What a policy believes the chosen worker already holds of a request: characters or KV blocks. */
export const EstimatedHitSchema = z.strictObject({
  unit: z.enum(['chars', 'blocks']),
  matched: z.number().min(0),
  total: z.number().min(0),
});
export type EstimatedHit = z.infer<typeof EstimatedHitSchema>;

export const RouterWorkerMetricsSchema = z.strictObject({
  url: z.string(),
  healthy: z.boolean(),
  /** Requests in flight now (the router's load counter). */
  load: z.int().min(0),
  /** Requests routed to this worker since the router started. */
  requests: z.int().min(0),
  completed: z.int().min(0),
  failed: z.int().min(0),
  /** Sums of the policy's estimates over routed requests; null for policies that estimate nothing. */
  estimatedHits: EstimatedHitSchema.nullable(),
});
export type RouterWorkerMetrics = z.infer<typeof RouterWorkerMetricsSchema>;

export const RouterMetricsSchema = z.strictObject({
  schemaVersion: z.literal(1),
  policy: RouterPolicyNameSchema,
  hashFlavor: HashFlavorSchema.nullable(),
  seed: z.int(),
  workers: z.array(RouterWorkerMetricsSchema),
  /** Requests that got no worker, by reason. */
  noWorker: z.strictObject({
    'no-workers': z.int().min(0),
    'no-healthy-worker': z.int().min(0),
    'target-worker-unavailable': z.int().min(0),
  }),
});
export type RouterMetrics = z.infer<typeof RouterMetricsSchema>;

/**
 * What a pool of engines that routes internally (the simulated engine's aggregated and disaggregated pools)
 * hands the router code for one request: the router side (src/router/pool-router.ts) knows the policies,
 * the engine side only asks for an index.
 */
export interface PoolRoute {
  /** Header names lowercased. */
  headers: Readonly<Record<string, string>>;
  body: unknown;
  rawBody: string;
  /** The prompt, or the chat messages' text: what cache-aware matches prefixes over. */
  text: string;
  /** Hashes of the prompt's KV blocks, when the engine tokenized it. */
  blockHashes?: readonly string[];
  inputTokens: number;
}

/** Whether engine `engine` of a pool holds the KV block of prefix hash `hash` now (KV events). */
export type PoolBlockSource = (engine: number, hash: string) => boolean;

export interface PoolRouter {
  /** The policy's name, for /v1/models. */
  readonly name: string;
  /** The engine (0 … engines − 1) for request `id`; `route` is null for a request with no HTTP behind it. */
  pick(id: string, route: PoolRoute | null): number;
  /** Request `id` produced its first token on the engine picked. */
  firstToken(id: string): void;
  /** Request `id` left the engine picked (finished or aborted). */
  done(id: string): void;
}
