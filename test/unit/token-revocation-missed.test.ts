// A revocation a daemon could not hear of, on a real PostgreSQL: its listening connection was cut
// (pg_terminate_backend, as an idle-connection killer or a PostgreSQL restart does) and kept from
// coming back while another daemon revoked the token, so the notice was lost to it. The watches of
// that token (its open streams) end all the same: once the daemon listens again, and, while it
// cannot, at the periodic recheck.
import { afterAll, describe, expect, test } from "bun:test";
import type { SQL } from "bun";
import { PostgresTokenStore } from "../../src/core/auth/postgres-token-store";
import { TokenService } from "../../src/core/auth/tokens";
import { listenedDatabase, type ListenedDatabase } from "../helpers/postgres-listeners";
import { postgresDatabases } from "../helpers/postgres-databases";

const services: TokenService[] = [];
const databases: ListenedDatabase[] = [];
// Registered before the cluster's own clean-up: the services stop listening before the cluster stops.
afterAll(async () => {
  for (const s of services.splice(0)) await s.stop();
  for (const d of databases.splice(0)) await d.close();
});
const postgres = postgresDatabases();

async function database(): Promise<ListenedDatabase> {
  const db = await listenedDatabase(postgres);
  databases.push(db);
  return db;
}

async function started(sql: SQL, recheckMs: number): Promise<TokenService> {
  const service = new TokenService(new PostgresTokenStore(sql, { recheckMs }));
  services.push(service);
  await service.start();
  return service;
}

/** Whether `onEnd` of a watch is called within `ms` (a bounded wait, not a timing). */
function endedWithin(ended: Promise<void>, ms: number): Promise<boolean> {
  return Promise.race([ended.then(() => true), Bun.sleep(ms).then(() => false)]);
}

function watched(tokens: TokenService, id: string): Promise<void> {
  return new Promise((resolve) => tokens.watch(id, resolve));
}

const HOUR = 3_600_000;

describe.skipIf(!postgres.available)("a revocation made while a daemon's listening connection was down", () => {
  test("ends that daemon's watches of the token once it listens again", async () => {
    const db = await database();
    const one = await started(db.connect(), HOUR);
    // No periodic recheck within the test: only listening again can end the watch.
    const two = await started(db.connect(), HOUR);
    const made = await one.create({ role: "agent", agentId: "carol" });
    const other = await one.create({ role: "agent", agentId: "dave" });
    expect(await two.check(made.token)).toMatchObject({ ok: true });
    const stream = watched(two, made.id);
    let otherEnded = false;
    two.watch(other.id, () => (otherEnded = true));

    const letIn = await db.cutListeners();
    try {
      await one.revoke(made.id);
      expect(await two.check(made.token)).toEqual({ ok: false, problem: "revoked" });
    } finally {
      await letIn();
    }
    expect(await endedWithin(stream, 30_000)).toBe(true);
    // A live token's watch is kept.
    expect(otherEnded).toBe(false);
  }, 60_000);

  test("ends them at the periodic recheck while the daemon cannot listen again", async () => {
    const db = await database();
    const one = await started(db.connect(), HOUR);
    const two = await started(db.connect(), 200);
    const made = await one.create({ role: "agent", agentId: "carol" });
    // Two's pool holds a connection, which the recheck reads with while new ones are kept out.
    expect(await two.check(made.token)).toMatchObject({ ok: true });
    const stream = watched(two, made.id);

    const letIn = await db.cutListeners();
    try {
      await one.revoke(made.id);
      expect(await endedWithin(stream, 20_000)).toBe(true);
    } finally {
      await letIn();
    }
  }, 60_000);

  test("a daemon that cannot listen at its start says so, answers, and follows revocations once it can", async () => {
    const db = await database();
    const one = await started(db.connect(), HOUR);
    const made = await one.create({ role: "agent", agentId: "carol" });
    const sql = db.connect();
    // Its pool holds a connection, which queries use while new connections are kept out.
    await sql`SELECT 1`;
    const errors: string[] = [];
    const two = new TokenService(new PostgresTokenStore(sql, { recheckMs: HOUR }), { onError: (m) => errors.push(m) });
    services.push(two);
    const letIn = await db.cutListeners();
    try {
      // Neither a rejection (a daemon nothing awaits it in would end) nor a wait for the outage.
      await two.start();
      expect(errors[0]).toMatch(/^tokens revoked by other daemons: listening on the shared store failed \(.+\); trying again in 0\.25 s$/);
      expect(await two.check(made.token)).toMatchObject({ ok: true });
    } finally {
      await letIn();
    }
    const stream = watched(two, made.id);
    await one.revoke(made.id);
    // No periodic recheck within the test: only listening, tried again in the background, ends the watch.
    expect(await endedWithin(stream, 30_000)).toBe(true);
  }, 60_000);
});
