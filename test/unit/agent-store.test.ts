// Cross-agent presence and messages on both stores: the same cases against the daemon's SQLite file
// and against a real PostgreSQL (a throwaway cluster), so the two implementations of AgentStore
// cannot drift. On PostgreSQL also what only a shared store has: two daemons (two clients, each with
// its own AgentsService) on one database, where a message sent through one reaches a stream held on
// the other, and a message is given to a session once when two prompts race for it.
import { describe, expect, test } from "bun:test";
import type { SQL } from "bun";
import { PostgresAgentStore } from "../../src/core/agents/postgres-store";
import { AgentsService } from "../../src/core/agents/service";
import { SqliteAgentStore } from "../../src/core/agents/sqlite-store";
import type { AgentStore, NewMessage } from "../../src/core/agents/store";
import { listeningConnections, postgresDatabases } from "../helpers/postgres-databases";
import { listenedDatabase } from "../helpers/postgres-listeners";
import { eventually } from "../helpers/wait";
import { migratedDatabase } from "../helpers/sqlite";

const postgres = postgresDatabases();
const withPostgres = postgres.available;
const postgresDatabase = () => postgres.database({ max: 2 });

const STORES: { name: string; available: boolean; open(): Promise<AgentStore> }[] = [
  {
    name: "SQLite",
    available: true,
    async open() {
      const db = migratedDatabase();
      return new SqliteAgentStore(db);
    },
  },
  {
    name: "PostgreSQL",
    available: withPostgres,
    async open() {
      return new PostgresAgentStore((await postgresDatabase())());
    },
  },
];

const at = (minute: number) => `2026-12-01T10:${String(minute).padStart(2, "0")}:00.000Z`;

function message(over: Partial<NewMessage>): NewMessage {
  return {
    at: at(0),
    type: "info",
    content: "hello",
    fromAgentId: "ada",
    fromSessionKey: null,
    toAgentId: null,
    toSessionKey: null,
    broadcast: false,
    via: "local",
    status: "delivered",
    acpBaseUrl: null,
    acpTargetAgentName: null,
    ...over,
  };
}

