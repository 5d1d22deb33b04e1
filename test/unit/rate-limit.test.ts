// The per-token rate limiter (docs/security.md#rate-limits): a token bucket, driven by explicit times.
import { expect, test } from "bun:test";
import { RateLimiter } from "../../src/core/auth/rate-limit";

test("burst at once, then one per 60000/perMinute ms, with the wait in whole seconds; keys are separate", () => {
  const limiter = new RateLimiter({ mutationsPerMinute: 6, burst: 2 });
  expect([limiter.take("a", 0), limiter.take("a", 0)]).toEqual([0, 0]);
  expect(limiter.take("a", 0)).toBe(10);
  expect(limiter.take("a", 4_000)).toBe(6);
  expect(limiter.take("b", 4_000)).toBe(0);
  expect(limiter.take("a", 10_000)).toBe(0);
  expect(limiter.take("a", 10_000)).toBe(10);
  // A long pause refills to the burst, never beyond it.
  expect([limiter.take("a", 3_600_000), limiter.take("a", 3_600_000), limiter.take("a", 3_600_000)]).toEqual([0, 0, 10]);
});

test("mutationsPerMinute 0 turns the limit off", () => {
  const limiter = new RateLimiter({ mutationsPerMinute: 0, burst: 1 });
  for (let i = 0; i < 100; i++) expect(limiter.take("a", 0)).toBe(0);
});
