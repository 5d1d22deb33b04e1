// Aggregate recall over real HTTP (docs/api.md#aggregate): the extractive answer without an llm,
// budgets, saving (and never citing a saved aggregate), and synthesis by the configured llm. The llm
// is a local fake chat server, a stand-in for a paid API (no model runs here): its failures,
// timeouts and garbage answers each fall back to the extractive answer, saying why.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { resolve } from "node:path";
import type { AggregateAnswer, RecallResponse } from "../../src/contracts/recall";
import { createChatModel } from "../../src/core/llm/chat";
import { AggregateRecall } from "../../src/core/recall/aggregate";
import { EXTRACTIVE_LABEL } from "../../src/core/recall/extractive";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon";
import { call, expectError } from "../helpers/memory-api";
import { API } from "../../src/contracts/api";
import type { BodyOf } from "../../src/contracts/operation";

type RecallBody = BodyOf<typeof API.recall.recall>;
type RememberBody = BodyOf<typeof API.memory.remember>;
type Behaviour = "cites" | "500" | "garbage" | "uncited" | "slow" | "long";
/** An answer longer than a memory may be (100,000 characters), citing real evidence. */
const LONG_ANSWER = `The user prefers dark mode in every editor [M1]. ${"And more. ".repeat(30_000)}`;

/** An OpenAI-compatible chat server whose answer the test sets; it keeps the prompts it was sent. */
function startFakeChat() {
  const state = { behaviour: "cites" as Behaviour, prompts: [] as string[] };
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const body = (await req.json()) as { messages: { content: string }[] };
      state.prompts.push(body.messages.map((m) => m.content).join("\n"));
      if (state.behaviour === "500") return new Response("model overloaded", { status: 500 });
      if (state.behaviour === "garbage") return new Response("<html>gateway</html>");
      if (state.behaviour === "slow") await Bun.sleep(3000);
      if (state.behaviour === "long") return Response.json({ choices: [{ message: { content: LONG_ANSWER } }] });
      const text =
        state.behaviour === "uncited"
          ? "Dark mode, probably."
          : // M1 is real; M99 and the uuid name nothing in the evidence and must be dropped.
            "The user prefers dark mode in every editor [M1]. They also like big fonts [M99, 00000000-0000-4000-8000-000000000000].";
      return Response.json({ choices: [{ message: { content: text } }] });
    },
  });
  return { state, url: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) };
}

async function remember(td: TestDaemon, body: RememberBody): Promise<string> {
  return (await td.client().memory.remember(body)).id;
}

async function aggregate(td: TestDaemon, body: RecallBody): Promise<RecallResponse & { aggregate: AggregateAnswer }> {
  const res = await td.client().memory.recall({ aggregate: true, ...body });
  expect(res.aggregate).toBeDefined();
  return res as RecallResponse & { aggregate: AggregateAnswer };
}

/** The sentence lines of an extractive answer, each with the ids it cites. */
function citedLines(answer: string): { text: string; ids: string[] }[] {
  return answer
    .split("\n")
    .filter((l) => l.startsWith("- "))
    .map((l) => {
      const m = /^- (.*) \[([^\]]+)\]$/.exec(l);
      if (!m) throw new Error(`uncited sentence: ${l}`);
      return { text: m[1]!, ids: m[2]!.split(", ") };
    });
}

