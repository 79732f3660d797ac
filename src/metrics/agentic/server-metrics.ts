import type { InferencexAgenticServerMetrics } from '../../schema/agentic-metrics.ts';
import { InfxError } from '../../schema/errors.ts';
import { type PromSample, type PromScrape, parsePrometheusText, seriesKey } from './prometheus-text.ts';

/**
 * The server-metrics block of the AgentX aggregate (client-metrics-spec §7.5) from two scrapes of the
 * engine's `/metrics`, at the start and at the end of the profiling phase: counters are the difference
 * between them (so warmup traffic never counts, as the reference ignores `warmup_metrics`), summed over
 * series; gauges are the end scrape's, the max over series. Rates are hits / queries, null where the
 * server does not measure them or nothing was queried. Values are unrounded: the §7.6 writer rounds.
 *
 * Metric names: vLLM's `vllm:prefix_cache_{queries,hits}`, `vllm:external_prefix_cache_{queries,hits}`
 * (the KV connector: CPU/DRAM offloading), `vllm:prompt_tokens_by_source{source}` (which wins when present,
 * §7.5), `vllm:kv_offload_total_{bytes,time}{transfer_type}`; SGLang's `sglang:prompt_tokens`,
 * `sglang:cached_tokens` (split by a `device`/`host` label value under HiCache), `sglang:token_usage`,
 * `sglang:realtime_tokens{mode=prefill_compute}`, `sglang:max_total_num_tokens` and
 * `sglang:hicache_host_{used,total}_tokens`. A counter may carry the `_total` suffix or not.
 */

export class ServerMetricsError extends InfxError {
  override name = 'ServerMetricsError';
}

export type ServerMetricsAdapter = 'vllm' | 'sglang';

export interface ServerMetricsOptions {
  /**
   * GPU KV capacity from the server's logs (vllmGpuKvTokensFromLogs); it overrides the metric-derived one,
   * as in the reference. vLLM exposes none in /metrics, so without it `gpu_total_tokens` is null there.
   */
  gpuTotalTokensFromLogs?: number | null;
}

type Labels = Readonly<Record<string, string>>;
type Filter = (labels: Labels) => boolean;
const all: Filter = () => true;

/** Lookups over the end scrape, counters as deltas from the start scrape. */
class Window {
  private readonly start = new Map<string, number>();

  constructor(
    before: PromScrape | null,
    private readonly end: PromScrape,
  ) {
    for (const s of before?.samples ?? []) this.start.set(seriesKey(s), s.value);
  }

  private series(base: string, filter: Filter): PromSample[] {
    return this.end.samples.filter(
      (s) => (s.name === base || s.name === `${base}_total`) && filter(s.labels),
    );
  }

  /** Σ over series of end − start (a series that went down was reset: its end value); null: no series. */
  counter(base: string, filter: Filter = all): number | null {
    const ss = this.series(base, filter);
    if (ss.length === 0) return null;
    let sum = 0;
    for (const s of ss) {
      const d = s.value - (this.start.get(seriesKey(s)) ?? 0);
      sum += d < 0 ? s.value : d;
    }
    return sum;
  }

  /** Counter deltas per value of one label. */
  counterBy(base: string, label: string): Record<string, number> | null {
    const ss = this.series(base, (l) => label in l);
    if (ss.length === 0) return null;
    const out: Record<string, number> = {};
    for (const v of new Set(ss.map((s) => s.labels[label]!))) {
      out[v] = this.counter(base, (l) => l[label] === v) ?? 0;
    }
    return out;
  }

  gaugeMax(base: string, filter: Filter = all): number | null {
    const ss = this.series(base, filter);
    return ss.length === 0 ? null : Math.max(...ss.map((s) => s.value));
  }

  gaugeSum(base: string): number | null {
    const ss = this.series(base, all);
    return ss.length === 0 ? null : ss.reduce((a, s) => a + s.value, 0);
  }
}

const ratio = (num: number | null, den: number | null) =>
  num === null || den === null || !(den > 0) ? null : num / den;
/** §7.5: a fraction above 1.5 was a percentage. */
const fraction = (v: number | null) => (v === null ? null : v > 1.5 ? v / 100 : v);

/** §7.5's detection order; dynamo-vllm and atom are the reference's too, not read here yet. */
export function detectAdapter(scrape: PromScrape): ServerMetricsAdapter | null {
  const names = scrape.samples.map((s) => s.name);
  if (names.length === 0) return null;
  if (names.some((n) => n.startsWith('dynamo_'))) {
    throw new ServerMetricsError('Dynamo server metrics (dynamo_*) are not read by infx yet');
  }
  if (names.some((n) => n.startsWith('atom:') || n.startsWith('atom_'))) {
    throw new ServerMetricsError('ATOM server metrics (atom:*) are not read by infx yet');
  }
  if (names.some((n) => n.startsWith('sglang:'))) return 'sglang';
  if (names.some((n) => n.startsWith('vllm:'))) return 'vllm';
  throw new ServerMetricsError(
    `Unsupported agentic server metrics backend: no vllm: or sglang: metric among ${names.length} samples ` +
      `(first: ${names[0]})`,
  );
}

