import { type Command, Option } from 'commander';
import { simEvalAnswers } from '../evals/answer-table.ts';
import { createPoolRouter, defaultPoolPolicy, POOL_LEAST_LOADED } from '../router/pool-router.ts';
import { PRECISIONS, type Precision } from '../schema/catalog.ts';
import { HASH_FLAVORS, type HashFlavor, ROUTER_POLICIES, type RouterPolicyName } from '../schema/router.ts';
import type { SimSetup } from '../sim/engine/config.ts';
import { specOfFlags } from '../sim/engine/spec-recipe.ts';
import { startSimServer } from '../sim/serve/server.ts';
import { serveSetup } from '../sim/serve/setup-from.ts';
import { loadTokenizer } from '../workload/tokenizers.ts';
import { numberIn, parseIntArg, positiveInt } from './common.ts';
import { reportError } from './errors.ts';
import type { CliIO } from './io.ts';
import { untilSignal } from './signals.ts';

/** `infx sim serve`: the simulated engine behind an OpenAI-compatible API. */

const positive = numberIn(0, Number.POSITIVE_INFINITY, true);

interface ServeFlags {
  point?: string;
  model?: string;
  hardware?: string;
  tp?: number;
  ep?: number;
  pp?: number;
  dpAttn?: boolean;
  precision?: Precision;
  kvPrecision?: Precision;
  gpuMemoryUtilization?: number;
  maxNumSeqs?: number;
  maxNumBatchedTokens?: number;
  prefixCaching?: boolean;
  kvOffloadDramGb?: number;
  hostKvGbps?: number;
  specDecoding?: 'mtp' | 'draft_model';
  draftTokens?: number;
  acceptanceLength?: number;
  timeScale: number;
  seed: number;
  port: number;
  host: string;
  servedModelName?: string;
  maxModelLen?: number;
  faultNoStart?: boolean;
  faultHang?: boolean;
  faultCrashAfter?: number;
  routerPolicy?: RouterPolicyName | typeof POOL_LEAST_LOADED;
  hashFlavor?: HashFlavor;
  accuracy?: number;
  evalDataset?: string;
}

/** Flags as engine settings (the setup itself is assembled in src/sim/serve/setup-from.ts). */
function overridesOf(f: ServeFlags): Partial<SimSetup> {
  return {
    ...(f.model ? { model: f.model } : {}),
    ...(f.hardware ? { hardware: f.hardware } : {}),
    ...(f.tp ? { tp: f.tp } : {}),
    ...(f.ep ? { ep: f.ep } : {}),
    ...(f.pp ? { pp: f.pp } : {}),
    ...(f.dpAttn ? { dpAttn: true } : {}),
    ...(f.precision ? { precision: f.precision } : {}),
    ...(f.kvPrecision ? { kvPrecision: f.kvPrecision } : {}),
    ...(f.gpuMemoryUtilization ? { gpuMemoryUtilization: f.gpuMemoryUtilization } : {}),
    ...(f.maxNumSeqs ? { maxNumSeqs: f.maxNumSeqs } : {}),
    ...(f.maxNumBatchedTokens ? { maxNumBatchedTokens: f.maxNumBatchedTokens } : {}),
    ...(f.prefixCaching ? { prefixCaching: true } : {}),
    ...(f.kvOffloadDramGb ? { kvOffloadDramGb: f.kvOffloadDramGb } : {}),
    ...(f.hostKvGbps ? { hostKvGbps: f.hostKvGbps } : {}),
    ...(f.specDecoding !== undefined
      ? {
          spec: specOfFlags(f.specDecoding, f.draftTokens, f.acceptanceLength),
        }
      : {}),
    seed: f.seed,
  };
}

