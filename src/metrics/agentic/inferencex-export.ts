import type {
  AgenticInteractivity,
  AgenticMetrics,
  AgenticStats,
  InferencexAgenticAggregate,
  InferencexAgenticServerMetrics,
  InferencexAgenticStatBlock,
} from '../../schema/agentic-metrics.ts';
import { roundDeep } from './round.ts';
import { blankServerMetrics } from './server-metrics.ts';

/**
 * The reference's AgentX aggregate (client-metrics-spec §7.6) from infx's agentic block, so the
 * reference's processors read infx runs unchanged: latencies in seconds, its field names, and every float
 * rounded to 5 decimals. Where infx says null the reference wrote what its code writes: a latency or token
 * distribution of no values is all zeros (its empty list gives 0, §4.1), an interactivity statistic whose
 * time per token is not positive is left out, and an empty e2e_norm_intvty, qps or throughput is `{}`.
 */

/** The setup fields of the aggregate: the job's identity, which the caller reads from its environment. */
export type InferencexAgenticIdentity = Omit<
  InferencexAgenticAggregate,
  | 'scenario_type'
  | 'num_requests_total'
  | 'num_requests_successful'
  | 'request_accounting'
  | 'request_metrics'
  | 'server_metrics'
  | 'kv_cache_pool_tokens'
  | 'warnings'
>;

export const SERVER_METRICS_MISSING = 'server_metrics_export.json missing or empty';

const STATS = ['mean', 'p50', 'p75', 'p90', 'p95', 'std'] as const;

/** A distribution, scaled (ms → s with 1/1000); all zeros when it had no values. */
function distribution(s: AgenticStats, scale = 1): InferencexAgenticStatBlock {
  const out: InferencexAgenticStatBlock = {};
  for (const k of STATS) out[k] = s.count === 0 ? 0 : (s[k] ?? 0) * scale;
  return out;
}

/** Only the statistics that were measured. */
function present(s: AgenticInteractivity): InferencexAgenticStatBlock {
  const out: InferencexAgenticStatBlock = {};
  for (const k of STATS) {
    const v = s[k];
    if (v !== null) out[k] = v;
  }
  return out;
}

/** What the aggregate says when no server metrics were scraped: token totals from the records (§7.5). */
export function serverMetricsAbsent(m: AgenticMetrics): InferencexAgenticServerMetrics {
  const blank = blankServerMetrics({ present: false, adapter: null, metric_count: 0 });
  return {
    ...blank,
    tokens: {
      ...blank.tokens,
      prompt_total: m.tokens.totalInput,
      generation_total: m.tokens.totalOutput,
      requests_completed: m.accounting.recordsProfiled,
    },
  };
}

function requestMetrics(m: AgenticMetrics): InferencexAgenticAggregate['request_metrics'] {
  const ms = 1 / 1000;
  const q = m.qps;
  const qps: InferencexAgenticAggregate['request_metrics']['qps'] =
    q === null
      ? {}
      : q.samples === 0
        ? { window_seconds: 1, samples: 0, mean: q.mean }
        : {
            window_seconds: 1,
            samples: q.samples,
            mean: q.mean,
            p50: q.p50 ?? 0,
            p75: q.p75 ?? 0,
            p90: q.p90 ?? 0,
            p95: q.p95 ?? 0,
            std: q.std ?? 0,
          };
  const t = m.throughput;
  return {
    qps,
    latency: {
      ttft: distribution(m.latency.ttftMs, ms),
      e2el: distribution(m.latency.e2elMs, ms),
      itl: distribution(m.latency.itlMs, ms),
      tpot: distribution(m.latency.tpotMs, ms),
      intvty: present(m.interactivity.intvty),
      e2e_norm_intvty: present(m.interactivity.e2eNormIntvty),
      full_response_itl: distribution(m.latency.fullResponseItlMs, ms),
      full_response_intvty: present(m.interactivity.fullResponseIntvty),
    },
    tokens: {
      input: distribution(m.tokens.input),
      output_actual: distribution(m.tokens.outputActual),
      output_expected: distribution(m.tokens.outputExpected),
    },
    throughput:
      t === null
        ? {}
        : {
            input: { tokens_per_second: t.inputTokensPerS },
            output: { tokens_per_second: t.outputTokensPerS },
            total: { tokens_per_second: t.totalTokensPerS },
            duration_seconds: t.durationS,
            // Without a GPU count the reference would not have run; 0 marks "not known" in its numbers-only shape.
            per_gpu: {
              total_tput_tps: t.perGpu.total ?? 0,
              output_tput_tps: t.perGpu.output ?? 0,
              input_tput_tps: t.perGpu.input ?? 0,
            },
          },
    cache: { theoretical_cache_hit_rate: m.cache.theoreticalCacheHitRate },
  };
}

/**
 * The §7.6 file. `serverMetrics` is what the /metrics scraper produced over the profiling phase, or null
 * when nothing was scraped (then `present: false` and the token totals come from the records).
 */
export function toInferencexAgentic(
  m: AgenticMetrics,
  identity: InferencexAgenticIdentity,
  serverMetrics: InferencexAgenticServerMetrics | null,
  warnings: readonly string[] = [],
): InferencexAgenticAggregate {
  const server = serverMetrics ?? serverMetricsAbsent(m);
  const allWarnings = serverMetrics === null ? [...warnings, SERVER_METRICS_MISSING] : [...warnings];
  const a = m.accounting;
  return roundDeep({
    ...identity,
    scenario_type: 'agentic-coding',
    num_requests_total: a.recordsTotal,
    num_requests_successful: a.recordsProfiled,
    request_accounting: {
      records_total: a.recordsTotal,
      records_profiled: a.recordsProfiled,
      records_dropped_total: a.recordsDroppedTotal,
      records_warmup_dropped: a.recordsWarmupDropped,
      records_error_dropped: a.recordsErrorDropped,
      error_categories: { ...a.errorCategories },
    },
    request_metrics: requestMetrics(m),
    server_metrics: server,
    kv_cache_pool_tokens: server.kv_cache.gpu_total_tokens,
    ...(allWarnings.length > 0 ? { warnings: allWarnings } : {}),
  });
}
