// What reaches the model through the hooks (docs/hooks.md#what-reaches-the-model), with the builtin
// model over real HTTP: a prompt about nothing stored gets nothing; a prompt in other words than the
// memory it needs gets it; another project's memory never comes; a saved aggregate never comes; of
// two memories on one subject only the newer comes; session start brings the global preferences and decisions beside the project's memories.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon";
import { call } from "../helpers/memory-api";
import { eventually } from "../helpers/wait";

let td: TestDaemon;
const ids: Record<string, string> = {};
let sessions = 0;

async function remember(key: string, body: Record<string, unknown>): Promise<void> {
  const res = await call(td, "POST", "/api/memory/remember", { body });
  expect(res.status).toBe(201);
  ids[key] = res.body.id;
}

/** The keys of what the prompt hook injects for `prompt` in a fresh session of `project`, and the context text. */
async function injected(prompt: string, project: string | null): Promise<{ keys: string[]; context: string }> {
  const sessionKey = `inject-${++sessions}`;
  const base = { sessionKey, harness: "claude-code", ...(project ? { project } : {}) };
  expect((await call(td, "POST", "/api/hooks/session-start", { body: base })).status).toBe(200);
  const res = await call(td, "POST", "/api/hooks/user-prompt-submit", { body: { ...base, prompt } });
  expect(res.status).toBe(200);
  const byId = new Map(Object.entries(ids).map(([k, v]) => [v, k]));
  return { keys: (res.body.memoryIds as string[]).map((id) => byId.get(id) ?? id), context: res.body.context };
}

beforeAll(async () => {
  td = await startTestDaemon({ yaml: "embedding:\n  provider: builtin\n" });
  const web = "/home/dev/src/shop";
  const api = "/home/dev/src/api";
  await remember("pnpm", { content: "Use pnpm for everything in this repo; npm and yarn lockfiles are not committed", type: "preference", project: web });
  await remember("jwt", { content: "Auth uses short-lived JWT access tokens and refresh tokens in httpOnly cookies", type: "decision", project: web });
  await remember("compose", { content: "Integration tests need docker compose up before they run", type: "procedure", project: web });
  await remember("pg", { content: "Orders live in PostgreSQL; schema changes go through sqitch", type: "decision", project: api });
  await remember("spaces", { content: "Indentation: 2 spaces everywhere", type: "preference", createdAt: "2025-01-10T00:00:00.000Z" });
  await remember("tabs", { content: "Switched to tabs for indentation, displayed at width 4", type: "preference", createdAt: "2026-02-01T00:00:00.000Z" });
  await remember("commits", { content: "Commit messages follow Conventional Commits", type: "preference" });
  await remember("uv", { content: "Python projects use uv, never pip directly", type: "preference" });
  await remember("summary", { content: "Summary: the shop uses pnpm, JWT auth and docker compose for integration tests", type: "aggregate", project: web });
  // Texts of a script the builtin model has no words for: all of them get one and the same vector.
  await remember("kyoto", { content: "京都は古い都市です" });
  await remember("deadline", { content: "プロジェクトの締め切りは金曜日です" });
  await remember("password", { content: "Пароль от стейджинга: qwerty" });
  const drained = await eventually(async () => {
    const { embedding } = await td.client().health();
    return embedding.ok && embedding.model !== null && embedding.pending === 0;
  }, 120_000);
  expect(drained).toBe(true);
}, 180_000);

afterAll(async () => {
  await td.stop();
});

describe("the prompt hook", () => {
  test("a prompt the builtin model cannot read gets nothing from its vector: unrelated texts of the same script are not matches", async () => {
    for (const prompt of ["東京タワーに行きたい", "Какая сегодня погода в Москве?", "🍮"]) expect({ prompt, keys: (await injected(prompt, null)).keys }).toEqual({ prompt, keys: [] });
    const recalled = await call(td, "POST", "/api/memory/recall", { body: { query: "東京タワーに行きたい" } });
    expect(recalled.body.meta.embedding).toBe("unreadable");
    expect(recalled.body.results.filter((r: { confidence: string }) => r.confidence === "strong")).toEqual([]);
    // Its words still count: the keyword leg reads CJK.
    const byWord = await call(td, "POST", "/api/memory/recall", { body: { query: "締め切り" } });
    expect(byWord.body.results[0].content).toBe("プロジェクトの締め切りは金曜日です");
  });

  test("a prompt about nothing stored gets nothing", async () => {
    expect((await injected("Rename the variable foo to bar in utils.ts", "/home/dev/src/shop")).keys).toEqual([]);
    expect((await injected("what's the difference between a list and a tuple?", null)).keys).toEqual([]);
  });

  test("a prompt in other words than the memory it needs gets it", async () => {
    expect((await injected("what should I run to install dependencies?", "/home/dev/src/shop")).keys).toContain("pnpm");
  });

  test("another project's memory never comes, however well it matches", async () => {
    const { keys } = await injected("add a column to the orders table in PostgreSQL", "/home/dev/src/shop");
    expect(keys).not.toContain("pg");
    expect((await injected("add a column to the orders table in PostgreSQL", "/home/dev/src/api")).keys).toContain("pg");
  });

  test("a saved aggregate never comes; the memories it restates do", async () => {
    const { keys } = await injected("summary of how the shop does auth with JWT", "/home/dev/src/shop");
    expect(keys).not.toContain("summary");
    expect(keys).toContain("jwt");
  });

  test("of two memories on one subject only the newer comes", async () => {
    const { keys } = await injected("which indentation do I like?", null);
    expect(keys).toContain("tabs");
    expect(keys).not.toContain("spaces");
  });
});

describe("session start", () => {
  test("brings the global preferences and decisions beside the project's memories, never an aggregate", async () => {
    const res = await call(td, "POST", "/api/hooks/session-start", { body: { sessionKey: "start-1", harness: "claude-code", project: "/home/dev/src/shop" } });
    const context: string = res.body.context;
    expect(context).toContain("## Memories for /home/dev/src/shop");
    expect(context).toContain("## Preferences and decisions for every project");
    for (const key of ["commits", "uv", "tabs", "pnpm"]) expect(context).toContain(ids[key]!);
    expect(context).not.toContain(ids.pg!);
  });
});
