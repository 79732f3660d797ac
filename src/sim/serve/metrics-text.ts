import type { EngineGauges } from '../engine/engine.ts';
import type { Pacer } from '../engine/pacer.ts';
import type { LockstepStats } from './lockstep.ts';

/**
 * How the engine kept to its schedule (`GET /infx/clock`, and /metrics): wall figures about this host,
 * which a client reads before and after it measures to tell whether the engine fell behind meanwhile.
 */
export interface ClockStats {
  time_scale: number;
  /** The engine's clock, ms. */
  now_ms: number;
  steps: number;
  events: number;
  missed_deadlines: number;
  behind_ms: number;
  lockstep_waits: number;
  lockstep_wait_ms: number;
  lockstep_timeouts: number;
}

export function clockStats(pacer: Pacer, g: EngineGauges, lockstep: LockstepStats): ClockStats {
  const s = pacer.stats;
  return {
    time_scale: pacer.timeScale,
    now_ms: pacer.virtualNow(),
    steps: g.stepsTotal,
    events: s.events,
    missed_deadlines: s.missedDeadlines,
    behind_ms: s.behindMs,
    lockstep_waits: lockstep.waits,
    lockstep_wait_ms: lockstep.waitMs,
    lockstep_timeouts: s.holdTimeouts,
  };
}

/** /metrics in Prometheus text format, with vLLM's metric names so existing scrapers read it. */
export function prometheusText(
  g: EngineGauges,
  modelName: string,
  kvCacheTokens: number,
  clock: ClockStats,
): string {
  const model = `model_name="${modelName.replace(/["\\\n]/g, '_')}"`;
  const label = `{${model}}`;
  const lines: string[] = [];
  const metric = (name: string, type: 'gauge' | 'counter', help: string, value: number) => {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, `${name}${label} ${value}`);
  };
  /** One family with a series per value of `key` (vLLM's by-source and by-direction counters). */
  const family = (name: string, help: string, key: string, values: Record<string, number>) => {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} counter`);
    for (const [k, v] of Object.entries(values)) lines.push(`${name}{${model},${key}="${k}"} ${v}`);
  };
  metric('vllm:num_requests_running', 'gauge', 'Requests in the running batch.', g.running);
  metric('vllm:num_requests_waiting', 'gauge', 'Requests waiting to be scheduled.', g.waiting);
  metric('vllm:kv_cache_usage_perc', 'gauge', 'Fraction of KV-cache blocks in use (0-1).', g.kvUsage);
  metric(
    'vllm:prefix_cache_queries_total',
    'counter',
    'Prompt tokens looked up in the prefix cache.',
    g.prefixCacheQueries,
  );
  metric(
    'vllm:prefix_cache_hits_total',
    'counter',
    'Prompt tokens found in the prefix cache.',
    g.prefixCacheHits,
  );
  metric(
    'vllm:gpu_prefix_cache_hit_rate',
    'gauge',
    'Prefix-cache hits / queries since start (0-1).',
    g.prefixCacheHitRate,
  );
  const host = g.hostKv;
  family(
    'vllm:prompt_tokens_by_source_total',
    'Prompt tokens by where their KV came from (admissions after a preemption count again).',
    'source',
    {
      local_compute: g.prefixCacheQueries - g.prefixCacheHits - (host?.hits ?? 0),
      local_cache_hit: g.prefixCacheHits,
      external_kv_transfer: host?.hits ?? 0,
    },
  );
  // As vLLM, the external (KV connector) counters exist only when a connector (here: the DRAM tier) does.
  if (host) {
    metric(
      'vllm:external_prefix_cache_queries_total',
      'counter',
      'Prompt tokens looked up in the host-memory KV tier.',
      host.queries,
    );
    metric(
      'vllm:external_prefix_cache_hits_total',
      'counter',
      'Prompt tokens copied back from the host-memory KV tier.',
      host.hits,
    );
    family('vllm:kv_offload_total_bytes_total', 'KV bytes moved by offloading.', 'transfer_type', {
      GPU_to_CPU: host.bytesGpuToCpu,
      CPU_to_GPU: host.bytesCpuToGpu,
    });
    // The GPU → host copy is taken as overlapped with compute (host-tier.ts): only the reload has a time.
    family('vllm:kv_offload_total_time_total', 'Seconds spent copying KV (simulated).', 'transfer_type', {
      CPU_to_GPU: host.secondsCpuToGpu,
    });
    metric(
      'infx_sim_host_kv_cache_tokens',
      'gauge',
      'Host-memory KV tier capacity in tokens.',
      host.capacityTokens,
    );
    metric(
      'infx_sim_host_kv_cache_used_tokens',
      'gauge',
      'Tokens held in the host-memory KV tier.',
      host.usedTokens,
    );
  }
  metric(
    'vllm:num_preemptions_total',
    'counter',
    'Requests preempted for lack of KV blocks.',
    g.preemptionsTotal,
  );
  metric('vllm:prompt_tokens_total', 'counter', 'Prompt tokens processed.', g.promptTokensTotal);
  metric('vllm:generation_tokens_total', 'counter', 'Tokens generated.', g.generationTokensTotal);
  metric('vllm:request_success_total', 'counter', 'Requests finished.', g.requestsFinishedTotal);
  metric('infx_sim_kv_cache_tokens', 'gauge', 'KV-cache capacity in tokens.', kvCacheTokens);
  metric('infx_sim_virtual_time_seconds', 'gauge', 'Simulated clock.', clock.now_ms / 1000);
  metric('infx_sim_time_scale', 'gauge', 'Simulated seconds per wall second.', clock.time_scale);
  metric('infx_sim_steps_total', 'counter', 'Engine steps run.', g.stepsTotal);
  metric(
    'infx_sim_missed_deadlines_total',
    'counter',
    'Steps and timed events that went out late by more than the tolerance (wall clock).',
    clock.missed_deadlines,
  );
  metric(
    'infx_sim_behind_seconds_total',
    'counter',
    'Wall seconds the schedule slipped because the host fell behind.',
    clock.behind_ms / 1000,
  );
  metric(
    'infx_sim_lockstep_waits_total',
    'counter',
    'Times the clock was held for a request a lockstep client owed.',
    clock.lockstep_waits,
  );
  metric(
    'infx_sim_lockstep_wait_seconds_total',
    'counter',
    'Wall seconds the clock was held for lockstep clients.',
    clock.lockstep_wait_ms / 1000,
  );
  metric(
    'infx_sim_lockstep_timeouts_total',
    'counter',
    'Lockstep waits that ran out (the engine went on without the request).',
    clock.lockstep_timeouts,
  );
  return `${lines.join('\n')}\n`;
}
