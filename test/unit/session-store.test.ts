// Sessions on both stores: the hooks, lists, transcript search and feedback through SessionService
// against the daemon's SQLite file and against a real PostgreSQL (a throwaway cluster), so the two
// SessionStores cannot drift. On PostgreSQL also what only a shared store has: two daemons rating
// one memory from two sessions at once, each rating counted in its signal.
import { describe, expect, test } from "bun:test";
import { RecallRequestSchema } from "../../src/contracts/recall";
import { HookRequestSchema, SessionSearchRequestSchema, type HookRequest } from "../../src/contracts/session";
import { PostgresAgentStore } from "../../src/core/agents/postgres-store";
import { SqliteAgentStore } from "../../src/core/agents/sqlite-store";
import type { AgentStore } from "../../src/core/agents/store";
import { PostgresMemoryStore } from "../../src/core/memory/postgres-store";
import { MemoryService, type Caller } from "../../src/core/memory/service";
import { SqliteMemoryStore } from "../../src/core/memory/sqlite-store";
import type { MemoryStore } from "../../src/core/memory/store";
import { AccessLog, type AccessWrites, SqliteAccessWrites } from "../../src/core/recall/access-log";
import { PostgresAccessWrites } from "../../src/core/recall/postgres-access";
import { PostgresRecallStore } from "../../src/core/recall/postgres-store";
import { RecallService } from "../../src/core/recall/service";
import { SqliteRecallStore } from "../../src/core/recall/sqlite-store";
import type { RecallStore } from "../../src/core/recall/store";
import { PostgresSessionStore } from "../../src/core/sessions/postgres-store";
import { SessionService } from "../../src/core/sessions/service";
import { SqliteSessionStore } from "../../src/core/sessions/sqlite-store";
import type { SessionStore } from "../../src/core/sessions/store";
import { recordingLogger } from "../helpers/log";
import { postgresDatabases } from "../helpers/postgres-databases";
import { tempDir } from "../helpers/temp-cleanup";
import { migratedDatabase } from "../helpers/sqlite";

const postgres = postgresDatabases();

const ada: Caller = { agentId: "ada", actor: "test", actorType: null, runtimePath: null };
const bob: Caller = { agentId: "bob", actor: "test", actorType: null, runtimePath: null };

interface Stores {
  memory: MemoryStore;
  recall: RecallStore;
  access: AccessWrites;
  sessions: SessionStore;
  agents: AgentStore;
}

interface Daemon {
  memory: MemoryService;
  sessions: SessionService;
  /** The session store itself, under the service. */
  sessionStore: SessionStore;
  recall: RecallService;
  agents: AgentStore;
  logged: string[];
  /** A memory's feedback signal and how many sessions rated it, read from the store itself. */
  feedbackOf(id: string): Promise<{ signal: number; ratings: number } | null>;
}

async function daemon(stores: Stores, feedbackOf: Daemon["feedbackOf"]): Promise<Daemon> {
  let recall: RecallService | undefined;
  const memory = new MemoryService(stores.memory, { onChange: (c) => recall?.onChange(c) });
  const { log, lines } = recordingLogger();
  recall = new RecallService(stores.recall, memory, null, new AccessLog(stores.access, log));
  await recall.start();
  const sessions = new SessionService(stores.sessions, memory, recall, {
    dataDir: tempDir(),
    sessionStartBudgetTokens: 2000,
    llm: undefined,
    log,
    agents: stores.agents,
  });
  return { memory, sessions, sessionStore: stores.sessions, recall, agents: stores.agents, logged: lines, feedbackOf };
}

function sqliteDaemon(): Promise<Daemon> {
  const db = migratedDatabase();
  const stores = {
    memory: new SqliteMemoryStore(db),
    recall: new SqliteRecallStore(db),
    access: new SqliteAccessWrites(db),
    sessions: new SqliteSessionStore(db),
    agents: new SqliteAgentStore(db),
  };
  return daemon(stores, async (id) => db.query<{ signal: number; ratings: number }, [string]>("SELECT signal, ratings FROM memory_feedback WHERE memory_id = ?").get(id));
}

