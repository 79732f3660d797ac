import type { Command } from 'commander';
import { loadProgressReporter } from '../client/progress.ts';
import {
  type AgenticBenchOptions,
  agenticCorpusFiles,
  runAgenticBenchLocked,
} from '../sweep/bench-agentic.ts';
import { formatAgenticSummary } from '../sweep/bench-agentic-format.ts';
import { parseMaxContext } from '../workload/agentic/max-context.ts';
import { AFFINITY_HEADERS, type AffinityHeader } from '../workload/agentic/replay-ids.ts';
import { nonNegativeInt, numberIn, positiveInt } from './common.ts';
import { reportError } from './errors.ts';
import type { CliIO } from './io.ts';
import { onInterrupt } from './signals.ts';

/** The flags `infx bench --workload agentic` adds (client-metrics §2.5), and its run. */

export interface AgenticFlags {
  traces?: string[];
  public?: string;
  duration?: number;
  fast?: boolean;
  maxContext?: number;
  warmupRequestsPerLane?: number;
  warmupGrace: number;
  benchmarkGrace: number;
  affinityHeaders?: AffinityHeader[];
  failedRequestThreshold: number;
  corpusName?: string;
}

/** The reference's durations: a full run, and agentx-fast's. */
export const AGENTIC_DURATION_S = { full: 3600, fast: 1200 } as const;

function affinityList(value: string, previous: AffinityHeader[] | undefined): AffinityHeader[] {
  const out = [...(previous ?? [])];
  for (const name of value.split(',').map((s) => s.trim().toLowerCase())) {
    if (!(AFFINITY_HEADERS as readonly string[]).includes(name))
      throw new Error(`--affinity-headers: '${name}' is not one of ${AFFINITY_HEADERS.join(', ')}`);
    out.push(name as AffinityHeader);
  }
  return out;
}

export function addAgenticOptions(command: Command): Command {
  return command
    .option('--traces <file...>', 'agentic: trace corpus files (traces.jsonl; `infx trace synth` writes one)')
    .option(
      '--public <model-prefix>',
      'agentic, instead of --traces: the public corpus the reference replays for this model prefix (1M-context prefixes the 1M one, others the 256k one), from the local Hugging Face cache, never downloaded',
    )
    .option(
      '--duration <s>',
      `agentic: the profiling phase, seconds (default ${AGENTIC_DURATION_S.full}; --fast ${AGENTIC_DURATION_S.fast}); simulated seconds against a simulated engine`,
      positiveInt,
    )
    .option('--fast', `agentic: agentx-fast (${AGENTIC_DURATION_S.fast} s, one warmup request per lane)`)
    .option(
      '--max-context <n>',
      'agentic: leave out traces needing a longer context (e.g. 256k, 1M)',
      parseMaxContext,
    )
    .option(
      '--warmup-requests-per-lane <n>',
      'agentic: one-token requests each lane sends after its start point (default 10; --fast 1)',
      nonNegativeInt,
    )
    .option('--warmup-grace <s>', 'agentic: how long warmup may take to drain', positiveInt, 1800)
    .option(
      '--benchmark-grace <s>',
      'agentic: in-flight requests may finish this long after the duration',
      positiveInt,
      30,
    )
    .option(
      '--affinity-headers <names>',
      `agentic: also send the correlation id as these headers (${AFFINITY_HEADERS.join(', ')})`,
      affinityList,
    )
    .option(
      '--failed-request-threshold <r>',
      'agentic: the live error gate: the run is cancelled above this profiling error ratio',
      numberIn(0, 1),
      0.1,
    )
    .option(
      '--corpus-name <name>',
      "agentic: the corpus's name in the result (default: the public corpus's loader name, or the first file's name)",
    );
}

interface SharedFlags {
  baseUrl: string;
  model: string;
  concurrency: number[];
  gpus?: number;
  prefillGpus?: number;
  decodeGpus?: number;
  seed: number;
  timeout: number;
  tokenizer?: string;
  out: string;
  format: 'infx' | 'inferencex';
  accelerator: string;
  framework: string;
  precision: string;
  modelPrefix?: string;
}

export async function benchAgentic(
  flags: SharedFlags & AgenticFlags,
  io: CliIO,
  version: string,
): Promise<number> {
  if (flags.concurrency.length !== 1) {
    io.stderr('error: --workload agentic runs one --concurrency (users) per run: give one value\n');
    return 2;
  }
  const fast = flags.fast ?? false;
  let corpus: { traces: string[]; corpusName: string };
  try {
    corpus = agenticCorpusFiles(flags);
  } catch (err) {
    return reportError(err, io);
  }
  const options: AgenticBenchOptions = {
    baseUrl: flags.baseUrl,
    models: flags.model
      .split(',')
      .map((m) => m.trim())
      .filter((m) => m !== ''),
    traces: corpus.traces,
    maxContextTokens: flags.maxContext ?? null,
    users: flags.concurrency[0] as number,
    durationS: flags.duration ?? (fast ? AGENTIC_DURATION_S.fast : AGENTIC_DURATION_S.full),
    fast,
    warmupRequestsPerLane: flags.warmupRequestsPerLane ?? (fast ? 1 : 10),
    warmupGraceS: flags.warmupGrace,
    benchmarkGraceS: flags.benchmarkGrace,
    seed: flags.seed,
    timeoutS: flags.timeout,
    gpus: flags.gpus ?? null,
    prefillGpus: flags.prefillGpus ?? null,
    decodeGpus: flags.decodeGpus ?? null,
    tokenizer: flags.tokenizer ?? null,
    affinityHeaders: flags.affinityHeaders ?? [],
    out: flags.out,
    formats: flags.format === 'inferencex' ? ['infx', 'inferencex'] : ['infx'],
    apiKey: process.env.OPENAI_API_KEY ?? null,
    version,
    corpusName: corpus.corpusName,
    labels: {
      accelerator: flags.accelerator,
      framework: flags.framework,
      precision: flags.precision,
      modelPrefix:
        flags.modelPrefix ??
        flags.public ??
        flags.model.split(',')[0]?.split('/').pop()?.toLowerCase() ??
        flags.model,
    },
    failedRequestThreshold: flags.failedRequestThreshold,
  };
  const sink = { write: io.stderr, isTTY: io.stderrIsTTY ?? io.isTTY };
  const interrupt = onInterrupt({
    say: () => io.stderr('\ninterrupted: cancelling requests in flight and writing what was measured\n'),
  });
  try {
    const report = await runAgenticBenchLocked(options, {
      log: (line) => io.stderr(`${line}\n`),
      onLoadProgress: loadProgressReporter(sink, 'infx bench agentic'),
      signal: interrupt.signal,
    });
    // The progress line of a timed phase never ends itself.
    if (sink.isTTY) io.stderr('\n');
    io.stdout(formatAgenticSummary(report.result, report.files));
    if (interrupt.signal.aborted) return 130;
    return report.result.valid ? 0 : 1;
  } catch (err) {
    return reportError(err, io);
  } finally {
    interrupt.dispose();
  }
}
