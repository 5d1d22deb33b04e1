// Export, import and backup over real HTTP against real daemons (docs/api.md#export-import-and-backup):
// a round trip loses nothing, a second import adds nothing, what is stored is never overwritten, the
// export is one snapshot streamed in pieces, the backup is a consistent owner-only copy, and every
// route refuses web pages and callers without the owner's admin token.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, lstatSync, mkdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ApiError } from "../../src/client/client";
import { databasePath } from "../../src/config/paths";
import { exportStream, sqliteExportReader } from "../../src/core/transfer/export";
import { startTestDaemon, tempDir, type TestDaemon } from "../helpers/daemon";
import type { ServerMemoryItem } from "../../src/contracts/transfer";
import { exportRecord as record, type ExportRecordLine } from "../helpers/export-record";
import { call, expectError } from "../helpers/memory-api";

let a: TestDaemon;
let b: TestDaemon;

beforeAll(async () => {
  a = await startTestDaemon({ yaml: "agents:\n  team:\n    readPolicy: shared\n" });
  b = await startTestDaemon();
});

afterAll(async () => {
  await a.stop();
  await b.stop();
});

async function exportLines(td: TestDaemon, forgotten = false): Promise<any[]> {
  const out: any[] = [];
  for await (const line of td.client().transfer.export({ forgotten: forgotten || undefined })) out.push(JSON.parse(line));
  return out;
}

