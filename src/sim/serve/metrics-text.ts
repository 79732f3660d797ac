import type { EngineGauges } from '../engine/engine.ts';

/** /metrics in Prometheus text format, with vLLM's metric names so existing scrapers read it. */
export function prometheusText(g: EngineGauges, modelName: string, kvCacheTokens: number): string {
  const label = `{model_name="${modelName.replace(/["\\\n]/g, '_')}"}`;
  const lines: string[] = [];
  const metric = (name: string, type: 'gauge' | 'counter', help: string, value: number) => {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, `${name}${label} ${value}`);
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
  metric('infx_sim_virtual_time_seconds', 'gauge', 'Simulated clock.', g.nowMs / 1000);
  metric('infx_sim_steps_total', 'counter', 'Engine steps run.', g.stepsTotal);
  return `${lines.join('\n')}\n`;
}
