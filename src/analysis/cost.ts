import { accelerator, CatalogError } from '../catalog/index.ts';
import type { CurvePoint } from '../schema/curve.ts';

/**
 * Cost and energy per token (dashboard-spec §4.3.4, §4.6). Prices are per GPU-hour of the config's base
 * GPU (pitfall 12: keyed by base GPU, not by the runner variant); per-GPU throughput already counts every
 * allocated GPU, prefill and decode pools of a disaggregated config included (pitfall 6).
 */

export type PriceSource = 'flag' | 'catalog' | 'unknown';

export interface GpuPrice {
  perGpuHour: number | null;
  source: PriceSource;
}

/** The $/GPU-hour for a hardware key: the user's override, else the catalog's estimate, else unknown. */
export function gpuHourPrice(hardware: string, override?: number | null): GpuPrice {
  if (override !== undefined && override !== null) return { perGpuHour: override, source: 'flag' };
  try {
    return { perGpuHour: accelerator(hardware).pricePerGpuHour, source: 'catalog' };
  } catch (err) {
    if (err instanceof CatalogError) return { perGpuHour: null, source: 'unknown' };
    throw err;
  }
}

/**
 * $ per million tokens = price per GPU-hour / (tokens/s/GPU × 3600) × 10⁶. Null when the price or the
 * throughput is unknown, or the throughput is not positive (the reference shows 0 there; no tokens have
 * no price, so infx says N/A).
 */
export function costPerMillionTokens(
  pricePerGpuHour: number | null,
  tokensPerSecPerGpu: number | null,
): number | null {
  if (pricePerGpuHour === null || tokensPerSecPerGpu === null) return null;
  if (!Number.isFinite(tokensPerSecPerGpu) || tokensPerSecPerGpu <= 0) return null;
  return (pricePerGpuHour / (tokensPerSecPerGpu * 3600)) * 1e6;
}

/** Millions of tokens one GPU produces per hour. */
export const millionTokensPerGpuHour = (tokensPerSecPerGpu: number) => (tokensPerSecPerGpu * 3600) / 1e6;

export interface PointCost {
  price: GpuPrice;
  /** $ per million tokens, input and output together. */
  perMillionTotal: number | null;
  /** $ per million output tokens (output throughput per GPU). */
  perMillionOutput: number | null;
  /** Measured energy per output token, all GPUs; null where power was not measured. */
  joulesPerOutputToken: number | null;
}

export function pointCost(p: CurvePoint, override?: number | null): PointCost {
  const price = gpuHourPrice(p.config.hardware, override);
  return {
    price,
    perMillionTotal: costPerMillionTokens(price.perGpuHour, p.metrics.tputPerGpu),
    perMillionOutput: costPerMillionTokens(price.perGpuHour, p.metrics.outputTputPerGpu),
    joulesPerOutputToken: p.metrics.joulesPerOutputToken,
  };
}