function postgresDaemon(sql: Bun.SQL): Promise<Daemon> {
  const stores = {
    memory: new PostgresMemoryStore(sql),
    recall: new PostgresRecallStore(sql),
    access: new PostgresAccessWrites(sql),
    sessions: new PostgresSessionStore(sql),
    agents: new PostgresAgentStore(sql),
  };
  return daemon(stores, async (id) => (await sql<{ signal: number; ratings: number }[]>`SELECT signal, ratings FROM memory_feedback WHERE memory_id = ${id}`)[0] ?? null);
}

const STORES: { name: string; available: boolean; open(): Promise<Daemon> }[] = [
  { name: "SQLite", available: true, open: sqliteDaemon },
  { name: "PostgreSQL", available: postgres.available, open: async () => postgresDaemon((await postgres.database({ max: 4 }))()) },
];

const hook = (over: Partial<HookRequest> & { sessionKey: string }): HookRequest => HookRequestSchema.parse({ harness: "claude-code", ...over });

for (const kind of STORES) {
  describe.skipIf(!kind.available)(`sessions on ${kind.name}`, () => {
    test("session start opens the session, is present, and lists pinned, project and guidance memories", async () => {
      const d = await kind.open();
      await d.memory.remember(ada, { content: "Always run the linter before committing", pinned: true });
      await d.memory.remember(ada, { content: "The web app builds with Vite", project: "/work/web" });
      await d.memory.remember(ada, { content: "Prefer small pull requests", type: "preference" });
      await d.memory.remember(bob, { content: "Bob's own pinned note", pinned: true });
      const start = await d.sessions.hook("session-start", ada, hook({ sessionKey: "s1", project: "/work/web" }));
      expect("context" in start).toBe(true);
      const context = (start as { context: string }).context;
      for (const line of ["Always run the linter", "builds with Vite", "Prefer small pull requests"]) expect(context).toContain(line);
      expect(context).not.toContain("Bob's");
      expect(await d.agents.sessionHolder("s1")).toBe("ada");
      const listed = await d.sessions.list(ada, { limit: 10 });
      expect(listed.sessions.map((s) => [s.key, s.harness, s.project, s.endedAt])).toEqual([["s1", "claude-code", "/work/web", null]]);
      expect((await d.sessions.list(bob, { limit: 10 })).count).toBe(0);
      await expect(d.sessions.hook("session-start", bob, hook({ sessionKey: "s1" }))).rejects.toThrow("another agent");
      // A bypassed session's hooks stay silent.
      expect(await d.sessions.bypass(ada, "s1", true)).toEqual({ key: "s1", bypassed: true });
      expect(await d.sessions.hook("user-prompt-submit", ada, hook({ sessionKey: "s1", prompt: "linter" }))).toEqual({ bypassed: true });
    });

    test("prompts inject what they need once a window; compaction carries the window's memories across", async () => {
      const d = await kind.open();
      const staging = await d.memory.remember(ada, { content: "The staging database runs on heron-7" });
      await d.sessions.hook("session-start", ada, hook({ sessionKey: "s2" }));
      const first = (await d.sessions.hook("user-prompt-submit", ada, hook({ sessionKey: "s2", prompt: "which host runs the staging database?" }))) as {
        memoryIds: string[];
        context: string;
      };
      expect(first.memoryIds).toEqual([staging.id]);
      expect(first.context).toContain("heron-7");
      const again = (await d.sessions.hook("user-prompt-submit", ada, hook({ sessionKey: "s2", prompt: "and the staging database host again?" }))) as {
        memoryIds: string[];
      };
      expect(again.memoryIds).toEqual([]);
      const carried = (await d.sessions.hook("pre-compaction", ada, hook({ sessionKey: "s2" }))) as { memoryIds: string[] };
      expect(carried.memoryIds).toEqual([staging.id]);
      const after = (await d.sessions.hook("compaction-complete", ada, hook({ sessionKey: "s2" }))) as { memoryIds: string[]; window: number };
      expect(after).toMatchObject({ memoryIds: [staging.id], window: 1 });
      const detail = await d.sessions.get(ada, "s2");
      expect(detail.memories.map((m) => [m.via, m.window])).toEqual([
        ["user-prompt-submit", 0],
        ["compaction-complete", 1],
      ]);
      expect(detail.transcriptChars).toBeGreaterThan(0);
    });

    test("session end stores the transcript and leaves; its words are found, stemmed, by its agent alone", async () => {
      const d = await kind.open();
      await d.sessions.hook("session-start", ada, hook({ sessionKey: "s3", project: "/work/api" }));
      const end = await d.sessions.hook("session-end", ada, hook({ sessionKey: "s3", transcript: "user: we are deploying the billing service\nassistant: rolled back twice" }));
      expect(end).toMatchObject({ transcriptStored: true, extraction: "skipped" });
      expect(await d.agents.sessionHolder("s3")).toBe("ada");
      expect((await d.agents.listPresence({ limit: 10 })).map((p) => p.sessionKey)).toEqual([]);
      const search = (caller: Caller, query: string, extra: Record<string, unknown> = {}) =>
        d.sessions.search(caller, SessionSearchRequestSchema.parse({ query, ...extra }));
      const found = await search(ada, "deploy billing");
      expect(found.hits.map((h) => [h.sessionKey, h.project, h.rank])).toEqual([["s3", "/work/api", 1]]);
      expect(found.hits[0]!.excerpt).toContain("billing");
      expect((await search(ada, "kubernetes")).count).toBe(0);
      expect((await search(ada, "billing", { project: "/elsewhere" })).count).toBe(0);
      expect((await search(bob, "billing")).count).toBe(0);
      expect((await d.sessions.list(ada, { limit: 10, active: false })).sessions.map((s) => s.key)).toEqual(["s3"]);
    });

    test("a short transcript's excerpt is the whole transcript, its short words at either end kept, on both stores alike", async () => {
      const d = await kind.open();
      const transcripts = {
        "short-end": "User: we talked about the quokka experiment and kubernetes ingress for sess-a\nAssistant: ok",
        "short-start": "ok so we talked about the quokka experiment and kubernetes ingress\nAssistant: ok",
      };
      for (const [key, transcript] of Object.entries(transcripts)) {
        await d.sessions.hook("session-start", ada, hook({ sessionKey: key }));
        await d.sessions.hook("session-end", ada, hook({ sessionKey: key, transcript }));
        const found = await d.sessions.search(ada, SessionSearchRequestSchema.parse({ query: "quokka", sessionKey: key }));
        expect(found.hits.map((h) => h.excerpt)).toEqual([transcript]);
      }
    });

    test("a long transcript's excerpt is marked … where it cuts the text, on both stores alike", async () => {
      const d = await kind.open();
      const filler = (n: number) => Array.from({ length: n }, (_, i) => `line ${i} about nothing much in particular`).join("\n");
      const transcript = `${filler(40)}\nUser: the quokka experiment needs a kubernetes ingress\n${filler(40)}`;
      await d.sessions.hook("session-start", ada, hook({ sessionKey: "long" }));
      await d.sessions.hook("session-end", ada, hook({ sessionKey: "long", transcript }));
      const [hit] = (await d.sessions.search(ada, SessionSearchRequestSchema.parse({ query: "quokka", sessionKey: "long" }))).hits;
      expect(hit!.excerpt).toContain("quokka");
      expect(hit!.excerpt).toStartWith("…");
      expect(hit!.excerpt).toEndWith("…");
      // What is between the marks is the transcript's own text.
      expect(transcript).toContain(hit!.excerpt.slice(1, -1).trim());
    });

    test("removing a session takes what was recorded under its key, whichever agent holds it; the agent's memories stay", async () => {
      const d = await kind.open();
      const m = await d.memory.remember(ada, { content: "The cache TTL is ten minutes" });
      await d.sessions.hook("session-start", ada, hook({ sessionKey: "gone" }));
      await d.sessions.hook("user-prompt-submit", ada, hook({ sessionKey: "gone", prompt: "what is the cache TTL?" }));
      await d.sessions.hook("pre-compaction", ada, hook({ sessionKey: "gone", transcript: "user: cache ttl" }));
      const removed = await d.sessions.remove("gone");
      expect(removed).toEqual({ key: "gone", agentId: "ada", removed: { session: 1, transcript: 1, memories: 1, presence: 1, messages: 0 } });
      expect((await d.sessions.list(ada, { limit: 10 })).count).toBe(0);
      expect(await d.agents.sessionHolder("gone")).toBeNull();
      expect((await d.memory.get(ada, m.id)).content).toBe("The cache TTL is ten minutes");
      await expect(d.sessions.remove("gone")).rejects.toThrow("not found");
    });

    test("removing a session takes its ratings out of the signals of the memories it rated", async () => {
      const d = await kind.open();
      const m = await d.memory.remember(ada, { content: "Deploys go out from the release branch" });
      const other = await d.memory.remember(ada, { content: "Deploys need a green release pipeline" });
      const score = async () => {
        const found = await d.recall.recall(ada, RecallRequestSchema.parse({ query: "release branch deploys", minScore: 0 }));
        return found.results.find((r) => r.id === m.id)!.score;
      };
      const unrated = await score();
      for (const key of ["k1", "k2", "k3"]) {
        await d.sessions.hook("session-start", ada, hook({ sessionKey: key }));
        await d.sessions.hook("user-prompt-submit", ada, hook({ sessionKey: key, prompt: "which branch do deploys go out from, the release branch?" }));
      }
      expect((await d.sessions.get(ada, "k1")).memories.map((r) => r.memoryId)).toContain(m.id);
      await d.sessions.feedback(ada, { sessionKey: "k1", ratings: { [m.id]: -1 } });
      expect(await d.feedbackOf(m.id)).toEqual({ signal: -1, ratings: 1 });
      const harmful = await score();
      expect(harmful).toBeLessThan(unrated);
      // The session that rated it alone goes: the memory is unrated again, its score no longer lowered
      // by 10% (recalls count as uses, which may lift it a little).
      await d.sessions.remove("k1");
      expect(await d.feedbackOf(m.id)).toBeNull();
      expect(await score()).toBeGreaterThanOrEqual(unrated);
      expect(await score()).toBeGreaterThan(harmful * 1.05);
      // Rated by two sessions, one of them removed: the signal is the other's rating.
      await d.sessions.feedback(ada, { sessionKey: "k2", ratings: { [m.id]: 1 } });
      await d.sessions.feedback(ada, { sessionKey: "k3", ratings: { [m.id]: 0 } });
      expect(await d.feedbackOf(m.id)).toEqual({ signal: 0.5, ratings: 2 });
      // The store says how far the signal moved, for the agent that rated it, so the knowledge graph moves back too.
      const removal = await d.sessionStore.remove("k2");
      expect(removal!.response.removed.memories).toBeGreaterThan(0);
      expect(removal!.moves).toEqual([{ agentId: "ada", memoryId: m.id, move: -0.5 }]);
      expect(await d.feedbackOf(m.id)).toEqual({ signal: 0, ratings: 1 });
      expect(await d.feedbackOf(other.id)).toBeNull();
      expect(d.logged.filter((l) => l.startsWith("error"))).toEqual([]);
    });

    test("feedback counts only memories that reached the session; a memory's signal is the mean over sessions", async () => {
      const d = await kind.open();
      const m = await d.memory.remember(ada, { content: "Use pnpm for the monorepo" });
      const never = await d.memory.remember(ada, { content: "Unrelated note about lunch" });
      for (const key of ["f1", "f2"]) {
        await d.sessions.hook("session-start", ada, hook({ sessionKey: key }));
        await d.sessions.hook("user-prompt-submit", ada, hook({ sessionKey: key, prompt: "which package manager for the monorepo, pnpm?" }));
      }
      const first = await d.sessions.feedback(ada, { sessionKey: "f1", ratings: { [m.id]: 1, [never.id]: 1 } });
      expect(first).toMatchObject({ recorded: 2, accepted: 1, rejected: 1, rejectedIds: [never.id] });
      expect(await d.feedbackOf(m.id)).toEqual({ signal: 1, ratings: 1 });
      await d.sessions.feedback(ada, { sessionKey: "f2", ratings: { [m.id]: 0 } });
      expect(await d.feedbackOf(m.id)).toEqual({ signal: 0.5, ratings: 2 });
      expect(await d.feedbackOf(never.id)).toBeNull();
      const bobs = await d.sessions.feedback(bob, { sessionKey: "f1", ratings: { [m.id]: -1 } });
      expect(bobs.accepted).toBe(0);
      expect(d.logged.filter((l) => l.startsWith("error"))).toEqual([]);
    });
  });
}

