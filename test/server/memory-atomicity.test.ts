// Every memory write over real HTTP is atomic across the row, its tags and its history, the keyword
// index follows what was committed, refused writes change nothing, and a 2xx is visible to a fresh
// connection.
import { describe, expect, test } from "bun:test";
import { openDatabase } from "../../src/db/open";
import { databasePath } from "../../src/config/paths";
import { call, freshAgent, remember, useTestDaemon } from "../helpers/memory-api";

const td = useTestDaemon();

describe("every write is atomic across row, tags and history; the keyword index follows it", () => {
  const db = () => td().daemon.context.stores.sqlite!;
  const seqOf = (id: string) => db().query<{ seq: number }, [string]>("SELECT seq FROM memories WHERE id = ?").get(id)!.seq;
  /** The ids a keyword-only recall (the daemon runs provider none) finds for `term`, in the agent's memories. */
  const found = async (agent: string, term: string): Promise<string[]> => {
    const res = await call(td(), "POST", "/api/memory/recall", { body: { query: term, minScore: 0 }, agent });
    expect(res.status).toBe(200);
    return res.body.results.map((r: { id: string }) => r.id);
  };
  const tagsOf = (id: string) =>
    db()
      .query<{ tag: string }, [number]>("SELECT tag FROM memory_tags WHERE memory_seq = ? ORDER BY tag")
      .all(seqOf(id))
      .map((r) => r.tag);
  const historyCount = (id: string) =>
    db().query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM memory_history WHERE memory_id = ?").get(id)!.n;
  const counts = () => ({
    memories: db().query<{ n: number }, []>("SELECT COUNT(*) AS n FROM memories").get()!.n,
    history: db().query<{ n: number }, []>("SELECT COUNT(*) AS n FROM memory_history").get()!.n,
    tags: db().query<{ n: number }, []>("SELECT COUNT(*) AS n FROM memory_tags").get()!.n,
  });

  test("remember -> forget -> recover: keyword recall finds the memory exactly while it is live", async () => {
    const agent = freshAgent();
    const m = await remember(td(), agent, { content: "zebrafish telemetry pipeline", tags: ["zz1", "zz2"], hints: ["aquarium sensors"] });
    // Found by its content, its tags and its hints.
    expect(await found(agent, "zebrafish")).toEqual([m.id]);
    expect(await found(agent, "zz1")).toEqual([m.id]);
    expect(await found(agent, "aquarium")).toEqual([m.id]);
    expect(tagsOf(m.id)).toEqual(["zz1", "zz2"]);
    expect(historyCount(m.id)).toBe(1);

    await call(td(), "DELETE", `/api/memory/${m.id}`, { body: { reason: "gone" }, agent });
    expect(await found(agent, "zebrafish")).toEqual([]);
    expect(historyCount(m.id)).toBe(2);

    await call(td(), "POST", `/api/memory/${m.id}/recover`, { body: {}, agent });
    expect(await found(agent, "zebrafish")).toEqual([m.id]);
    expect(await found(agent, "zz2")).toEqual([m.id]);
    expect(historyCount(m.id)).toBe(3);
  });

  test("modify replaces the indexed text and the tag rows", async () => {
    const agent = freshAgent();
    const m = await remember(td(), agent, { content: "quokka habitat notes", tags: ["before"] });
    await call(td(), "PATCH", `/api/memory/${m.id}`, { body: { reason: "rename", content: "wombat habitat notes", tags: ["after"] }, agent });
    expect(await found(agent, "quokka")).toEqual([]);
    expect(await found(agent, "wombat")).toEqual([m.id]);
    expect(await found(agent, "after")).toEqual([m.id]);
    expect(await found(agent, "before")).toEqual([]);
    expect(tagsOf(m.id)).toEqual(["after"]);
    expect(historyCount(m.id)).toBe(2);
  });

  test("a deduped remember writes nothing", async () => {
    const agent = freshAgent();
    await remember(td(), agent, { content: "dedupe writes nothing", tags: ["t"] });
    const before = counts();
    const res = await call(td(), "POST", "/api/memory/remember", { body: { content: "Dedupe writes nothing!", tags: ["t", "u"] }, agent });
    expect(res.status).toBe(200);
    expect(counts()).toEqual(before);
  });

  test("refused writes (400, 404, 409) leave every table unchanged", async () => {
    const agent = freshAgent();
    const pinned = await remember(td(), agent, { content: "refusals pinned", pinned: true });
    const gone = await remember(td(), agent, { content: "refusals gone" });
    await call(td(), "DELETE", `/api/memory/${gone.id}`, { body: { reason: "x" }, agent });
    const before = counts();
    const refusals: [string, string, unknown, number][] = [
      ["POST", "/api/memory/remember", { content: "future", createdAt: "2999-01-01T00:00:00Z" }, 400],
      ["POST", "/api/memory/remember", { content: "bad", importance: 7 }, 400],
      ["POST", "/api/memory/note", { content: "n".repeat(8001) }, 400],
      ["DELETE", `/api/memory/${pinned.id}`, { reason: "no force" }, 409],
      ["DELETE", `/api/memory/${gone.id}`, { reason: "again" }, 409],
      ["PATCH", `/api/memory/${gone.id}`, { reason: "r", content: "zombie" }, 409],
      ["PATCH", `/api/memory/${pinned.id}`, { reason: "r", content: "stale", ifVersion: 9 }, 409],
      ["PATCH", `/api/memory/${crypto.randomUUID()}`, { reason: "r", content: "nobody" }, 404],
      ["POST", `/api/memory/${crypto.randomUUID()}/recover`, {}, 404],
    ];
    for (const [method, path, body, status] of refusals) {
      const res = await call(td(), method, path, { body, agent });
      expect({ method, path, status: res.status }).toEqual({ method, path, status });
    }
    expect(counts()).toEqual(before);
  });

  test("the daemon's database answers durably: a fresh connection sees the write", async () => {
    const agent = freshAgent();
    const m = await remember(td(), agent, { content: "visible to another connection" });
    const other = openDatabase(databasePath(td().dataDir));
    try {
      const row = other.query<{ content: string }, [string]>("SELECT content FROM memories WHERE id = ?").get(m.id);
      expect(row?.content).toBe("visible to another connection");
    } finally {
      other.close();
    }
  });
});
