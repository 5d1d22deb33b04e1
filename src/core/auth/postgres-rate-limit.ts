// Per-token rate limits shared by the daemons of one PostgreSQL store (rate_buckets, PostgreSQL
// migration 002): the same bucket as RateLimiter's, refilled and spent in one statement, so two
// daemons spending from one bucket at once cannot both take its last unit.
import type { RateLimitSettings, RateLimits } from "./rate-limit";

export class SharedRateLimiter implements RateLimits {
  private readonly perMs: number;

  constructor(
    private readonly sql: Bun.SQL,
    private readonly settings: RateLimitSettings,
  ) {
    this.perMs = settings.mutationsPerMinute / 60_000;
  }

  async take(key: string, now = Date.now()): Promise<number> {
    if (this.settings.mutationsPerMinute === 0) return 0;
    const { burst } = this.settings;
    // The bucket refilled for the time since it was last spent from (never beyond the burst; a
    // daemon whose clock is behind adds nothing), then one unit taken when one is there.
    const [bucket] = await this.sql<{ tokens: number; taken: boolean }[]>`
      INSERT INTO rate_buckets AS b (key, tokens, at, taken) VALUES (${key}, ${burst - 1}, ${now}, true)
      ON CONFLICT (key) DO UPDATE SET
        tokens = LEAST(${burst}::float8, b.tokens + GREATEST(${now} - b.at, 0) * ${this.perMs}::float8)
          - CASE WHEN LEAST(${burst}::float8, b.tokens + GREATEST(${now} - b.at, 0) * ${this.perMs}::float8) >= 1 THEN 1 ELSE 0 END,
        at = GREATEST(b.at, ${now}),
        taken = LEAST(${burst}::float8, b.tokens + GREATEST(${now} - b.at, 0) * ${this.perMs}::float8) >= 1
      RETURNING tokens, taken`;
    if (bucket!.taken) return 0;
    return Math.max(1, Math.ceil((1 - bucket!.tokens) / this.perMs / 1000));
  }
}
