// Session-end extraction with a configured llm (docs/api.md#session-end). A local fake of the Ollama
// chat API stands in for the model (no real model runs here); the daemon, database and HTTP are real.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { HookContextResponse } from "../../src/contracts/session";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon";
import { call } from "../helpers/memory-api";

let answer = "";
let failWith: number | null = null;
const prompts: string[] = [];
const llm = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(req) {
    const body = (await req.json()) as { messages: { role: string; content: string }[] };
    prompts.push(body.messages.map((m) => m.content).join("\n"));
    if (failWith !== null) return new Response("overloaded", { status: failWith });
    return Response.json({ message: { role: "assistant", content: answer } });
  },
});

let td: TestDaemon;
beforeAll(async () => {
  td = await startTestDaemon({ yaml: `llm:\n  provider: ollama\n  model: fake\n  baseUrl: http://127.0.0.1:${llm.port}\n` });
});
afterAll(async () => {
  await td.stop();
  llm.stop(true);
});

const end = (sessionKey: string, transcript: string) =>
  call(td, "POST", "/api/hooks/session-end", { body: { sessionKey, harness: "claude-code", project: "/work/kiln", transcript } });

describe("session-end with an llm", () => {
  test("answers at once, then stores the extracted memories with source extraction and the session key", async () => {
    answer =
      'Here you go: {"summary": "Set up the kiln firmware build and chose Zig.", "memories": [' +
      '{"content": "The kiln firmware is written in Zig", "type": "decision", "importance": 0.8, "hints": ["which language for the oven controller"]},' +
      '{"content": "The user wants build logs kept for 30 days", "type": "preference"},' +
      '{"content": "", "type": "fact"}, {"nonsense": true}]}';
    const res = await end("ex-1", "user: let's write the kiln firmware in Zig\nassistant: done\nuser: keep build logs 30 days");
    expect(res.status).toBe(200);
    expect(res.body as HookContextResponse).toMatchObject({ transcriptStored: true, extraction: "started" });
    expect(res.body.note).toContain("ollama/fake");
    await td.daemon.context.sessions.idle();
    expect(prompts.at(-1)).toContain("kiln firmware in Zig");
    const list = await td.client().memory.list({ limit: 100 });
    const extracted = list.memories.filter((m) => m.sessionKey === "ex-1");
    expect(extracted.map((m) => [m.content, m.type, m.source, m.project]).sort()).toEqual(
      [
        ["The kiln firmware is written in Zig", "decision", "extraction", "/work/kiln"],
        ["The user wants build logs kept for 30 days", "preference", "extraction", "/work/kiln"],
      ].sort(),
    );
    expect(extracted.find((m) => m.type === "decision")!.importance).toBe(0.8);
    // Its hints are how it is asked for in other words: recall finds it by them.
    expect(extracted.find((m) => m.type === "decision")!.hints).toEqual(["which language for the oven controller"]);
    const byHint = await td.client().memory.recall({ query: "what language does the oven controller use?" });
    expect(byHint.results[0]).toMatchObject({ content: "The kiln firmware is written in Zig", confidence: "strong" });
    // The summary is what a sub-agent of this session is shown at its start.
    const child = (await call(td, "POST", "/api/hooks/session-start", { body: { sessionKey: "ex-child", parentSessionKey: "ex-1", harness: "claude-code" } }))
      .body as HookContextResponse;
    expect(child.context).toContain("Set up the kiln firmware build and chose Zig.");
  });

  test("a failing llm loses the memories, never the transcript; the daemon keeps answering", async () => {
    failWith = 500;
    try {
      const res = await end("ex-2", "user: the glaze recipe needs more silica");
      expect(res.body).toMatchObject({ transcriptStored: true, extraction: "started" });
      await td.daemon.context.sessions.idle();
      const found = await call(td, "POST", "/api/sessions/search", { body: { query: "glaze silica" } });
      expect(found.body.hits.map((h: { sessionKey: string }) => h.sessionKey)).toEqual(["ex-2"]);
      expect((await td.client().memory.list({ limit: 100 })).memories.filter((m) => m.sessionKey === "ex-2")).toEqual([]);
    } finally {
      failWith = null;
    }
  });
});
