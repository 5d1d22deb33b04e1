// The long-lived streams of a daemon on a shared PostgreSQL store, through the real HTTP server,
// when what other daemons write reaches it late or out of order: a token revoked, or a message
// stored, while the daemon's listening connection was cut (pg_terminate_backend, kept from
// coming back meanwhile); and two messages whose ids commit out of order (one write held open in a
// transaction while a later one commits). The other daemons are this test's own clients, writing
// as a daemon's stores do.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { SQL } from "bun";
import { PostgresAgentStore } from "../../src/core/agents/postgres-store";
import type { NewMessage } from "../../src/core/agents/store";
import { PostgresTokenStore } from "../../src/core/auth/postgres-token-store";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon";
import { call, expectError, readRes } from "../helpers/memory-api";
import { postgresDatabases } from "../helpers/postgres-databases";
import { listenedDatabase, type ListenedDatabase } from "../helpers/postgres-listeners";
import { openSse, type SseReader } from "../helpers/sse";

const postgres = postgresDatabases();

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Whether the server ends the stream within `ms` (a bounded wait, not a timing). */
function endsWithin(sse: SseReader, ms: number): Promise<boolean> {
  return Promise.race([sse.ended.then(() => true), Bun.sleep(ms).then(() => false)]);
}

function message(toAgentId: string, content: string): NewMessage {
  return {
    at: new Date().toISOString(),
    type: "info",
    content,
    fromAgentId: "ada",
    fromSessionKey: null,
    toAgentId,
    toSessionKey: null,
    broadcast: false,
    via: "local",
    status: "delivered",
    acpBaseUrl: null,
    acpTargetAgentName: null,
  };
}

/** The message events a stream has shown so far, as [id, content]. */
function shown(sse: SseReader): [number, string][] {
  return sse.seen.filter((e) => e.event === "message").map((e) => [Number(e.id), JSON.parse(e.data!).content]);
}

describe.skipIf(!postgres.available)("streams of a daemon on a shared PostgreSQL", () => {
  let db: ListenedDatabase;
  let td: TestDaemon;
  /** Another daemon's connection, opened before any cut. */
  let other: SQL;
  const open: SseReader[] = [];

  beforeAll(async () => {
    db = await listenedDatabase(postgres);
    td = await startTestDaemon({ yaml: "auth:\n  mode: team\n", env: { SIGNET_DATABASE_URL: db.url } });
    other = db.connect();
  }, 60_000);

  afterAll(async () => {
    for (const s of open) s.close();
    await td?.stop();
    await db?.close();
  });

  async function agentToken(agentId: string): Promise<{ token: string; id: string }> {
    const res = await call(td, "POST", "/api/tokens", { body: { role: "agent", agentId }, headers: td.ownerHeaders });
    expect(res.status).toBe(201);
    return res.body;
  }

  async function stream(path: string, headers: Record<string, string>): Promise<SseReader> {
    const sse = await openSse(`${td.url}${path}`, headers);
    open.push(sse);
    expect(sse.status).toBe(200);
    await sse.next((e) => e.comment === "connected");
    return sse;
  }

  test("a token revoked while its listening connection was down ends the daemon's message and /mcp streams of it", async () => {
    const doomed = await agentToken("carol");
    const messages = await stream("/api/cross-agent/stream", bearer(doomed.token));
    const mcp = await stream("/mcp", bearer(doomed.token));
    await other`SELECT 1`;
    const letIn = await db.cutListeners();
    try {
      await new PostgresTokenStore(other).revoke(doomed.id, new Date().toISOString());
    } finally {
      await letIn();
    }
    expect(await endsWithin(messages, 30_000)).toBe(true);
    expect(await endsWithin(mcp, 30_000)).toBe(true);
    expectError(await readRes(await td.fetch("/api/cross-agent/stream", { headers: bearer(doomed.token) }), "GET"), 401, "unauthorized", "was revoked");
  }, 90_000);

  test("a message stored while the listening connection was down reaches an open stream", async () => {
    const { token } = await agentToken("erin");
    const sse = await stream("/api/cross-agent/stream", bearer(token));
    const store = new PostgresAgentStore(other);
    await other`SELECT 1`;
    const letIn = await db.cutListeners();
    let id: number;
    try {
      id = await store.insertMessage(message("erin", "stored while the daemon was not listening"));
    } finally {
      await letIn();
    }
    const event = await sse.next((e) => e.event === "message", 30_000);
    expect([Number(event.id), JSON.parse(event.data!).content]).toEqual([id, "stored while the daemon was not listening"]);
  }, 90_000);

  test("messages whose ids commit out of order are streamed in id order, each once, and Last-Event-ID resumes between them", async () => {
    const { token } = await agentToken("frank");
    const sse = await stream("/api/cross-agent/stream", bearer(token));
    // The slow write takes its id first and commits after a later one.
    const release = Promise.withResolvers<void>();
    const slowId = Promise.withResolvers<number>();
    const slow = other.begin(async (tx) => {
      slowId.resolve(await new PostgresAgentStore(tx as unknown as SQL).insertMessage(message("frank", "slow")));
      await release.promise;
    });
    const first = await slowId.promise;
    const fast = await call(td, "POST", "/api/cross-agent/messages", { body: { toAgentId: "frank", content: "fast" }, headers: td.ownerHeaders });
    expect(fast.status).toBe(201);
    const second: number = fast.body.id;
    expect(second).toBeGreaterThan(first);
    // Time for the daemon to hear of the fast one (milliseconds) before the slow one commits.
    await Bun.sleep(1_500);
    release.resolve();
    await slow;

    expect(Number((await sse.next((e) => e.event === "message", 30_000)).id)).toBe(first);
    expect(Number((await sse.next((e) => e.event === "message", 30_000)).id)).toBe(second);
    const third = await new PostgresAgentStore(other).insertMessage(message("frank", "third"));
    expect(Number((await sse.next((e) => e.event === "message", 30_000)).id)).toBe(third);
    expect(shown(sse)).toEqual([
      [first, "slow"],
      [second, "fast"],
      [third, "third"],
    ]);

    // A client that saw the slow one resumes with the fast one and what came after.
    const resumed = await stream("/api/cross-agent/stream", { ...bearer(token), "last-event-id": String(first) });
    expect(Number((await resumed.next((e) => e.event === "message", 30_000)).id)).toBe(second);
    expect(Number((await resumed.next((e) => e.event === "message", 30_000)).id)).toBe(third);
    expect(shown(resumed).map(([id]) => id)).toEqual([second, third]);
  }, 90_000);
});