for (const kind of STORES) {
  describe.skipIf(!kind.available)(`agent store on ${kind.name}`, () => {
    test("presence: upsert keeps the first start and a known project, lists newest first with exclusions, expires and removes", async () => {
      const store = await kind.open();
      await store.upsertPresence({ sessionKey: "s-ada", agentId: "ada", harness: "claude-code", project: "/work/a", at: at(1) });
      const again = await store.upsertPresence({ sessionKey: "s-ada", agentId: "ada", harness: "codex", project: null, at: at(3) });
      expect(again).toEqual({ agentId: "ada", sessionKey: "s-ada", harness: "codex", project: "/work/a", startedAt: at(1), lastSeenAt: at(3) });
      await store.upsertPresence({ sessionKey: "s-bob", agentId: "bob", harness: "codex", project: "/work/b", at: at(2) });
      expect((await store.listPresence({ limit: 10 })).map((p) => p.sessionKey)).toEqual(["s-ada", "s-bob"]);
      expect((await store.listPresence({ excludeAgentId: "ada", limit: 10 })).map((p) => p.sessionKey)).toEqual(["s-bob"]);
      expect((await store.listPresence({ excludeSessionKey: "s-bob", limit: 10 })).map((p) => p.sessionKey)).toEqual(["s-ada"]);
      expect((await store.listPresence({ project: "/work/b", limit: 10 })).map((p) => p.sessionKey)).toEqual(["s-bob"]);
      expect(await store.listPresence({ limit: 1 })).toHaveLength(1);
      expect(await store.sessionHolder("s-bob")).toBe("bob");
      expect(await store.sessionHolder("s-none")).toBeNull();
      expect(await store.heldByAnother("s-bob", "ada")).toBe(true);
      expect(await store.heldByAnother("s-bob", "bob")).toBe(false);
      expect(await store.removePresence("s-bob", "ada")).toBe(false);
      // Another agent's key is neither taken nor refreshed; a heartbeat moves only its own entry.
      expect(await store.upsertPresence({ sessionKey: "s-bob", agentId: "ada", harness: "codex", project: null, at: at(4) })).toBeNull();
      await store.touchPresence("s-bob", "ada", at(4));
      expect(await store.sessionHolder("s-bob")).toBe("bob");
      await store.touchPresence("s-ada", "ada", at(4));
      expect((await store.listPresence({ limit: 10 })).map((p) => [p.sessionKey, p.lastSeenAt])).toEqual([["s-ada", at(4)], ["s-bob", at(2)]]);
      await store.expirePresence(at(3));
      expect((await store.listPresence({ limit: 10 })).map((p) => p.sessionKey)).toEqual(["s-ada"]);
      expect(await store.removePresence("s-ada", "ada")).toBe(true);
      expect(await store.listPresence({ limit: 10 })).toEqual([]);
    });

    test("messages: each reader sees only its own, broadcasts from others, sent ones when asked; pages; acks only what it received", async () => {
      const store = await kind.open();
      expect(await store.latestId()).toBe(0);
      expect(await store.knownAgent("ada")).toBe(false);
      const toBob = await store.insertMessage(message({ content: "to bob", toAgentId: "bob" }));
      const toBobSession = await store.insertMessage(message({ content: "to bob's s1", toAgentId: "bob", toSessionKey: "s1", at: at(1) }));
      const toBobOther = await store.insertMessage(message({ content: "to bob's s2", toAgentId: "bob", toSessionKey: "s2", at: at(2) }));
      const everyone = await store.insertMessage(message({ content: "all", broadcast: true, at: at(3) }));
      const toCy = await store.insertMessage(message({ content: "to cy", toAgentId: "cy", at: at(4) }));
      expect(await store.latestId()).toBe(toCy);
      expect(await store.knownAgent("ada")).toBe(true);
      expect(await store.knownAgent("bob")).toBe(false);

      const read = async (scope: Partial<Parameters<AgentStore["read"]>[0]>) =>
        (await store.read({ agentId: "bob", includeBroadcast: false, includeSent: false, limit: 50, ...scope })).map((m) => m.content);
      expect(await read({})).toEqual(["to bob", "to bob's s1", "to bob's s2"]);
      expect(await read({ sessionKey: "s1" })).toEqual(["to bob", "to bob's s1"]);
      expect(await read({ includeBroadcast: true })).toEqual(["to bob", "to bob's s1", "to bob's s2", "all"]);
      expect(await read({ agentId: "ada", includeBroadcast: true })).toEqual([]);
      expect(await read({ agentId: "ada", includeSent: true })).toEqual(["to bob", "to bob's s1", "to bob's s2", "all", "to cy"]);
      expect(await read({ since: at(2) })).toEqual(["to bob's s2"]);
      // The newest `limit` without a cursor, the oldest past it with one; oldest first either way.
      expect(await read({ limit: 2 })).toEqual(["to bob's s1", "to bob's s2"]);
      expect(await read({ afterId: toBob, limit: 1 })).toEqual(["to bob's s1"]);

      expect(await store.ack("bob", [toBob, everyone, toCy, toBob, 999_999], at(5))).toEqual([toBob, everyone]);
      expect(await read({ includeBroadcast: true, unread: true })).toEqual(["to bob's s1", "to bob's s2"]);
      const [acked] = await store.read({ agentId: "bob", includeBroadcast: false, includeSent: false, limit: 1, afterId: toBob - 1 });
      expect(acked!.acked).toBe(true);

      await store.setDelivery(toBobSession, "failed", "refused", "run-1");
      expect(await store.sent(toBobSession)).toMatchObject({ id: toBobSession, deliveryStatus: "failed", deliveryError: "refused", acpRunId: "run-1", acked: false, broadcast: false });
      expect((await store.sent(everyone)).broadcast).toBe(true);
      expect(toBobOther).toBeGreaterThan(toBobSession);
    });

    test("the prompt hook's messages: pending for the session, marked once, not for sessions that start later", async () => {
      const store = await kind.open();
      const direct = await store.insertMessage(message({ content: "to bob", toAgentId: "bob" }));
      const own = await store.insertMessage(message({ content: "from bob's session", fromAgentId: "bob", fromSessionKey: "s1", broadcast: true }));
      const all = await store.insertMessage(message({ content: "all", broadcast: true }));
      const scope = { agentId: "bob", sessionKey: "s1", sessionStartedAt: at(0) };
      expect((await store.undelivered(scope, 10)).map((m) => m.id)).toEqual([direct, all]);
      expect(await store.markDelivered("bob", "s1", [direct, all], at(5))).toEqual([direct, all]);
      expect(await store.markDelivered("bob", "s1", [direct], at(6))).toEqual([]);
      expect(await store.undelivered(scope, 10)).toEqual([]);
      // A session that started before the first delivery still gets them; one that started after does not.
      expect((await store.undelivered({ agentId: "bob", sessionKey: "s0", sessionStartedAt: at(1) }, 10)).map((m) => m.id)).toEqual([direct, all]);
      expect(await store.undelivered({ agentId: "bob", sessionKey: "s2", sessionStartedAt: at(9) }, 10)).toEqual([]);
      expect(own).toBeGreaterThan(direct);
    });
  });
}

