/**
 * The simulated engine's core (no HTTP): performance model, continuous-batching scheduler on a virtual
 * clock, fast predictor. `infx sim serve` builds on createSimEngine; `infx sim predict` on predictRows.
 *
 * A server in front of it:
 *
 *   const { engine, resolved } = createSimEngine({ model, hardware, tp, precision, prefixCaching, spec, seed });
 *   engine.hooks = {
 *     onToken: (id, tokensEmitted, virtualMs) => stream(id).write(chunk of the new tokens),
 *     onFinish: (id, info) => stream(id).end(usage from info: promptTokens, outputTokens, reason),
 *   };
 *   const stop = new AbortController();
 *   void engine.runRealtime({ timeScale, signal: stop.signal });   // until shutdown: stop.abort()
 *   engine.submit({ id, promptTokens, maxTokens, prefixHashes, ignoreEos });  // per HTTP request
 *   engine.abort(id);                                                        // client disconnected
 *   engine.gauges();                                                         // for /metrics
 */
export { createSimEngine, type ResolvedSim, resolveSim, type SimSetup, SimSetupError } from './config.ts';
export {
  type EngineGauges,
  type EngineHooks,
  type EngineOptions,
  type FinishInfo,
  type FinishReason,
  SimEngine,
  type SimRequest,
  SimRequestError,
  type StepInfo,
  type StepTimer,
} from './engine.ts';
export { DEFAULT_HOST_KV_GBPS, type HostKvOptions, HostTier } from './host-tier.ts';
export { BLOCK_SIZE } from './kv-cache.ts';
export {
  LATE_TOLERANCE_MS,
  LOCKSTEP_TIMEOUT_MS,
  type Paced,
  Pacer,
  type PacerOptions,
  type PacerStats,
} from './pacer.ts';
export { type BatchEntry, PerfModel, type PerfSetup, type StepBreakdown } from './perf-model.ts';
export { type PredictConfig, PredictError, type PredictResult, predictPoint } from './predict.ts';
export { formatOutcome, type PointOutcome, type PredictRowsOptions, predictRows, RowsError } from './rows.ts';
export { SpecConfigError, type SpecDecodingConfig, type SpecMethod } from './spec-decode.ts';
