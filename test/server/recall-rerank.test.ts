// The llm's second opinion on the order (rerank.ts) on a real database, keyword-only, in process and
// through the daemon's HTTP API. The llm is a local fake speaking the OpenAI wire format, a
// stand-in for a paid API: a real model cannot run here. Offline (no llm) the order and meta are
// the fused ones.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { RememberRequestSchema } from "../../src/contracts/memory";
import { RecallRequestSchema } from "../../src/contracts/recall";
import { createChatModel } from "../../src/core/llm/chat";
import { SqliteMemoryStore } from "../../src/core/memory/sqlite-store";
import { MemoryService, type Caller } from "../../src/core/memory/service";
import { AccessLog, SqliteAccessWrites } from "../../src/core/recall/access-log";
import { SqliteRecallStore } from "../../src/core/recall/sqlite-store";
import { RecallService } from "../../src/core/recall/service";
import { migrate } from "../../src/db/migrate";
import { openDatabase } from "../../src/db/open";
import { startTestDaemon, tempDir } from "../helpers/daemon";
import { call, useTestDaemon } from "../helpers/memory-api";
import { bearer, roleTokens } from "../helpers/operations";
import { recordingLogger } from "../helpers/log";

const caller: Caller = { agentId: "default", actor: "test", actorType: null, runtimePath: null };
let reply: { status: number; text: string } = { status: 200, text: "" };
const prompts: string[] = [];
/** Set: the fake answers nothing until the file's tests are done, as an llm slower than any bound. */
let hanging = false;
let release: () => void = () => {};
const released = new Promise<void>((resolve) => (release = resolve));
const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(req) {
    const body = (await req.json()) as { messages: { role: string; content: string }[] };
    prompts.push(body.messages.map((m) => m.content).join("\n"));
    if (hanging) await released;
    // An upstream that quotes the request's credentials in its error, as some proxies do.
    if (reply.status === 401) return new Response(`invalid key: ${req.headers.get("authorization")}`, { status: 401 });
    if (reply.status !== 200) return new Response("overloaded", { status: reply.status });
    return Response.json({ choices: [{ message: { content: reply.text } }] });
  },
});

const dir = tempDir("signet-recall-rerank-");
const db = openDatabase(join(dir, "memories.db"));
migrate(db);
const memory = new MemoryService(new SqliteMemoryStore(db));
const accessLog = new AccessLog(new SqliteAccessWrites(db), recordingLogger().log);
const llm = createChatModel({ provider: "openai", model: "fake", baseUrl: `http://127.0.0.1:${server.port}` })!;
const withLlm = new RecallService(new SqliteRecallStore(db), memory, null, accessLog, { llm });
const offline = new RecallService(new SqliteRecallStore(db), memory, null, accessLog);
const contents = [
  "Deploys go out from the release branch on Tuesdays",
  "The deploy script needs the AWS profile set",
  "Rolling back a deploy takes about five minutes",
];

beforeAll(async () => {
  // Importance far apart, so the access counts recalls leave behind cannot reorder them.
  await Promise.all(contents.map((content, i) => memory.remember(caller, RememberRequestSchema.parse({ content, importance: 1 - 0.45 * i }))));
  await withLlm.start();
  await offline.start();
});

