import { type Command, InvalidArgumentError, Option } from 'commander';
import { DEFAULT_BACKEND_WAIT_MS } from '../router/kv-blocks.ts';
import {
  DEFAULT_HEALTH_INTERVAL_SECS,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_ROUTER_PORT,
  startRouterProxy,
} from '../router/proxy.ts';
import { HASH_FLAVORS, type HashFlavor, ROUTER_POLICIES, type RouterPolicyName } from '../schema/router.ts';
import { requestBlockHasher } from '../sim/serve/prefix-hash.ts';
import { loadTokenizer } from '../workload/tokenizers.ts';
import { nonNegativeInt, numberIn, parseIntArg, positiveInt, reportError } from './common.ts';
import type { CliIO } from './io.ts';
import { untilSignal } from './signals.ts';

/** `infx router`: the streaming proxy of src/router/proxy.ts in front of --backend engines. */

interface RouterFlags {
  policy: RouterPolicyName;
  backend: string[];
  port: number;
  host: string;
  seed: number;
  hashFlavor: HashFlavor;
  cacheThreshold: number;
  balanceAbsThreshold: number;
  balanceRelThreshold: number;
  evictionInterval: number;
  maxTreeSize: number;
  kvOverlapScoreWeight: number;
  routerTemperature: number;
  kvCacheBlockSize: number;
  kvEvents: boolean;
  kvEventsFallback: 'refuse' | 'history';
  backendWait: number;
  routerTtlSecs: number;
  healthInterval: number;
  healthFailureThreshold: number;
  healthSuccessThreshold: number;
  maxBodyMb: number;
}

const nonNegative = numberIn(0);
const positive = numberIn(0, Number.POSITIVE_INFINITY, true);

function parsePort(value: string): number {
  const n = parseIntArg(value);
  if (n < 0 || n > 65535) throw new InvalidArgumentError(`expected a port 0..65535, got '${value}'`);
  return n;
}

const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

export function registerRouter(program: Command, io: CliIO, setExit: (code: number) => void): void {
  program
    .command('router')
    .description(
      'an OpenAI-compatible streaming router in front of --backend engines; prints one "listening on URL" ' +
        'line and runs until SIGINT/SIGTERM (GET /metrics: per-backend load and counters; GET /health)',
    )
    .addOption(
      new Option('--policy <name>', 'routing policy').choices(ROUTER_POLICIES).default('round-robin'),
    )
    .requiredOption('--backend <url>', 'an engine to route to, http://HOST:PORT (repeat for each)', collect)
    .option('--port <port>', 'port to listen on (0: any free port)', parsePort, DEFAULT_ROUTER_PORT)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--seed <n>', 'seed of every random choice', nonNegativeInt, 0)
    .addOption(
      new Option(
        '--hash-flavor <router>',
        "consistent-hash keys and ring: SGLang Model Gateway's (smg) or vllm-router's (vllm)",
      )
        .choices(HASH_FLAVORS)
        .default('smg'),
    )
    .option(
      '--cache-threshold <f>',
      'cache-aware: prefix match rate above which to follow the cache',
      numberIn(0, 1),
      0.3,
    )
    .option(
      '--balance-abs-threshold <n>',
      'cache-aware: imbalance needs max − min load above this',
      nonNegativeInt,
      64,
    )
    .option('--balance-rel-threshold <f>', 'cache-aware: … and max load above this × min', nonNegative, 1.5)
    .option(
      '--eviction-interval <s>',
      'cache-aware: seconds between LRU evictions of the tree (0: never)',
      nonNegative,
      120,
    )
    .option(
      '--max-tree-size <n>',
      'cache-aware: characters each backend keeps in the tree',
      nonNegativeInt,
      67108864,
    )
    .option(
      '--kv-overlap-score-weight <f>',
      'kv-aware: weight of the prefill blocks in the cost',
      nonNegative,
      1,
    )
    .option(
      '--router-temperature <f>',
      'kv-aware: 0 takes the lowest cost, above 0 softmax-samples',
      nonNegative,
      0,
    )
    .option(
      '--kv-cache-block-size <n>',
      "kv-aware: tokens per KV block (the engines' page size)",
      positiveInt,
      16,
    )
    .option(
      '--no-kv-events',
      "kv-aware: predict the backends' caches from the routing history, not KV events",
    )
    .addOption(
      new Option(
        '--kv-events-fallback <mode>',
        'kv-aware with KV events, a backend without GET /infx/kv-blocks: refuse to start, or route on the history',
      )
        .choices(['refuse', 'history'])
        .default('refuse'),
    )
    .option(
      '--backend-wait <s>',
      'kv-aware with KV events: seconds to wait at startup for backends that do not answer yet',
      nonNegative,
      DEFAULT_BACKEND_WAIT_MS / 1000,
    )
    .option(
      '--router-ttl-secs <s>',
      'kv-aware without KV events: seconds a routed block counts as cached',
      positive,
      120,
    )
    .option(
      '--health-interval <s>',
      "seconds between polls of each backend's GET /health (0: never)",
      nonNegative,
      DEFAULT_HEALTH_INTERVAL_SECS,
    )
    .option(
      '--health-failure-threshold <n>',
      'failed polls in a row that mark a backend unhealthy',
      positiveInt,
      3,
    )
    .option(
      '--health-success-threshold <n>',
      'good polls in a row that mark it healthy again',
      positiveInt,
      1,
    )
    .option(
      '--max-body-mb <mb>',
      'largest request body accepted, in MiB (above it: 413)',
      positive,
      DEFAULT_MAX_BODY_BYTES / 1048576,
    )
    .action(async (f: RouterFlags) => {
      try {
        const kvEvents = f.policy === 'kv-aware' && f.kvEvents;
        const blockHashes = kvEvents
          ? requestBlockHasher((await loadTokenizer()).encode, f.kvCacheBlockSize)
          : undefined;
        const proxy = await startRouterProxy({
          ...(blockHashes ? { blockHashes } : {}),
          kvEventsFallback: f.kvEventsFallback,
          backendWaitMs: f.backendWait * 1000,
          backends: f.backend,
          router: {
            policy: f.policy,
            hashFlavor: f.hashFlavor,
            seed: f.seed,
            cacheAware: {
              cacheThreshold: f.cacheThreshold,
              balanceAbsThreshold: f.balanceAbsThreshold,
              balanceRelThreshold: f.balanceRelThreshold,
              evictionIntervalSecs: f.evictionInterval,
              maxTreeSize: f.maxTreeSize,
            },
            kvAware: {
              overlapScoreWeight: f.kvOverlapScoreWeight,
              temperature: f.routerTemperature,
              blockSize: f.kvCacheBlockSize,
              kvEvents: f.kvEvents,
              ttlSecs: f.routerTtlSecs,
            },
          },
          port: f.port,
          host: f.host,
          healthIntervalSecs: f.healthInterval,
          healthFailureThreshold: f.healthFailureThreshold,
          healthSuccessThreshold: f.healthSuccessThreshold,
          maxBodyBytes: Math.floor(f.maxBodyMb * 1048576),
          log: (line) => io.stderr(`${line}\n`),
        });
        const names = proxy.pool.metrics().workers.map((w) => w.url);
        io.stdout(`listening on ${proxy.url} (policy ${f.policy}; backends ${names.join(', ')})\n`);
        await untilSignal();
        await proxy.close();
      } catch (err) {
        setExit(reportError(err, io));
      }
    });
}