describe("aggregate recall without an llm (extractive)", () => {
  let td: TestDaemon;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    td = await startTestDaemon();
    ids.dark = await remember(td, { content: "The user prefers dark mode in the editor. Fonts are set to 14 pt.", tags: ["ui"] });
    ids.dark2 = await remember(td, { content: "The user prefers dark mode in the editor! Terminal uses dark mode too.", tags: ["ui", "terminal"] });
    ids.deploy = await remember(td, { content: "Dark mode launch of the dashboard is planned for March.", tags: ["release"] });
    ids.other = await remember(td, { content: "Lunch is at noon." });
  });
  afterAll(() => td.stop());

  test("sentences deduplicated, grouped by topic, each cited by memory id, labelled extractive, saved", async () => {
    const res = await aggregate(td, { query: "dark mode" });
    const a = res.aggregate;
    expect(a.mode).toBe("extractive");
    expect(a.answer.startsWith(EXTRACTIVE_LABEL)).toBe(true);
    expect(a.fallback).toBeUndefined();
    const lines = citedLines(a.answer);
    // Said by two memories, written once, citing both.
    const shared = lines.filter((l) => /prefers dark mode in the editor/.test(l.text));
    expect(shared).toHaveLength(1);
    expect(shared[0]!.ids.sort()).toEqual([ids.dark!, ids.dark2!].sort());
    // Every cited id is among the citations, and those are evidence (matches of the query).
    const evidence = new Set(res.results.map((r) => r.id));
    for (const l of lines) for (const id of l.ids) expect(a.citations).toContain(id);
    for (const id of a.citations) expect(evidence.has(id)).toBe(true);
    expect(a.citations).not.toContain(ids.other);
    // Topics: the tag the evidence shares most ("ui"), and the release memory under its own.
    expect(a.answer).toContain("\nui:\n");
    expect(a.answer).toContain("\nrelease:\n");
    expect(a.answer.indexOf("\nui:\n")).toBeLessThan(a.answer.indexOf("\nrelease:\n"));

    expect("id" in a.saved).toBe(true);
    const saved = await td.client().memory.get((a.saved as { id: string }).id);
    expect(saved.type).toBe("aggregate");
    expect(saved.content).toBe(a.answer);
  });

  test("a saved aggregate is found by plain recall but is never evidence or a citation of a later aggregate", async () => {
    const first = await aggregate(td, { query: "dark mode editor" });
    const savedId = (first.aggregate.saved as { id: string }).id;
    const plain = await td.client().memory.recall({ query: "dark mode editor" });
    expect(plain.results.map((r) => r.id)).toContain(savedId);
    const again = await aggregate(td, { query: "dark mode editor", limit: 20 });
    expect(again.results.map((r) => r.id)).not.toContain(savedId);
    expect(again.results.some((r) => r.type === "aggregate")).toBe(false);
    expect(again.aggregate.citations).not.toContain(savedId);
    expect(again.aggregate.answer).not.toContain(savedId);
  });

  test("saveAggregate: false saves nothing and says so", async () => {
    const before = (await td.client().memory.list({ type: "aggregate" })).memories.length;
    const res = await aggregate(td, { query: "terminal dark", saveAggregate: false });
    expect(res.aggregate.saved).toEqual({ skipped: "saveAggregate is false" });
    expect((await td.client().memory.list({ type: "aggregate" })).memories.length).toBe(before);
  });

  test("no match: an extractive answer that says so, nothing cited, nothing saved", async () => {
    const res = await aggregate(td, { query: "kubernetes helm charts" });
    expect(res.aggregate.citations).toEqual([]);
    expect(res.aggregate.answer).toContain("No stored memory matches");
    expect("skipped" in res.aggregate.saved).toBe(true);
  });

  test("memory_search over MCP: aggregate, aggregate_budget, save_aggregate; the brief leads with the answer", async () => {
    const client = new Client({ name: "aggregate-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${td.url}/mcp`)));
    try {
      // Listing first makes the SDK check the structured answer against the tool's output schema.
      await client.listTools();
      const result = (await client.callTool({
        name: "memory_search",
        arguments: { query: "dark mode", aggregate: true, aggregate_budget: "medium", save_aggregate: false },
      })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      const structured = result.structuredContent as unknown as RecallResponse;
      expect(structured.aggregate?.mode).toBe("extractive");
      expect(structured.aggregate?.saved).toEqual({ skipped: "saveAggregate is false" });
      const text = (result.content[0] as { text: string }).text;
      expect(text.startsWith("Aggregate answer (extractive):")).toBe(true);
      expect(text).toContain(structured.aggregate!.answer);
      expect(text).toContain("Primary matches");
    } finally {
      await client.close();
    }
  });

  test("signet recall --aggregate --budget medium --no-save: JSON in a pipe, the brief with --pretty", async () => {
    const cli = async (...args: string[]) => {
      const proc = Bun.spawn([process.execPath, resolve(import.meta.dir, "../../src/main.ts"), "recall", ...args], {
        env: { PATH: process.env.PATH ?? "", SIGNET_PATH: td.dataDir, HOME: td.dataDir, SIGNET_DAEMON_URL: td.url, SIGNET_AUTOSTART: "false" },
        stdout: "pipe",
        stderr: "pipe",
      });
      const [stdout, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
      return { stdout, code };
    };
    const before = (await td.client().memory.list({ type: "aggregate" })).memories.length;
    const json = await cli("dark mode", "--aggregate", "--budget", "medium", "--no-save");
    expect(json.code).toBe(0);
    const res = JSON.parse(json.stdout) as RecallResponse;
    expect(res.aggregate).toMatchObject({ mode: "extractive", saved: { skipped: "saveAggregate is false" } });
    const pretty = await cli("dark mode", "--aggregate", "--no-save", "--pretty");
    expect(pretty.stdout.startsWith("Aggregate answer (extractive):")).toBe(true);
    expect((await td.client().memory.list({ type: "aggregate" })).memories.length).toBe(before);
    expect((await cli("dark mode", "--aggregate", "--budget", "huge")).code).toBe(2);
  }, 30_000);

  test("a bad budget is a 400 naming the field, and stores nothing", async () => {
    const before = (await td.client().memory.list({ type: "aggregate" })).memories.length;
    const res = await call(td, "POST", "/api/memory/recall", { body: { query: "dark", aggregate: true, aggregateBudget: "huge" } });
    expectError(res, 400, "invalid_input", "aggregateBudget");
    expect((await td.client().memory.list({ type: "aggregate" })).memories.length).toBe(before);
  });
});

describe("aggregate budgets", () => {
  let td: TestDaemon;
  beforeAll(async () => {
    td = await startTestDaemon();
    for (let i = 0; i < 40; i++) {
      await remember(td, { content: `Release checklist item ${i}: verify the build number ${i * 7} on platform p${i}. ${"Details follow. ".repeat(8)}` });
    }
  });
  afterAll(() => td.stop());

  test.each([
    ["small", 8, 2000],
    ["medium", 16, 4000],
    ["large", 32, 8000],
  ] as const)("%s: at most %i memories and %i characters of evidence", async (budget, memories, chars) => {
    const res = await aggregate(td, { query: "release checklist build", aggregateBudget: budget, saveAggregate: false, minScore: 0 });
    const cited = res.aggregate.citations;
    expect(cited.length).toBeGreaterThan(0);
    expect(cited.length).toBeLessThanOrEqual(memories);
    const quoted = citedLines(res.aggregate.answer).reduce((n, l) => n + l.text.length, 0);
    expect(quoted).toBeLessThanOrEqual(chars);
    // The budget bounds the evidence, not the results the caller asked for.
    expect(res.results.length).toBe(10);
  });

  test("the default is small", async () => {
    const res = await aggregate(td, { query: "release checklist build", saveAggregate: false, minScore: 0 });
    expect(res.aggregate.citations.length).toBeLessThanOrEqual(8);
  });
});

describe("aggregate recall with an llm (a local fake chat server)", () => {
  let td: TestDaemon;
  let chat: ReturnType<typeof startFakeChat>;
  let darkId: string;
  beforeAll(async () => {
    chat = startFakeChat();
    td = await startTestDaemon({ yaml: `llm:\n  provider: openai\n  model: fake-chat\n  baseUrl: ${chat.url}\n` });
    darkId = await remember(td, { content: "The user prefers dark mode in every editor.", tags: ["ui"] });
    await remember(td, { content: "The dark mode toggle lives in settings.", tags: ["ui"] });
  });
  afterAll(async () => {
    await td.stop();
    chat.stop();
  });

  test("the llm's answer, its labels turned into evidence ids, invented citations dropped", async () => {
    chat.state.behaviour = "cites";
    chat.state.prompts.length = 0;
    const res = await aggregate(td, { query: "dark mode" });
    const a = res.aggregate;
    expect(a.mode).toBe("llm");
    expect(a.model).toBe("openai/fake-chat");
    // M1 is the best-ranked memory: the first evidence.
    const m1 = res.results[0]!.id;
    expect(a.citations).toEqual([m1]);
    expect(a.answer).toBe(`The user prefers dark mode in every editor [${m1}]. They also like big fonts.`);
    expect(a.answer).not.toContain("M99");
    // The llm saw the question and the evidence, labelled.
    expect(chat.state.prompts[0]).toContain("Question: dark mode");
    expect(chat.state.prompts[0]).toContain("[M1]");
    expect("id" in a.saved).toBe(true);
  });

  test.each([
    ["500", "refused"],
    ["garbage", "bad_answer"],
    ["uncited", "no_citations"],
  ] as const)("an llm answering %s falls back to extractive and says why (%s)", async (behaviour, reason) => {
    chat.state.behaviour = behaviour;
    const res = await aggregate(td, { query: "dark mode", saveAggregate: false });
    expect(res.aggregate.mode).toBe("extractive");
    expect(res.aggregate.answer.startsWith(EXTRACTIVE_LABEL)).toBe(true);
    expect(res.aggregate.citations).toContain(darkId);
    expect(res.aggregate.fallback?.reason).toBe(reason);
    expect(res.aggregate.fallback?.message.length).toBeGreaterThan(10);
  });

  test("an answer longer than a memory holds is given, not saved, and says why", async () => {
    chat.state.behaviour = "long";
    const before = (await td.client().memory.list({ type: "aggregate" })).memories.length;
    const res = await aggregate(td, { query: "dark mode" });
    expect(res.aggregate.mode).toBe("llm");
    expect(res.aggregate.answer.length).toBeGreaterThan(100_000);
    expect(res.aggregate.saved).toEqual({
      skipped: "invalid aggregate memory: content: is longer than 100000 characters, so the aggregate was not saved",
    });
    // Nothing stored past the limit: the owner's export stays importable.
    expect((await td.client().memory.list({ type: "aggregate" })).memories.length).toBe(before);
  });

  test("an llm that is down: unreachable, extractive", async () => {
    const gone = startFakeChat();
    gone.stop();
    const down = await startTestDaemon({ yaml: `llm:\n  provider: ollama\n  baseUrl: ${gone.url}\n` });
    try {
      await remember(down, { content: "The user prefers dark mode." });
      const res = await aggregate(down, { query: "dark mode" });
      expect(res.aggregate.mode).toBe("extractive");
      expect(res.aggregate.fallback?.reason).toBe("unreachable");
    } finally {
      await down.stop();
    }
  });

  test("an llm slower than the aggregate's bound: timeout, extractive (bound shortened here)", async () => {
    chat.state.behaviour = "slow";
    const ctx = td.daemon.context;
    // The daemon's own recall and writes, with the llm bound cut from 45 s so the test stays short.
    const aggregates = new AggregateRecall({
      recall: (caller, req, options) => ctx.recall.recall(caller, req, options),
      chat: createChatModel(ctx.config.llm),
      remember: (caller, req) => ctx.memory.remember(caller, req),
      llmTimeoutMs: 300,
    });
    const caller = { agentId: "default", actor: "test", actorType: null, runtimePath: null };
    const res = await aggregates.recall(caller, { query: "dark mode", limit: 10, minScore: 0.2, aggregate: true }, { canRemember: true });
    expect(res.aggregate?.mode).toBe("extractive");
    expect(res.aggregate?.fallback?.reason).toBe("timeout");
  });

  test("a caller without the remember permission gets the answer, not saved: skipped, not an error", async () => {
    chat.state.behaviour = "cites";
    const ctx = td.daemon.context;
    const aggregates = new AggregateRecall({
      recall: (caller, req, options) => ctx.recall.recall(caller, req, options),
      chat: createChatModel(ctx.config.llm),
      remember: () => {
        throw new Error("must not be called");
      },
    });
    const caller = { agentId: "default", actor: "test", actorType: null, runtimePath: null };
    const res = await aggregates.recall(caller, { query: "dark mode", limit: 10, minScore: 0.2, aggregate: true }, { canRemember: false });
    expect(res.aggregate?.mode).toBe("llm");
    expect(res.aggregate?.saved).toEqual({ skipped: expect.stringContaining("may not remember") });
  });
});