describe.skipIf(!postgres.available)("sessions shared by two daemons on one PostgreSQL", () => {
  test("a session opened through one daemon is seen through the other; ratings through both at once all count", async () => {
    const connect = await postgres.database({ max: 8 });
    const one = await postgresDaemon(connect());
    for (let i = 0; i < 10; i++) await one.memory.remember(ada, { content: `Convention ${i}: tabs in the Makefile ${i}` });
    // Started after the memories, so its keyword index holds them (recall-store.test follows the feed).
    const two = await postgresDaemon(connect());
    const sessions = ["r1", "r2", "r3", "r4"];
    for (const key of sessions) {
      await one.sessions.hook("session-start", ada, hook({ sessionKey: key }));
      await two.sessions.hook("user-prompt-submit", ada, hook({ sessionKey: key, prompt: "tabs in the Makefile convention" }));
    }
    expect((await two.sessions.list(ada, { limit: 10 })).count).toBe(4);
    const reached = (await one.sessions.get(ada, "r1")).memories.map((m) => m.memoryId);
    expect(reached.length).toBeGreaterThan(0);
    const ratings = Object.fromEntries(reached.map((id) => [id, 1]));
    // Two sessions through each daemon, all at once: each signal ends as the mean of all four.
    await Promise.all(sessions.map((key, i) => (i % 2 ? one : two).sessions.feedback(ada, { sessionKey: key, ratings: i < 2 ? ratings : Object.fromEntries(reached.map((id) => [id, 0])) })));
    for (const id of reached) expect(await one.feedbackOf(id)).toEqual({ signal: 0.5, ratings: 4 });
  });

  test("sessions rating the same memories in opposite orders at once never deadlock", async () => {
    const connect = await postgres.database({ max: 8 });
    const one = await postgresDaemon(connect());
    for (let i = 0; i < 10; i++) await one.memory.remember(ada, { content: `Rule ${i}: spaces in the YAML ${i}` });
    const two = await postgresDaemon(connect());
    const sessions = ["o1", "o2", "o3", "o4"];
    for (const key of sessions) {
      await one.sessions.hook("session-start", ada, hook({ sessionKey: key }));
      await two.sessions.hook("user-prompt-submit", ada, hook({ sessionKey: key, prompt: "spaces in the YAML rule" }));
    }
    const reached = (await one.sessions.get(ada, "o1")).memories.map((m) => m.memoryId);
    expect(reached.length).toBeGreaterThan(1);
    for (let round = 0; round < 5; round++) {
      // Each memory is locked while its signal is recomputed: taken in the ratings' order, two
      // sessions holding one memory each and waiting for the other's would deadlock.
      const forward = Object.fromEntries(reached.map((id) => [id, round % 2]));
      const backward = Object.fromEntries([...reached].reverse().map((id) => [id, 1 - (round % 2)]));
      await Promise.all(sessions.map((key, i) => (i % 2 ? one : two).sessions.feedback(ada, { sessionKey: key, ratings: i % 2 ? forward : backward })));
    }
    for (const id of reached) expect(await one.feedbackOf(id)).toEqual({ signal: 0.5, ratings: 4 });
  });
});
