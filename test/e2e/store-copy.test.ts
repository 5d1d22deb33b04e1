// `signet store copy` (docs/deploy.md#moving-a-store), as an operator runs it: a SQLite daemon's
// store (memories with their history, a forgotten one, a session's transcript, a document source,
// a message, a token, the graph) copied into a new SQLite file and into an empty PostgreSQL database,
// served from there by a daemon that finds it all, and copied back into a new SQLite file that
// serves it too (its full-text tables made again). A target that is not empty, an existing file, or
// a running daemon is refused, and nothing is written.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { databasePath } from "../../src/config/paths";
import { json, run, sandbox, type Sandbox } from "../helpers/binary";
import { jsonCall } from "../helpers/json-call";
import { postgresDatabases } from "../helpers/postgres-databases";

const postgres = postgresDatabases();
const YAML = "embedding:\n  provider: none\n";

let source: Sandbox;
const cli = (s: Sandbox, args: string[], env: Record<string, string> = {}) => run(args, { env: { ...s.env, ...env }, cwd: s.home });

const api = (s: Sandbox, method: string, path: string, body?: unknown, agentId = "ada") =>
  jsonCall(`http://127.0.0.1:${s.port}`, method, path, body, { "x-signet-agent-id": agentId });

/** What a daemon on `s` serves of the copied store: recall, history, the forgotten memory, the transcript, the source, the message, the token, the graph. */
async function served(s: Sandbox, env: Record<string, string> = {}) {
  expect((await cli(s, ["daemon", "start"], env)).code).toBe(0);
  try {
    const recall = await api(s, "POST", "/api/memory/recall", { query: "which branch does payments deploy from" });
    const memoryId = recall.body.results[0]?.id;
    return {
      recalled: recall.body.results.map((m: { content: string }) => m.content),
      history: (await api(s, "GET", `/api/memory/${memoryId}/history`)).body.history?.length,
      forgotten: (await api(s, "GET", "/api/memories?forgotten=true")).body.memories.map((m: { content: string }) => m.content),
      sessions: (await api(s, "POST", "/api/sessions/search", { query: "flamingo" })).body.count,
      chunks: (await api(s, "POST", "/api/sources/search", { query: "runbook rollback" })).body.results.map((r: { path: string }) => r.path.split("/").pop()),
      inbox: (await api(s, "GET", "/api/cross-agent/messages", undefined, "bob")).body.count,
      tokens: json(await cli(s, ["token", "list"], env)).tokens.length,
      entities: (await api(s, "GET", "/api/graph/entities?query=Dana")).body.entities.map((e: { name: string; mentions: number }) => [e.name, e.mentions]),
      // Without what each recall above changes (the copy itself compares the exports whole).
      export: (await cli(s, ["export", "--forgotten"], env)).stdout
        .split("\n")
        .slice(1)
        .map((line) => line.replace(/"accessCount":\d+,"lastAccessedAt":("[^"]*"|null),/, ""))
        .join("\n"),
    };
  } finally {
    await cli(s, ["daemon", "stop"], env);
  }
}

let original: Awaited<ReturnType<typeof served>>;

beforeAll(async () => {
  source = await sandbox(YAML);
  expect((await cli(source, ["daemon", "start"])).code).toBe(0);
  try {
    const m = json(await cli(source, ["remember", "The payments service deploys from the blue-heron branch", "--agent", "ada"]));
    expect((await cli(source, ["modify", m.id, "--reason", "renamed", "--content", "The payments service deploys from the blue-heron-2 branch", "--agent", "ada"])).code).toBe(0);
    const gone = json(await cli(source, ["remember", "A passing thought about lunch", "--agent", "ada"]));
    expect((await cli(source, ["forget", gone.id, "--reason", "noise", "--agent", "ada"])).code).toBe(0);
    expect((await cli(source, ["remember", "Dana Weber owns the billing service", "--agent", "ada"])).code).toBe(0);
    await api(source, "POST", "/api/hooks/session-end", { harness: "claude-code", sessionKey: "s-copy", transcript: "user: the flamingo deploy broke\nassistant: rolled it back" });
    const docs = join(source.home, "docs");
    mkdirSync(docs);
    writeFileSync(join(docs, "runbook.md"), "# Rollback\n\nTo roll back a deploy, run the runbook rollback script.\n");
    expect((await cli(source, ["source", "add", docs])).code).toBe(0);
    await api(source, "POST", "/api/cross-agent/messages", { content: "the copy test says hi", toAgentId: "bob" });
    expect((await cli(source, ["token", "create", "--role", "agent", "--agent", "ada"])).code).toBe(0);
  } finally {
    await cli(source, ["daemon", "stop"]);
  }
  original = await served(source);
}, 60_000);

afterAll(async () => {
  await cli(source, ["daemon", "stop"]);
});

describe("signet store copy refuses a target it would have to invent", () => {
  test("a new file in a directory that does not exist, or under a file: exit 2, no directory made", async () => {
    const missing = join(source.home, "typo", "deeper", "x.db");
    const r = await cli(source, ["store", "copy", "--to", missing]);
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 2, stdout: "" });
    expect(r.stderr).toContain(`cannot create ${missing}: the directory ${join(source.home, "typo", "deeper")} does not exist`);
    expect(existsSync(join(source.home, "typo"))).toBe(false);
    const file = join(source.home, "a-file");
    writeFileSync(file, "");
    const under = await cli(source, ["store", "copy", "--to", join(file, "x.db")]);
    expect(under.code).toBe(2);
    expect(under.stderr).toContain(`${file} is not a directory`);
  });

  test("a sqlite:// URL is no relative path: refused, naming the path to give instead", async () => {
    const target = join(source.home, "x.db");
    const r = await cli(source, ["store", "copy", "--to", `sqlite://${target}`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--to sqlite://${target}: a sqlite:// URL is not a target; give a postgres:// or postgresql:// URL, or a new SQLite file's path (--to ${target})`);
    // Nothing made under the working directory (the sandbox's home), nor at the path.
    expect(existsSync(join(source.home, "sqlite:"))).toBe(false);
    expect(existsSync(target)).toBe(false);
  });
});

describe("signet store copy into a new SQLite file", () => {
  test("another data directory's daemon serves the copy as the source's did", async () => {
    const target = await sandbox(YAML);
    mkdirSync(join(target.dataDir, "memory"), { recursive: true, mode: 0o700 });
    const copied = await cli(source, ["store", "copy", "--to", databasePath(target.dataDir), "--json"]);
    expect(copied.stderr).toBe("");
    expect(copied.code).toBe(0);
    expect(json(copied).memories).toBe(3);
    expect(await served(target)).toEqual(original);
  }, 60_000);
});

describe.skipIf(!postgres.available)("signet store copy", () => {
  let url: string;

  test("into an empty PostgreSQL database: a daemon there serves everything the SQLite one did", async () => {
    expect(original.recalled[0]).toBe("The payments service deploys from the blue-heron-2 branch");
    expect(original.history).toBe(2);
    expect(original.forgotten).toEqual(["A passing thought about lunch"]);
    expect(original.sessions).toBe(1);
    expect(original.chunks).toEqual(["runbook.md"]);
    expect(original.inbox).toBe(1);
    expect(original.tokens).toBe(1);
    expect(original.entities).toEqual([["Dana Weber", 1]]);

    url = await postgres.emptyDatabase();
    const copied = await cli(source, ["store", "copy", "--to", url, "--json"]);
    expect(copied.stderr).toBe("");
    expect(copied.code).toBe(0);
    const report = json(copied);
    expect(report.memories).toBe(3);
    expect(report.tables.find((t: { table: string }) => t.table === "memories").rows).toBe(3);

    const elsewhere = await sandbox(YAML);
    expect(await served(elsewhere, { SIGNET_DATABASE_URL: url })).toEqual(original);
  }, 60_000);

  test("a target that is not empty is refused, and keeps what it held", async () => {
    const again = await cli(source, ["store", "copy", "--to", url]);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain("is not empty (");
    const elsewhere = await sandbox(YAML);
    expect((await served(elsewhere, { SIGNET_DATABASE_URL: url })).export).toBe(original.export);
  }, 60_000);

  test("back into a new SQLite file, which a daemon serves with its full-text tables made again", async () => {
    const fromPostgres = await sandbox(YAML);
    const file = join(fromPostgres.home, "copied.db");
    const copied = await cli(fromPostgres, ["store", "copy", "--to", file, "--json"], { SIGNET_DATABASE_URL: url });
    expect(copied.stderr).toBe("");
    expect(json(copied).memories).toBe(3);
    // The file becomes another data directory's store.
    const target = await sandbox(YAML);
    mkdirSync(join(target.dataDir, "memory"), { recursive: true, mode: 0o700 });
    const moved = await cli(target, ["store", "copy", "--to", databasePath(target.dataDir), "--json"], { SIGNET_DATABASE_URL: url });
    expect(moved.code).toBe(0);
    expect(await served(target)).toEqual(original);
  }, 60_000);

  test("an existing file, the store itself, or a running daemon is refused, and no file is left behind", async () => {
    const existing = join(source.home, "existing.db");
    writeFileSync(existing, "");
    const onFile = await cli(source, ["store", "copy", "--to", existing]);
    expect(onFile.code).not.toBe(0);
    expect(onFile.stderr).toContain("exists");
    const onItself = await cli(source, ["store", "copy", "--to", databasePath(source.dataDir)]);
    expect(onItself.code).not.toBe(0);
    expect(onItself.stderr).toContain("names the store being copied");
    expect((await cli(source, ["daemon", "start"])).code).toBe(0);
    try {
      const fresh = join(source.home, "while-running.db");
      const running = await cli(source, ["store", "copy", "--to", fresh]);
      expect(running.code).not.toBe(0);
      expect(running.stderr).toContain("stop it with `signet daemon stop` first, so no write lands after the copy's snapshot");
      expect(running.stderr.match(/stop it/g)).toHaveLength(1);
      expect(existsSync(fresh)).toBe(false);
    } finally {
      await cli(source, ["daemon", "stop"]);
    }
    const unreachable = await cli(source, ["store", "copy", "--to", "postgres://nobody:secret@127.0.0.1:1/none"]);
    expect(unreachable.code).not.toBe(0);
    expect(unreachable.stderr).toContain("cannot open postgres://nobody@127.0.0.1:1/none");
    expect(unreachable.stderr).not.toContain("secret");
  }, 60_000);
});
