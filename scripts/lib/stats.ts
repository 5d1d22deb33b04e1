// Latency statistics shared by the benchmark scripts: nearest-rank percentiles over every sample.

/** Nearest-rank percentile of an ascending array. */
function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1]!;
}

export interface LatencyStats {
  n: number;
  errors: number;
  wallMs: number;
  perSec: number;
  meanMs: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** Summary of one phase; `wallMs` is the phase's elapsed time (for the rate). */
export function stats(latencies: Float64Array | number[], wallMs: number, errors: number): LatencyStats {
  const sorted = Float64Array.from(latencies).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    n: sorted.length,
    errors,
    wallMs,
    perSec: sorted.length / (wallMs / 1000),
    meanMs: sorted.length ? sum / sorted.length : NaN,
    p50Ms: percentile(sorted, 50),
    p90Ms: percentile(sorted, 90),
    p99Ms: percentile(sorted, 99),
    maxMs: sorted.length ? sorted[sorted.length - 1]! : NaN,
  };
}