/** Metric families in a scrape (a counter's `_total` and `_created` samples are one family). */
function familyCount(scrape: PromScrape): number {
  const families = new Set<string>();
  for (const { name } of scrape.samples) {
    const base = name.replace(/_(total|created|bucket|sum|count)$/, '');
    families.add(scrape.types.has(name) || !scrape.types.has(base) ? name : base);
  }
  return families.size;
}

function empty(adapter: ServerMetricsAdapter, metricCount: number): InferencexAgenticServerMetrics {
  return blankServerMetrics({ present: true, adapter, metric_count: metricCount });
}

/** A server-metrics block with every figure unmeasured (null): the shape both a scrape and its absence start from. */
export function blankServerMetrics(
  head: Pick<InferencexAgenticServerMetrics, 'present' | 'adapter' | 'metric_count'>,
): InferencexAgenticServerMetrics {
  return {
    ...head,
    cache: {
      gpu_cache_hit_rate: null,
      cpu_cache_hit_rate: null,
      external_cache_hit_rate: null,
      overall_cache_hit_rate: null,
      prefix_cache_hits: null,
      prefix_cache_queries: null,
      external_prefix_cache_hits: null,
      external_prefix_cache_queries: null,
      cached_tokens_by_source: null,
      frontend_cache_hit_rate: null,
      router_kv_hit_rate: null,
      router_shared_cache_hit_rate: null,
      frontend_cached_tokens: null,
      frontend_input_tokens: null,
    },
    kv_cache: {
      gpu_usage_pct: null,
      gpu_total_tokens: null,
      cpu_usage_pct: null,
      cpu_used_tokens: null,
      cpu_total_tokens: null,
    },
    kv_offload: {
      bytes_gpu_to_cpu: null,
      bytes_cpu_to_gpu: null,
      time_gpu_to_cpu: null,
      time_cpu_to_gpu: null,
      bandwidth_gpu_to_cpu_bytes_per_second: null,
      bandwidth_cpu_to_gpu_bytes_per_second: null,
    },
    tokens: {
      prompt_total: null,
      generation_total: null,
      requests_completed: null,
      prompt_by_source: { gpu_cache_hit: null, cpu_or_external_cache_hit: null, computed: null, raw: null },
    },
    sources: [],
  };
}

function vllm(w: Window, out: InferencexAgenticServerMetrics): void {
  const c = out.cache;
  c.prefix_cache_hits = w.counter('vllm:prefix_cache_hits');
  c.prefix_cache_queries = w.counter('vllm:prefix_cache_queries');
  c.external_prefix_cache_hits = w.counter('vllm:external_prefix_cache_hits');
  c.external_prefix_cache_queries = w.counter('vllm:external_prefix_cache_queries');
  c.gpu_cache_hit_rate = ratio(c.prefix_cache_hits, c.prefix_cache_queries);
  c.external_cache_hit_rate = ratio(c.external_prefix_cache_hits, c.external_prefix_cache_queries);
  c.cpu_cache_hit_rate = c.external_cache_hit_rate;
  // With no connector there is one tier: overall is the GPU rate. With one, only by-source can combine them.
  c.overall_cache_hit_rate = c.external_prefix_cache_queries === null ? c.gpu_cache_hit_rate : null;
  const bySource = w.counterBy('vllm:prompt_tokens_by_source', 'source');
  if (bySource) {
    const local = bySource.local_cache_hit ?? 0;
    const external = bySource.external_kv_transfer ?? 0;
    const raw = Object.values(bySource).reduce((a, v) => a + v, 0);
    c.cached_tokens_by_source = bySource;
    c.gpu_cache_hit_rate = ratio(local, raw);
    c.cpu_cache_hit_rate = ratio(external, raw);
    c.external_cache_hit_rate = c.cpu_cache_hit_rate;
    c.overall_cache_hit_rate = ratio(local + external, raw);
    out.tokens.prompt_by_source = {
      gpu_cache_hit: local,
      cpu_or_external_cache_hit: external,
      computed: bySource.local_compute ?? null,
      raw,
    };
  }
  out.kv_cache.gpu_usage_pct = fraction(w.gaugeMax('vllm:kv_cache_usage_perc'));
  const dir = (d: string) => (l: Labels) => (l.transfer_type ?? '').toLowerCase() === d;
  const o = out.kv_offload;
  o.bytes_gpu_to_cpu = w.counter('vllm:kv_offload_total_bytes', dir('gpu_to_cpu'));
  o.bytes_cpu_to_gpu = w.counter('vllm:kv_offload_total_bytes', dir('cpu_to_gpu'));
  o.time_gpu_to_cpu = w.counter('vllm:kv_offload_total_time', dir('gpu_to_cpu'));
  o.time_cpu_to_gpu = w.counter('vllm:kv_offload_total_time', dir('cpu_to_gpu'));
  o.bandwidth_gpu_to_cpu_bytes_per_second = ratio(o.bytes_gpu_to_cpu, o.time_gpu_to_cpu);
  o.bandwidth_cpu_to_gpu_bytes_per_second = ratio(o.bytes_cpu_to_gpu, o.time_cpu_to_gpu);
  out.tokens.prompt_total = w.counter('vllm:prompt_tokens');
  out.tokens.generation_total = w.counter('vllm:generation_tokens');
  out.tokens.requests_completed = w.counter('vllm:request_success');
}

