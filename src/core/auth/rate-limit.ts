// Per-token rate limits on mutations (docs/security.md#rate-limits): a token bucket per key.
// `burst` requests may come at once; after that one more each 60000/perMinute ms. A daemon on its
// own keeps the buckets in memory (RateLimiter); daemons sharing a PostgreSQL store share them
// (postgres-rate-limit.ts), so a token's budget is one however its requests are spread.
export interface RateLimitSettings {
  /** Sustained mutations per minute per token; 0 turns the limit off. */
  mutationsPerMinute: number;
  /** How many may come at once before the rate applies. */
  burst: number;
}

/** Spends one unit of `key`'s budget: 0 when it may go ahead now, otherwise the seconds until it may. */
export interface RateLimits {
  take(key: string, now?: number): number | Promise<number>;
}

interface Bucket {
  tokens: number;
  at: number;
}

/** Buckets idle this long are full again and can be forgotten. */
const SWEEP_EVERY = 1024;

export class RateLimiter implements RateLimits {
  private readonly buckets = new Map<string, Bucket>();
  private readonly perMs: number;
  private takes = 0;

  constructor(private readonly settings: RateLimitSettings) {
    this.perMs = settings.mutationsPerMinute / 60_000;
  }

  /** 0 when `key` may go ahead now (and one unit is spent); otherwise the seconds until it may. */
  take(key: string, now = Date.now()): number {
    if (this.settings.mutationsPerMinute === 0) return 0;
    if (++this.takes % SWEEP_EVERY === 0) this.sweep(now);
    const bucket = this.buckets.get(key) ?? { tokens: this.settings.burst, at: now };
    bucket.tokens = Math.min(this.settings.burst, bucket.tokens + (now - bucket.at) * this.perMs);
    bucket.at = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.perMs / 1000));
  }

  private sweep(now: number): void {
    const refillMs = this.settings.burst / this.perMs;
    for (const [key, bucket] of this.buckets) if (now - bucket.at >= refillMs) this.buckets.delete(key);
  }
}
