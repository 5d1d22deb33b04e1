// API tokens and their rate limits on both stores: the same cases against the daemon's SQLite file
// and a real PostgreSQL (a throwaway cluster), so the two TokenStores cannot drift. On PostgreSQL
// also what only a shared store has: two daemons (two clients, each with its own TokenService) on
// one database, where a token revoked through one is refused by the other and the streams the other
// holds with it end, and one token's mutation budget is spent from one bucket wherever it is used.
import { afterAll, describe, expect, test } from "bun:test";
import type { SQL } from "bun";
import { SharedRateLimiter } from "../../src/core/auth/postgres-rate-limit";
import { PostgresTokenStore } from "../../src/core/auth/postgres-token-store";
import { RateLimiter, type RateLimits, type RateLimitSettings } from "../../src/core/auth/rate-limit";
import { SqliteTokenStore } from "../../src/core/auth/sqlite-token-store";
import type { TokenStore } from "../../src/core/auth/token-store";
import { TokenService } from "../../src/core/auth/tokens";
import { listeningConnections, postgresDatabases } from "../helpers/postgres-databases";
import { eventually } from "../helpers/wait";
import { migratedDatabase } from "../helpers/sqlite";

// Registered before the cluster's own clean-up, so the services stop listening before their clients close.
const services: TokenService[] = [];
afterAll(async () => {
  for (const s of services.splice(0)) await s.stop();
});
const postgres = postgresDatabases();
const withPostgres = postgres.available;

const postgresDatabase = () => postgres.database({ max: 2 });

async function started(store: TokenStore): Promise<TokenService> {
  const service = new TokenService(store);
  services.push(service);
  await service.start();
  return service;
}

const STORES: {
  name: string;
  available: boolean;
  open(): Promise<{ tokens: TokenService; limits(settings: RateLimitSettings): RateLimits }>;
}[] = [
  {
    name: "SQLite",
    available: true,
    async open() {
      const db = migratedDatabase();
      return { tokens: await started(new SqliteTokenStore(db)), limits: (settings) => new RateLimiter(settings) };
    },
  },
  {
    name: "PostgreSQL",
    available: withPostgres,
    async open() {
      const sql = (await postgresDatabase())();
      return { tokens: await started(new PostgresTokenStore(sql)), limits: (settings) => new SharedRateLimiter(sql, settings) };
    },
  },
];

const T0 = Date.parse("2026-12-01T10:00:00.000Z");

/** Whether `onEnd` of a watch is called within `ms` (a bounded wait, not a timing). */
function endedWithin(ended: Promise<void>, ms = 5_000): Promise<boolean> {
  return Promise.race([ended.then(() => true), Bun.sleep(ms).then(() => false)]);
}

function watched(tokens: TokenService, id: string): Promise<void> {
  return new Promise((resolve) => tokens.watch(id, resolve));
}