export function registerSimServe(sim: Command, io: CliIO, setExit: (code: number) => void): void {
  sim
    .command('serve')
    .description(
      'serve a simulated inference engine (OpenAI-compatible, vLLM-style /metrics); prints "listening on URL" ' +
        'and runs until SIGINT/SIGTERM',
    )
    .option('--point <row.json>', 'take model, hardware, precision and parallelism from a matrix row')
    .option('--model <name>', 'model id or config prefix (src/catalog/models.ts)')
    .option('--hardware <name>', 'accelerator or runner label (src/catalog/accelerators.ts)')
    .option('--tp <n>', 'tensor parallelism', positiveInt)
    .option('--ep <n>', 'expert parallelism', positiveInt)
    .option('--pp <n>', 'pipeline parallelism', positiveInt)
    .option('--dp-attn', 'data-parallel attention')
    .addOption(new Option('--precision <p>', 'weight precision (default bf16)').choices(PRECISIONS))
    .addOption(new Option('--kv-precision <p>', 'KV-cache precision').choices(PRECISIONS))
    .option(
      '--gpu-memory-utilization <f>',
      'fraction of GPU memory the engine may use (default 0.9)',
      positive,
    )
    .option('--max-num-seqs <n>', 'most requests in the running batch (default 256)', positiveInt)
    .option('--max-num-batched-tokens <n>', 'most tokens per engine step (default 8192)', positiveInt)
    .option('--prefix-caching', 'reuse KV blocks of shared prompt prefixes')
    .option(
      '--kv-offload-dram-gb <gb>',
      'host DRAM (GB) for a KV tier under the prefix cache, as kv-offloading: dram (needs --prefix-caching)',
      positive,
    )
    .option(
      '--host-kv-gbps <gbps>',
      'host-link bandwidth per GPU for KV copies (default 50, PCIe Gen5)',
      positive,
    )
    .addOption(new Option('--spec-decoding <method>', 'speculative decoding').choices(['mtp', 'draft_model']))
    .option('--draft-tokens <k>', 'tokens drafted per step (default 3)', positiveInt)
    .option(
      '--acceptance-length <al>',
      'mean tokens accepted per step, bonus included (default 2.5 at 3 drafts, the same per-draft acceptance at others)',
      positive,
    )
    .option('--time-scale <s>', 'run S times faster than real time', positive, 1)
    .option('--seed <n>', 'seed of the acceptance draws and of the simulated eval answers', parseIntArg, 0)
    .option(
      '--accuracy <p>',
      'answer eval prompts from --eval-dataset right with this simulated probability (0 to 1), per question under --seed',
      numberIn(0, 1),
    )
    .option('--eval-dataset <file>', 'GSM8K JSONL whose questions --accuracy answers (its gold answers)')
    .option('--port <port>', 'port (0: any free port)', parseIntArg, 8000)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option(
      '--served-model-name <name>',
      "model name clients must send; others get 404, as from vLLM (default: --model as given, or the row's model)",
    )
    .option(
      '--max-model-len <n>',
      'longest prompt + output accepted (default the model context)',
      positiveInt,
    )
    .addOption(
      new Option(
        '--router-policy <policy>',
        'the router code in front of a pool of engines (an aggregated or disaggregated --point row); default cache-aware for aggregated pools, consistent-hash (vllm) for prefill and decode pools',
      ).choices([...ROUTER_POLICIES, POOL_LEAST_LOADED]),
    )
    .addOption(
      new Option('--hash-flavor <flavor>', 'with --router-policy consistent-hash').choices(HASH_FLAVORS),
    )
    .option('--fault-no-start', 'fault injection: fail at start-up, as an engine that runs out of memory')
    .option('--fault-hang', 'fault injection: start but never answer, as an engine stuck loading')
    .option(
      '--fault-crash-after <n>',
      'fault injection: die (SIGKILL) after N completed requests, warmup included',
      positiveInt,
    )
    .action(async (flags: ServeFlags) => {
      try {
        const { setup, servedName } = await serveSetup(flags, overridesOf(flags));
        const evalAnswers = simEvalAnswers(flags);
        if (flags.faultNoStart) {
          io.stderr('error: simulated start-up failure (--fault-no-start): CUDA out of memory\n');
          setExit(1);
          return;
        }
        if (flags.faultHang) {
          io.stderr('loading weights (--fault-hang: this engine never becomes ready)\n');
          const alive = setInterval(() => {}, 60_000); // nothing else keeps the process up
          await untilSignal();
          clearInterval(alive);
          return;
        }
        let finished = 0;
        const crashAfter = flags.faultCrashAfter;
        const tokenizer = await loadTokenizer();
        const server = await startSimServer({
          setup,
          timeScale: flags.timeScale,
          port: flags.port,
          host: flags.host,
          tokenize: tokenizer.encode,
          servedModelName: flags.servedModelName ?? servedName,
          ...(flags.maxModelLen ? { maxModelLen: flags.maxModelLen } : {}),
          log: (line) => io.stderr(`${line}\n`),
          poolRouter: (pool, engines, blocks) => {
            if (flags.routerPolicy === POOL_LEAST_LOADED) return null;
            const options = flags.routerPolicy
              ? { policy: flags.routerPolicy, ...(flags.hashFlavor ? { hashFlavor: flags.hashFlavor } : {}) }
              : defaultPoolPolicy(pool);
            return createPoolRouter({ ...options, seed: flags.seed }, engines, blocks);
          },
          ...(evalAnswers ? { evalAnswers } : {}),
          ...(crashAfter
            ? {
                onRequestFinished: () => {
                  if (++finished < crashAfter) return;
                  io.stderr(`fault injection: crashing after ${finished} requests (--fault-crash-after)\n`);
                  process.kill(process.pid, 'SIGKILL');
                },
              }
            : {}),
        });
        io.stdout(`listening on ${server.url}\n`);
        await untilSignal();
        await server.close();
      } catch (err) {
        setExit(reportError(err, io));
      }
    });
}