/** SGLang's cache-source label value of a series: `device`/`host` under HiCache; unlabelled is device. */
function cacheSource(l: Labels): 'device' | 'host' {
  return Object.values(l).some((v) => v.toLowerCase() === 'host') ? 'host' : 'device';
}

function sglang(w: Window, out: InferencexAgenticServerMetrics): void {
  const prompt = w.counter('sglang:prompt_tokens');
  const device = w.counter('sglang:cached_tokens', (l) => cacheSource(l) === 'device');
  const host = w.counter('sglang:cached_tokens', (l) => cacheSource(l) === 'host');
  const c = out.cache;
  const cached = device === null && host === null ? null : (device ?? 0) + (host ?? 0);
  c.prefix_cache_hits = cached;
  c.prefix_cache_queries = prompt;
  c.gpu_cache_hit_rate = ratio(device, prompt);
  c.cpu_cache_hit_rate = ratio(host, prompt);
  c.external_cache_hit_rate = c.cpu_cache_hit_rate;
  c.overall_cache_hit_rate = ratio(cached, prompt);
  if (cached !== null)
    c.cached_tokens_by_source = { device: device ?? 0, ...(host !== null ? { host } : {}) };
  const k = out.kv_cache;
  k.gpu_usage_pct = fraction(w.gaugeMax('sglang:token_usage'));
  k.gpu_total_tokens = w.gaugeSum('sglang:max_total_num_tokens');
  k.cpu_used_tokens = w.gaugeSum('sglang:hicache_host_used_tokens');
  k.cpu_total_tokens = w.gaugeSum('sglang:hicache_host_total_tokens');
  k.cpu_usage_pct = ratio(k.cpu_used_tokens, k.cpu_total_tokens);
  out.tokens.prompt_total = prompt;
  out.tokens.generation_total = w.counter('sglang:generation_tokens');
  out.tokens.requests_completed = w.counter('sglang:num_requests');
  out.tokens.prompt_by_source = {
    gpu_cache_hit: device,
    cpu_or_external_cache_hit: host,
    computed: w.counter('sglang:realtime_tokens', (l) => l.mode === 'prefill_compute'),
    raw: prompt,
  };
}

/**
 * The server-metrics block over the profiling phase from the `/metrics` text scraped at its start
 * (`before`; null: the server's counters are taken as starting from zero) and at its end (`after`).
 * Null when there is nothing to read (no end scrape, or an empty one): the §7.6 writer then reports
 * `present: false` with token totals from the records. Throws ServerMetricsError for a backend it cannot
 * read (§7.5: metrics present but no adapter is a hard error).
 */
export function serverCacheMetrics(
  before: string | null,
  after: string | null,
  opts: ServerMetricsOptions = {},
): InferencexAgenticServerMetrics | null {
  if (after === null) return null;
  const end = parsePrometheusText(after);
  const adapter = detectAdapter(end);
  if (adapter === null) return null;
  const w = new Window(before === null ? null : parsePrometheusText(before), end);
  const out = empty(adapter, familyCount(end));
  if (adapter === 'vllm') vllm(w, out);
  else sglang(w, out);
  const logTokens = opts.gpuTotalTokensFromLogs;
  if (logTokens !== undefined && logTokens !== null) out.kv_cache.gpu_total_tokens = logTokens;
  return out;
}

/**
 * vLLM's GPU KV capacity from its logs (§7.5): "GPU KV cache size: N tokens" lines, the last per
 * `EngineCore[_DPk]` tag of each log (untagged lines each count), summed over tags and logs; null when
 * no log has one.
 */
export function vllmGpuKvTokensFromLogs(logs: readonly string[]): number | null {
  let total: number | null = null;
  for (const log of logs) {
    const perEngine = new Map<string, number>();
    for (const line of log.split('\n')) {
      const m = /GPU KV cache size: ([\d,]+) tokens/.exec(line);
      if (!m) continue;
      // An untagged line is an engine of its own (spec case 19: two such lines in one log both count).
      const tag = /\b(EngineCore(?:_DP\d+)?)\b/.exec(line)?.[1] ?? `line ${perEngine.size}`;
      perEngine.set(tag, Number(m[1]!.replaceAll(',', '')));
    }
    for (const v of perEngine.values()) total = (total ?? 0) + v;
  }
  return total;
}