afterAll(() => {
  release();
  server.stop(true);
  accessLog.flush();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const ask = async (s: RecallService) => {
  const r = await s.recall(caller, RecallRequestSchema.parse({ query: "how do I deploy and roll back?" }));
  // Access counts feed the order; write them now, so the next recall sees what this one left.
  accessLog.flush();
  return r;
};
const fusedNow = async () => (await ask(offline)).results.map((r) => r.content);

describe("rerank with an llm", () => {
  test("the model's order, the same scores read in order, and meta naming the model", async () => {
    const before = await offline.recall(caller, RecallRequestSchema.parse({ query: "how do I deploy and roll back?" }));
    expect(before.results.length).toBe(3);
    expect(before.meta.rerank).toBeUndefined();
    const third = before.results[2]!.content;
    const first = before.results[0]!.content;
    reply = { status: 200, text: "3, 1" };
    prompts.length = 0;
    const after = await ask(withLlm);
    expect(prompts[0]).toContain("Question: how do I deploy and roll back?");
    for (const c of contents) expect(prompts[0]).toContain(c);
    expect(after.results.map((r) => r.content)).toEqual([third, first, before.results[1]!.content]);
    expect(after.results.map((r) => r.score)).toEqual(before.results.map((r) => r.score));
    expect(after.meta.rerank).toEqual({ model: "openai/fake", status: "applied" });
  });

  test("a failing or useless model leaves the fused order and says why", async () => {
    reply = { status: 500, text: "" };
    let fused = await fusedNow();
    const failed = await ask(withLlm);
    expect(failed.results.map((r) => r.content)).toEqual(fused);
    expect(failed.meta.rerank?.status).toBe("failed");
    expect(failed.meta.rerank?.reason).toStartWith("refused");
    reply = { status: 200, text: "I cannot tell which one" };
    fused = await fusedNow();
    const none = await ask(withLlm);
    expect(none.results.map((r) => r.content)).toEqual(fused);
    expect(none.meta.rerank).toEqual({ model: "openai/fake", status: "failed", reason: "bad_answer: the llm named no memory by its number" });
  });

  test("one result or none: nothing to reorder, the model is not asked, and meta says so", async () => {
    prompts.length = 0;
    for (const [query, count] of [
      ["AWS profile", 1],
      ["kubernetes helm charts", 0],
    ] as const) {
      const few = await withLlm.recall(caller, RecallRequestSchema.parse({ query }));
      expect(few.results.length).toBe(count);
      expect(few.meta.rerank).toEqual({ model: "openai/fake", status: "applied" });
    }
    expect(prompts.length).toBe(0);
  });
});

describe("the daemon with llm configured", () => {
  const td = useTestDaemon({ yaml: `llm:\n  provider: openai\n  model: fake\n  baseUrl: http://127.0.0.1:${server.port}\n` });

  test("recall over HTTP asks it and says so in meta", async () => {
    for (const content of contents) expect((await call(td(), "POST", "/api/memory/remember", { body: { content } })).status).toBe(201);
    reply = { status: 200, text: "2" };
    prompts.length = 0;
    const res = await call(td(), "POST", "/api/memory/recall", { body: { query: "how do I deploy and roll back?" } });
    expect(res.status).toBe(200);
    expect(res.body.meta.rerank).toEqual({ model: "openai/fake", status: "applied" });
    expect(prompts.length).toBe(1);
  });
});

describe("the daemon with an llm slower than any client waits", () => {
  const td = useTestDaemon({ yaml: `llm:\n  provider: openai\n  model: fake\n  baseUrl: http://127.0.0.1:${server.port}\n` });

  test("the CLI's client (its default timeout) gets the fused order, and why", async () => {
    // Importance far apart, so the access counts the first recall leaves cannot reorder them.
    for (const [i, content] of contents.entries()) await td().client().memory.remember({ content, importance: 1 - 0.45 * i });
    // A failing model: the fused order, to compare with.
    reply = { status: 500, text: "" };
    const fused = (await call(td(), "POST", "/api/memory/recall", { body: { query: "how do I deploy and roll back?" } })).body;
    expect(fused.meta.rerank.status).toBe("failed");
    hanging = true;
    try {
      const res = await td().client().memory.recall({ query: "how do I deploy and roll back?" });
      expect(res.results.map((r) => r.id)).toEqual(fused.results.map((r: { id: string }) => r.id));
      expect(res.meta.rerank?.status).toBe("failed");
      expect(res.meta.rerank?.reason).toStartWith("timeout: ");
    } finally {
      hanging = false;
      reply = { status: 200, text: "" };
    }
  }, 30_000);
});

describe("an llm whose URL carries credentials", () => {
  test("no recall caller (a readonly token either) sees the URL's password or the API key", async () => {
    const withAuth = `http://llmuser:S3CRETPW@127.0.0.1:${server.port}`;
    const td = await startTestDaemon({ yaml: `auth:\n  mode: team\nllm:\n  provider: openai\n  model: fake\n  baseUrl: ${withAuth}\n  apiKey: sk-SUPERSECRETKEY123\n` });
    try {
      const tokens = await roleTokens(td, "default");
      for (const content of contents) {
        expect((await call(td, "POST", "/api/memory/remember", { body: { content }, headers: bearer(tokens.admin) })).status).toBe(201);
      }
      reply = { status: 401, text: "" };
      const as = (body: Record<string, unknown>) => call(td, "POST", "/api/memory/recall", { body, headers: bearer(tokens.readonly) });
      const plain = await as({ query: "how do I deploy and roll back?" });
      const aggregate = await as({ query: "how do I deploy and roll back?", aggregate: true });
      expect(plain.status).toBe(200);
      expect(aggregate.status).toBe(200);
      const shown = `the llm at http://127.0.0.1:${server.port}/v1/chat/completions answered 401: invalid key: Bearer [REDACTED]`;
      expect(plain.body.meta.rerank.reason).toBe(`refused: ${shown}`);
      expect(aggregate.body.aggregate.fallback).toEqual({ reason: "refused", message: shown });
      for (const text of [plain.text, aggregate.text]) {
        for (const secret of ["llmuser", "S3CRETPW", "SUPERSECRET"]) expect(text).not.toContain(secret);
      }
    } finally {
      reply = { status: 200, text: "" };
      await td.stop();
    }
  });
});