function count(td: TestDaemon, table: string): number {
  return (td.daemon.context.stores.sqlite!.query(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
}

describe("round trip", () => {
  let file: any[];

  beforeAll(async () => {
    const me = a.client("alice");
    const first = await me.memory.remember({
      content: "The build uses Bun",
      type: "decision",
      importance: 0.8,
      tags: ["tooling", "build"],
      project: "/src/app",
      sessionKey: "s-1",
      hints: ["which bundler"],
      transcript: "we talked about bundlers",
      // A __proto__ key is data like any other (docs/api.md#the-memory-object), and survives the trip.
      structured: JSON.parse('{"entity":"build","attributes":{"runtime":"bun"},"__proto__":{"polluted":true}}'),
      reviewAfter: "2030-01-01",
      createdAt: "2024-05-01T08:00:00Z",
    });
    await me.memory.modify(first.id, { reason: "be precise", content: "The build uses Bun 1.4", tags: ["tooling"] });
    await me.memory.modify(first.id, { reason: "pin it", pinned: true });
    const gone = await me.memory.remember({ content: "A passing thought", tags: ["scratch"] });
    await me.memory.forget(gone.id, { reason: "wrong" });
    const back = await me.memory.remember({ content: "Forgot then recovered" });
    await me.memory.forget(back.id, { reason: "oops" });
    await me.memory.recover(back.id, { reason: "needed after all" });
    await a.client("team").memory.remember({ content: "Team rule: review every PR", type: "rule" });
    await me.memory.remember({ content: "Ünïcödé, emoji 🎉, a tab\t, a bell \u0007 and a lone \ud800 surrogate", tags: ["çà"] });
    await a.client().memory.note({ content: "note body", title: "A title", tags: "n" });
    // Recall bumps access counts a moment after it answers.
    await me.memory.recall({ query: "build bun" });
    await Bun.sleep(300);
    file = await exportLines(a, true);
  });

  test("the header counts every memory, forgotten ones included, and each line holds its whole history", () => {
    const [header, ...records] = file;
    expect(header).toMatchObject({ kind: "signet-export", version: 1, count: 6, forgotten: true });
    expect(header.exportedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(records).toHaveLength(6);
    const build = records.find((r) => r.content === "The build uses Bun 1.4");
    expect(build.history.map((h: any) => [h.version, h.action, h.reason])).toEqual([
      [1, "create", null],
      [2, "modify", "be precise"],
      [3, "modify", "pin it"],
    ]);
    expect(build.history[0]).toMatchObject({ content: "The build uses Bun", tags: ["tooling", "build"], runtimePath: null, actor: "test" });
    expect(build.accessCount).toBe(1);
    expect(JSON.stringify(build.structured)).toBe('{"entity":"build","attributes":{"runtime":"bun"},"__proto__":{"polluted":true}}');
    expect(records.map((r) => r.agentId).sort()).toEqual(["alice", "alice", "alice", "alice", "default", "team"]);
  });

  test("export → import into an empty store → export: the same records, only the header's time differs", async () => {
    const [, ...records] = file;
    const answer = await b.client().transfer.import({ format: "signet", records });
    expect(answer).toEqual({ imported: 6, skipped: 0, duplicates: [], conflicts: [], rejected: [] });
    const [header, ...again] = await exportLines(b, true);
    expect(again).toEqual(records);
    expect(JSON.stringify(again)).toBe(JSON.stringify(records));
    expect({ ...header, exportedAt: null }).toEqual({ ...file[0], exportedAt: null });
    // And the API answers the same memory, with its history, in both.
    const id = records.find((r: any) => r.pinned).id;
    expect(await b.client("alice").memory.get(id)).toEqual(await a.client("alice").memory.get(id));
  });

  test("imported memories are live memories: recalled, listed, forgotten ones only with forgotten=true", async () => {
    const recalled = await b.client("alice").memory.recall({ query: "bun build" });
    expect(recalled.results.map((r) => r.content)).toContain("The build uses Bun 1.4");
    const forgotten = await b.client("alice").memory.list({ forgotten: true });
    expect(forgotten.memories.map((m) => m.content)).toEqual(["A passing thought"]);
    expect((await b.client("alice").memory.recall({ query: "passing thought" })).results).toEqual([]);
  });

  test("importing the same file again adds nothing: every memory is skipped", async () => {
    const [, ...records] = file;
    const before = [count(b, "memories"), count(b, "memory_history"), count(b, "memory_tags")];
    const answer = await b.client().transfer.import({ format: "signet", records });
    expect(answer).toEqual({ imported: 0, skipped: 6, duplicates: [], conflicts: [], rejected: [] });
    expect([count(b, "memories"), count(b, "memory_history"), count(b, "memory_tags")]).toEqual(before);
  });

  test("a memory changed here since the export is skipped: it holds the file's version in its history", async () => {
    const [, ...records] = file;
    const target = records.find((r: any) => r.content === "Team rule: review every PR");
    await b.client("team").memory.modify(target.id, { reason: "sharpen", content: "Team rule: review every PR within a day" });
    const answer = await b.client().transfer.import({ format: "signet", records: [target] });
    expect(answer).toEqual({ imported: 0, skipped: 1, duplicates: [], conflicts: [], rejected: [] });
    expect((await b.client("team").memory.get(target.id)).content).toBe("Team rule: review every PR within a day");
  });

  test("a memory stored differently under the same id is a conflict, reported and left as it is", async () => {
    const [, ...records] = file;
    const target = records.find((r: any) => r.content === "Team rule: review every PR");
    const before = await b.client("team").memory.get(target.id);
    // The file is ahead of the store: it would take overwriting to import it.
    const ahead = {
      ...target,
      version: 3,
      content: "Team rule: review every PR twice",
      history: [...target.history, { ...target.history[0], version: 3, action: "modify", content: "Team rule: review every PR twice", reason: "stricter" }],
    };
    // The same version with other content: the two stores went their own ways.
    const diverged = { ...target, content: "Team rule: never review", history: [{ ...target.history[0], content: "Team rule: never review" }] };
    const otherAgent = { ...target, agentId: "alice", history: [{ ...target.history[0], agentId: "alice" }] };
    const answer = await b.client().transfer.import({ format: "signet", records: [ahead, diverged, otherAgent] });
    expect(answer.imported + answer.skipped).toBe(0);
    expect(answer.conflicts.map((c) => c.reason)).toEqual([
      `memory ${target.id} exists and it is at version 2 here and at version 3 in the file: left as it is`,
      `memory ${target.id} exists and its content at version 1 differs from the file's: left as it is`,
      `memory ${target.id} exists and it belongs to agent team here and to alice in the file: left as it is`,
    ]);
    expect(await b.client("team").memory.get(target.id)).toEqual(before);
  });

  test("without forgotten=true the export holds live memories only", async () => {
    const [header, ...records] = await exportLines(a);
    expect(header).toMatchObject({ count: 5, forgotten: false });
    expect(records.map((r) => r.deletedAt)).toEqual([null, null, null, null, null]);
  });
});

describe("import", () => {
  test("a live record whose text an agent already holds under another id is a duplicate, not imported", async () => {
    const agent = "dup-agent";
    const mine = await b.client(agent).memory.remember({ content: "Tabs, not spaces" });
    const theirs = record(crypto.randomUUID(), "tabs, not spaces.", agent);
    const answer = await b.client().transfer.import({ format: "signet", records: [theirs] });
    expect(answer).toMatchObject({ imported: 0, skipped: 0, duplicates: [{ id: theirs.id, existingId: mine.id }] });
    // A forgotten one takes no part in dedupe, as in remember.
    const created = record(crypto.randomUUID(), "Tabs, not spaces", agent);
    const forgotten = "2025-03-02T00:00:00.000Z";
    const gone: ExportRecordLine = {
      ...created,
      version: 2,
      deletedAt: forgotten,
      deleteReason: "replaced",
      updatedAt: forgotten,
      history: [...created.history, { ...created.history[0]!, version: 2, action: "forget", reason: "replaced", createdAt: forgotten }],
    };
    expect((await b.client().transfer.import({ format: "signet", records: [gone] })).imported).toBe(1);
  });

  test("a record whose history does not reach its version is refused, naming it, and nothing is written", async () => {
    const before = count(b, "memories");
    const bad = { ...record(crypto.randomUUID(), "inconsistent"), version: 3 };
    const res = await call(b, "POST", "/api/import", { body: { format: "signet", records: [bad] }, headers: b.ownerHeaders });
    expectError(res, 400, "invalid_input", "records.0.history: ends at version 1, but the memory is at version 3");
    const unknown = await call(b, "POST", "/api/import", { body: { format: "csv", rows: [] }, headers: b.ownerHeaders });
    expectError(unknown, 400, "invalid_input", "signet, server-memory, basic-memory");
    expect(count(b, "memories")).toBe(before);
  });

  test("a record created or changed later than the daemon's clock is rejected, naming it; the rest of the batch is imported", async () => {
    const future = new Date(Date.now() + 24 * 60 * 60 * 1000).toISOString();
    const early = record(crypto.randomUUID(), "written tomorrow");
    const ahead: ExportRecordLine = { ...early, createdAt: future, updatedAt: future, history: [{ ...early.history[0]!, createdAt: future }] };
    const fine = record(crypto.randomUUID(), "written in the past");
    const answer = await b.client().transfer.import({ format: "signet", records: [ahead, fine] });
    expect(answer.imported).toBe(1);
    expect(answer.rejected).toEqual([{ source: `memory ${ahead.id}`, reason: `createdAt ${future} is in the future` }]);
    expect(await call(b, "GET", `/api/memory/${ahead.id}`, { headers: b.ownerHeaders }).then((r) => r.status)).toBe(404);
  });

  test("server-memory: each observation a memory naming and tagged with its entity, each relation a memory; again: all skipped", async () => {
    const items: ServerMemoryItem[] = [
      { type: "entity", name: "Ada Lovelace", entityType: "person", observations: ["Wrote the first program", "Ada Lovelace worked with Babbage"] },
      { type: "entity", name: "Analytical Engine", entityType: "machine", observations: [] },
      { type: "relation", from: "Ada Lovelace", to: "Analytical Engine", relationType: "programmed" },
    ];
    const agent = "graph-agent";
    const first = await b.client(agent).transfer.import({ format: "server-memory", items });
    expect(first).toEqual({ imported: 4, skipped: 0, duplicates: [], conflicts: [], rejected: [] });
    const { memories } = await b.client(agent).memory.list({ tags: "Ada Lovelace" });
    expect(memories.map((m) => m.content).sort()).toEqual(["Ada Lovelace programmed Analytical Engine", "Ada Lovelace worked with Babbage", "Ada Lovelace: Wrote the first program"]);
    const wrote = memories.find((m) => m.content === "Ada Lovelace: Wrote the first program")!;
    expect(wrote).toMatchObject({ tags: ["Ada Lovelace", "person"], type: "fact", source: "server-memory", agentId: agent, structured: { source: "server-memory", entity: "Ada Lovelace", entityType: "person" } });
    const engine = (await b.client(agent).memory.list({ tags: "machine" })).memories;
    expect(engine.map((m) => m.content)).toEqual(["Analytical Engine (machine)"]);
    // Forgotten after the import, it stays forgotten when the file is imported again.
    await b.client(agent).memory.forget(wrote.id, { reason: "test" });
    expect(await b.client(agent).transfer.import({ format: "server-memory", items })).toEqual({ imported: 0, skipped: 4, duplicates: [], conflicts: [], rejected: [] });
  });

  test("basic-memory: observations typed by category and tagged; relations; a note without either is one note", async () => {
    const agent = "notes-agent";
    const notes = [
      {
        path: "coffee/brewing.md",
        modifiedAt: "2025-01-02T03:04:05Z",
        text: [
          "---",
          "title: Coffee Brewing Methods",
          "type: note",
          "tags: [coffee, brewing]",
          "permalink: coffee-brewing-methods",
          "---",
          "# Coffee Brewing Methods",
          "Some prose that is not an observation.",
          "## Observations",
          "- [decision] Pour over gives more clarity than French press",
          "- [technique] Water at 205°F extracts best #temperature (from experience)",
          "- [ ] a task, not an observation",
          "```",
          "- [fact] inside a code fence: not an observation",
          "```",
          "## Relations",
          "- relates_to [[Coffee Bean Origins]]",
        ].join("\n"),
      },
      { path: "plain.md", text: "Just a plain note without structure." },
      { path: "broken.md", text: "---\ntitle: [unclosed\n---\nbody" },
    ];
    const answer = await b.client(agent).transfer.import({ format: "basic-memory", notes });
    expect(answer).toMatchObject({ imported: 4, skipped: 0, duplicates: [], conflicts: [] });
    expect(answer.rejected).toEqual([{ source: "broken.md", reason: expect.stringContaining("frontmatter is not valid YAML") }]);
    const all = (await b.client(agent).memory.list({})).memories;
    const byContent = Object.fromEntries(all.map((m) => [m.content, m]));
    expect(Object.keys(byContent).sort()).toEqual([
      "Coffee Brewing Methods relates_to Coffee Bean Origins",
      "Pour over gives more clarity than French press",
      "Water at 205°F extracts best #temperature (from experience)",
      "plain\n\nJust a plain note without structure.",
    ]);
    expect(byContent["Pour over gives more clarity than French press"]).toMatchObject({
      type: "decision",
      tags: ["coffee", "brewing", "Coffee Brewing Methods"],
      createdAt: "2025-01-02T03:04:05.000Z",
      structured: { source: "basic-memory", note: "Coffee Brewing Methods", permalink: "coffee-brewing-methods", category: "decision", path: "coffee/brewing.md" },
    });
    expect(byContent["Water at 205°F extracts best #temperature (from experience)"]!.tags).toEqual(["coffee", "brewing", "temperature", "Coffee Brewing Methods"]);
    expect(byContent["plain\n\nJust a plain note without structure."]!.type).toBe("note");
    const again = await b.client(agent).transfer.import({ format: "basic-memory", notes: notes.slice(0, 2) });
    expect(again).toEqual({ imported: 0, skipped: 4, duplicates: [], conflicts: [], rejected: [] });
  });
});

describe("export streaming", () => {
  let c: TestDaemon;
  beforeAll(async () => {
    c = await startTestDaemon();
    const memory = c.daemon.context.memory;
    const bulk = { agentId: "bulk", actor: null, actorType: null, runtimePath: null };
    await Promise.all(Array.from({ length: 1000 }, (_, i) => memory.remember(bulk, { content: `bulk memory number ${i}` })));
  });
  afterAll(async () => {
    await c.stop();
  });

  test("the answer is NDJSON made a page of memories at a time, as it is read", async () => {
    const res = await c.fetch("/api/export", { headers: c.ownerHeaders });
    expect(res.headers.get("content-type")).toBe("application/x-ndjson");
    const text = await res.text();
    expect(text.trim().split("\n")).toHaveLength(1001);
    // The stream itself: each read makes one page, never the whole export at once.
    const stream = await exportStream(sqliteExportReader(databasePath(c.dataDir)), { forgotten: false });
    const reader = stream.getReader();
    const sizes: number[] = [];
    for (let r = await reader.read(); !r.done; r = await reader.read()) sizes.push(new TextDecoder().decode(r.value).trim().split("\n").length);
    expect(sizes).toEqual([1, 200, 200, 200, 200, 200]);
  });

  test("one snapshot: writes made while it is read are not in it, and its header counts what it holds", async () => {
    // Read straight from the stream: over HTTP, socket buffers could take it all before the writes.
    const reader = (await exportStream(sqliteExportReader(databasePath(c.dataDir)), { forgotten: false })).getReader();
    const text = async () => {
      const r = await reader.read();
      return r.done ? null : new TextDecoder().decode(r.value);
    };
    const header = JSON.parse((await text())!);
    let lines = (await text())!.trim().split("\n");
    for (let i = 0; i < 5; i++) await c.client("bulk").memory.remember({ content: `written during the export ${i}` });
    for (let chunk = await text(); chunk !== null; chunk = await text()) lines = [...lines, ...chunk.trim().split("\n")];
    expect(header.count).toBe(1000);
    expect(lines).toHaveLength(1000);
    expect(lines.filter((l) => JSON.parse(l).content.startsWith("written during"))).toEqual([]);
    expect(count(c, "memories")).toBe(1005);
  });
});

describe("backup", () => {
  test("a 0600 copy that opens and holds every memory with its history, while writes go on", async () => {
    const dir = tempDir("signet-backup-");
    const path = join(dir, "copy.db");
    const client = a.client("writer");
    const before = count(a, "memories");
    const writes = Array.from({ length: 40 }, (_, i) => client.memory.remember({ content: `written alongside the backup ${i}` }));
    const [copy] = await Promise.all([a.client().transfer.backup({ path }), ...writes]);
    const after = count(a, "memories");
    expect(after).toBe(before + 40);
    expect(copy.path).toBe(path);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(copy.bytes).toBe(statSync(path).size);
    const db = new Database(path, { readonly: true });
    try {
      expect(db.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
      const n = (db.query("SELECT COUNT(*) AS n FROM memories").get() as { n: number }).n;
      expect(n).toBe(copy.memories);
      expect(n).toBeGreaterThanOrEqual(before);
      expect(n).toBeLessThanOrEqual(after);
      // Consistent: every memory in the copy has the history of each of its versions.
      const gaps = db.query("SELECT COUNT(*) AS n FROM memories m WHERE m.version <> (SELECT COUNT(*) FROM memory_history h WHERE h.memory_id = m.id)").get();
      expect(gaps).toEqual({ n: 0 });
      expect(db.query("SELECT content FROM memories WHERE content = 'The build uses Bun 1.4'").get()).toEqual({ content: "The build uses Bun 1.4" });
    } finally {
      db.close();
    }
    expect(existsSync(`${path}-wal`)).toBe(false);
  });

  test("never overwrites: an existing file or a link there is 409 exists, and stays as it was", async () => {
    const dir = tempDir("signet-backup-");
    const existing = join(dir, "there.db");
    writeFileSync(existing, "mine");
    const err = await a.client().transfer.backup({ path: existing }).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 409, code: "exists" });
    expect(err.message).toContain("never overwrites");
    const link = join(dir, "link.db");
    symlinkSync(join(dir, "elsewhere.db"), link);
    const linked = await a.client().transfer.backup({ path: link }).catch((e) => e);
    expect(linked).toMatchObject({ status: 409, code: "exists" });
    expect(linked.message).toContain("is a symbolic link (refusing to write through it)");
    expect(existsSync(join(dir, "elsewhere.db"))).toBe(false);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(await Bun.file(existing).text()).toBe("mine");
  });

  test("a relative path, a missing directory or a directory is 400 naming the problem", async () => {
    const dir = tempDir("signet-backup-");
    mkdirSync(join(dir, "sub"));
    const cases: [string, string][] = [
      ["copy.db", "must be an absolute path"],
      [join(dir, "missing", "copy.db"), "does not exist"],
      [join(dir, "sub"), "is a directory"],
      [join(dir, "nul\0.db"), "NUL character"],
      [join(dir, `${"x".repeat(256)}.db`), "too long"],
    ];
    for (const [path, mention] of cases) {
      const res = await call(a, "POST", "/api/backup", { body: { path }, headers: a.ownerHeaders });
      expect(res.body.error).toContain(mention);
      expect(res.status).toBe(path === join(dir, "sub") ? 409 : 400);
    }
  });
});

describe("the owner's routes refuse forged callers", () => {
  const dir = tempDir("signet-forged-");
  const routes: [string, string, unknown][] = [
    ["GET", "/api/export", undefined],
    ["GET", "/api/export?forgotten=true", undefined],
    ["POST", "/api/import", { format: "signet", records: [record(crypto.randomUUID(), "planted")] }],
    ["POST", "/api/backup", { path: join(dir, "stolen.db") }],
  ];

  async function attempt(method: string, path: string, body: unknown, headers: Record<string, string>) {
    return a.fetch(path, {
      method,
      headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  test("without the admin token: 401; with a wrong one: 403; nothing is read or written", async () => {
    const before = count(a, "memories");
    for (const [method, path, body] of routes) {
      const missing = await attempt(method, path, body, {});
      expect({ path, status: missing.status, code: (await missing.json()).code }).toEqual({ path, status: 401, code: "unauthorized" });
      const wrong = await attempt(method, path, body, { authorization: "Bearer not-the-token" });
      expect({ path, status: wrong.status }).toEqual({ path, status: 403 });
    }
    // However the path is spelled.
    const spelled: [string, string][] = [
      ["GET", "/API/Export"],
      ["GET", "/api//export"],
      ["GET", "/api/export/"],
      ["GET", "/api/%65xport"],
      ["POST", "/api/import/"],
      ["POST", "/API/Backup"],
      ["POST", "/api/%62ackup/"],
    ];
    for (const [method, path] of spelled) {
      expect({ path, status: (await attempt(method, path, undefined, {})).status }).toEqual({ path, status: 401 });
    }
    expect(count(a, "memories")).toBe(before);
    expect(existsSync(join(dir, "stolen.db"))).toBe(false);
  });

  test("a web page (foreign Origin) or DNS rebinding (foreign Host) is 403, even with the token", async () => {
    const port = new URL(a.url).port;
    for (const [method, path, body] of routes) {
      const page = await attempt(method, path, body, { ...a.ownerHeaders, origin: "http://evil.example" });
      expect({ path, status: page.status }).toEqual({ path, status: 403 });
      const rebound = await attempt(method, path, body, { ...a.ownerHeaders, host: `evil.example:${port}` });
      expect({ path, status: rebound.status }).toEqual({ path, status: 403 });
    }
    expect(existsSync(join(dir, "stolen.db"))).toBe(false);
  });
});