for (const kind of STORES) {
  describe.skipIf(!kind.available)(`tokens on ${kind.name}`, () => {
    test("create shows the token once and stores its record; check knows it, and says why a token is refused", async () => {
      const { tokens } = await kind.open();
      const made = await tokens.create({ role: "agent", agentId: "ada", name: "laptop", expires: "1h" }, new Date(T0));
      expect(made.token).toMatch(/^sgt_[A-Za-z0-9_-]{43}$/);
      expect(made).toMatchObject({ role: "agent", agentId: "ada", name: "laptop", createdAt: new Date(T0).toISOString(), revokedAt: null });
      expect(made.expiresAt).toBe(new Date(T0 + 3_600_000).toISOString());
      const other = await tokens.create({ role: "readonly" }, new Date(T0 + 1000));
      expect((await tokens.list()).map((t) => t.id)).toEqual([other.id, made.id]);
      expect(JSON.stringify(await tokens.list())).not.toContain(made.token);

      expect(await tokens.check(made.token, T0 + 1)).toEqual({ ok: true, token: expect.objectContaining({ id: made.id, agentId: "ada" }) });
      expect(await tokens.check(made.token, T0 + 3_600_000)).toEqual({ ok: false, problem: "expired" });
      expect(await tokens.check(`${made.token}x`)).toEqual({ ok: false, problem: "unknown" });
      expect(await tokens.check("")).toEqual({ ok: false, problem: "unknown" });
    });

    test("revoke refuses the token from then on, keeps the first time when repeated, and names an unknown id", async () => {
      const { tokens } = await kind.open();
      const made = await tokens.create({ role: "operator" });
      const first = await tokens.revoke(made.id, new Date(T0));
      expect(first.revokedAt).toBe(new Date(T0).toISOString());
      expect((await tokens.revoke(made.id, new Date(T0 + 5000))).revokedAt).toBe(new Date(T0).toISOString());
      expect(await tokens.check(made.token)).toEqual({ ok: false, problem: "revoked" });
      await expect(tokens.revoke("tok_0000000000000000")).rejects.toThrow("tok_0000000000000000");
    });

    test("a watch ends when its token is revoked or expires, at once for a dead or unknown one, and not after unwatch", async () => {
      const { tokens } = await kind.open();
      const revoked = await tokens.create({ role: "operator" });
      const ends = watched(tokens, revoked.id);
      let unwatchedEnded = false;
      const unwatch = tokens.watch(revoked.id, () => (unwatchedEnded = true));
      unwatch();
      await tokens.revoke(revoked.id);
      expect(await endedWithin(ends)).toBe(true);
      expect(unwatchedEnded).toBe(false);
      // Already revoked, unknown, expiring soon.
      expect(await endedWithin(watched(tokens, revoked.id))).toBe(true);
      expect(await endedWithin(watched(tokens, "tok_ffffffffffffffff"))).toBe(true);
      const expiring = await tokens.create({ role: "operator", expires: "1h" }, new Date(Date.now() - 3_600_000 + 300));
      expect(await endedWithin(watched(tokens, expiring.id))).toBe(true);
      // A live token's watch does not end by itself.
      const kept = await tokens.create({ role: "operator" });
      expect(await endedWithin(watched(tokens, kept.id), 300)).toBe(false);
    });

    test("rate limits: the burst at once, then one per 60000/perMinute ms; keys are separate; 0 turns it off", async () => {
      const { limits } = await kind.open();
      const limiter = limits({ mutationsPerMinute: 6, burst: 2 });
      expect([await limiter.take("a", T0), await limiter.take("a", T0)]).toEqual([0, 0]);
      expect(await limiter.take("a", T0)).toBe(10);
      expect(await limiter.take("a", T0 + 4_000)).toBe(6);
      expect(await limiter.take("b", T0 + 4_000)).toBe(0);
      expect(await limiter.take("a", T0 + 10_000)).toBe(0);
      expect(await limiter.take("a", T0 + 10_000)).toBe(10);
      expect([await limiter.take("a", T0 + 3_600_000), await limiter.take("a", T0 + 3_600_000), await limiter.take("a", T0 + 3_600_000)]).toEqual([0, 0, 10]);
      const off = limits({ mutationsPerMinute: 0, burst: 1 });
      for (let i = 0; i < 20; i++) expect(await off.take("a", T0)).toBe(0);
    });
  });
}

describe.skipIf(!withPostgres)("tokens shared by two daemons on one PostgreSQL", () => {
  test("a token made through one is let in by the other; revoked through one, the other refuses it and ends its streams", async () => {
    const connect = await postgresDatabase();
    const one = await started(new PostgresTokenStore(connect()));
    const two = await started(new PostgresTokenStore(connect()));
    const made = await one.create({ role: "agent", agentId: "ada" });
    expect(await two.check(made.token)).toMatchObject({ ok: true, token: { id: made.id } });
    const streamOnTwo = watched(two, made.id);
    expect(await endedWithin(streamOnTwo, 200)).toBe(false);
    await one.revoke(made.id);
    expect(await two.check(made.token)).toEqual({ ok: false, problem: "revoked" });
    expect(await endedWithin(streamOnTwo)).toBe(true);
  });

  test("a service stopped, even while it sets up its listening, leaves no listening connection behind", async () => {
    const connect = await postgresDatabase();
    const observer = connect();
    const listening = () => listeningConnections(observer);
    const early = new TokenService(new PostgresTokenStore(connect()));
    const starting = early.start();
    await early.stop();
    await starting;
    expect(await eventually(async () => (await listening()) === 0, 2_000)).toBe(true);
    const running = new TokenService(new PostgresTokenStore(connect()));
    await running.start();
    expect(await listening()).toBe(1);
    await running.stop();
    expect(await eventually(async () => (await listening()) === 0, 2_000)).toBe(true);
  });

  test("one token's budget is one bucket: two daemons spending from it at once take the burst once between them", async () => {
    const connect = await postgresDatabase();
    const settings = { mutationsPerMinute: 1, burst: 5 };
    const one = new SharedRateLimiter(connect(), settings);
    const two = new SharedRateLimiter(connect(), settings);
    const waits = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? one : two).take("tok_shared", T0)));
    expect(waits.filter((w) => w === 0)).toHaveLength(5);
    expect(waits.filter((w) => w > 0).every((w) => w >= 1 && w <= 60)).toBe(true);
  });
});