describe.skipIf(!withPostgres)("two daemons on one PostgreSQL store", () => {
  test("a message sent through one daemon reaches a stream held on the other, within a second", async () => {
    const connect = await postgresDatabase();
    const options = { presenceTtlS: 600, acpAllowedOrigins: [] };
    const one = new AgentsService(new PostgresAgentStore(connect()), options);
    const two = new AgentsService(new PostgresAgentStore(connect()), options);
    await one.start();
    await two.start();
    try {
      let heard = 0;
      two.listen({ notify: () => heard++, close: () => {} });
      const cursor = await two.latestId();
      const started = performance.now();
      const sent = await one.send("ada", { toAgentId: "bob", type: "info", content: "across daemons", via: "local", acpTimeoutMs: undefined });
      expect(await eventually(() => heard > 0, 1_000)).toBe(true);
      const waited = performance.now() - started;
      const missed = await two.missed({ agentId: "bob", includeBroadcast: false, afterId: cursor });
      expect(missed.map((m) => [m.id, m.content])).toEqual([[sent.id, "across daemons"]]);
      expect(waited).toBeLessThan(1_000);
    } finally {
      await one.closeAll();
      await two.closeAll();
    }
  });

  test("a daemon stopped while it sets up its listening leaves no listening connection behind", async () => {
    const connect = await postgresDatabase();
    const observer = connect();
    const service = new AgentsService(new PostgresAgentStore(connect()), { presenceTtlS: 600, acpAllowedOrigins: [] });
    const listening = () => listeningConnections(observer);
    const starting = service.start();
    await service.closeAll();
    await starting;
    expect(await eventually(async () => (await listening()) === 0, 2_000)).toBe(true);
    // And a daemon that started and stopped in order: listening while it runs, not after.
    const other = new AgentsService(new PostgresAgentStore(connect()), { presenceTtlS: 600, acpAllowedOrigins: [] });
    await other.start();
    expect(await listening()).toBe(1);
    await other.closeAll();
    expect(await eventually(async () => (await listening()) === 0, 2_000)).toBe(true);
  });

  test("a daemon that cannot listen at its start says so, answers, and hears other daemons' messages once it can", async () => {
    const db = await listenedDatabase(postgres);
    const options = { presenceTtlS: 600, acpAllowedOrigins: [] };
    // Sending needs no listening: one is never started.
    const one = new AgentsService(new PostgresAgentStore(db.connect()), options);
    const sql = db.connect();
    const observer = db.connect();
    // Their pools hold a connection each, which queries use while new connections are kept out.
    await Promise.all([sql`SELECT 1`, observer`SELECT 1`]);
    const errors: string[] = [];
    const two = new AgentsService(new PostgresAgentStore(sql), { ...options, onError: (m) => errors.push(m) });
    try {
      const letIn = await db.cutListeners();
      try {
        // Neither a rejection (the daemon does not await it) nor a wait for the outage.
        await two.start();
        expect(errors[0]).toMatch(/^messages kept by other daemons: listening on the shared store failed \(.+\); trying again in 0\.25 s$/);
        expect(await two.latestId()).toBe(0);
      } finally {
        await letIn();
      }
      expect(await eventually(async () => (await listeningConnections(observer)) === 1, 20_000)).toBe(true);
      let heard = 0;
      two.listen({ notify: () => heard++, close: () => {} });
      await one.send("ada", { toAgentId: "bob", type: "info", content: "after the outage", via: "local", acpTimeoutMs: undefined });
      expect(await eventually(() => heard > 0, 5_000)).toBe(true);
    } finally {
      await one.closeAll();
      await two.closeAll();
      await db.close();
    }
  }, 60_000);

  test("two prompts on two daemons racing for the same messages: each message is marked for the session once", async () => {
    const connect = await postgresDatabase();
    const first = new PostgresAgentStore(connect());
    const second = new PostgresAgentStore(connect());
    const ids: number[] = [];
    for (let i = 0; i < 20; i++) ids.push(await first.insertMessage(message({ content: `m${i}`, toAgentId: "bob" })));
    const [a, b] = await Promise.all([first.markDelivered("bob", "s1", ids, at(1)), second.markDelivered("bob", "s1", ids, at(1))]);
    expect([...a, ...b].sort((x, y) => x - y)).toEqual(ids);
    expect(a.filter((id) => b.includes(id))).toEqual([]);
  });
});
