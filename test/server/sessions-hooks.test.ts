// The lifecycle hooks over real HTTP (docs/api.md#hooks): what session-start and user-prompt-submit
// inject and record, dedupe within an injection window and a new window after compaction, sub-agent
// lineage, presence, bypass (and bypass surviving a restart), bad input and forged callers.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load";
import type { HookContextResponse, SessionDetail } from "../../src/contracts/session";
import { startDaemon } from "../../src/server/daemon";
import { SignetClient } from "../../src/client/client";
import { API } from "../../src/contracts/api";
import type { BodyOf } from "../../src/contracts/operation";
import { startTestDaemon, tempDir, type TestDaemon } from "../helpers/daemon";
import { call, expectError, expectForgedRefused } from "../helpers/memory-api";

let td: TestDaemon;
beforeAll(async () => {
  td = await startTestDaemon({ yaml: "hooks:\n  sessionStartBudgetTokens: 400\n" });
});
afterAll(async () => {
  await td.stop();
});

const hook = (event: string, body: Record<string, unknown>, agent = "default") => call(td, "POST", `/api/hooks/${event}`, { body, agent });
const remember = async (body: BodyOf<typeof API.memory.remember>, agent = "default") => (await td.client(agent).memory.remember(body)).id;
const injectedRows = (key: string) =>
  td.daemon.context.stores.sqlite!
    .query<{ memory_id: string; via: string; injection_window: number }, [string]>(
      "SELECT memory_id, via, injection_window FROM session_memories WHERE session_key = ? AND source = 'injected' ORDER BY injection_window, rank",
    )
    .all(key);

describe("session-start", () => {
  test("injects AGENTS.md, USER.md, pinned and project memories within the budget, records them, registers presence", async () => {
    writeFileSync(join(td.dataDir, "AGENTS.md"), "You work for Ada, a compiler engineer.\n");
    writeFileSync(join(td.dataDir, "USER.md"), "Ada prefers terse answers.\n");
    const pinned = await remember({ content: "Always run the linter before committing", pinned: true });
    const project = await remember({ content: "The parser lives in src/parse and uses Pratt parsing", project: "/work/ada" });
    const other = await remember({ content: "Unrelated project fact about gardening", project: "/work/elsewhere" });
    const res = await hook("session-start", { sessionKey: "s-start", harness: "claude-code", project: "/work/ada" });
    expect(res.status).toBe(200);
    const body = res.body as HookContextResponse;
    expect(body.context).toContain("You work for Ada");
    expect(body.context).toContain("Ada prefers terse answers");
    expect(body.context).toContain(`- ${pinned} (fact) Always run the linter`);
    expect(body.context).toContain(`- ${project} (fact) The parser lives`);
    expect(body.context).not.toContain(other);
    expect(body.memoryIds.sort()).toEqual([pinned, project].sort());
    expect(body.window).toBe(0);
    expect(injectedRows("s-start").map((r) => [r.memory_id, r.via, r.injection_window]).sort()).toEqual(
      [
        [pinned, "session-start", 0],
        [project, "session-start", 0],
      ].sort(),
    );
    const presence = td.daemon.context.stores.sqlite!.query("SELECT agent_id, harness, project FROM agent_presence WHERE session_key = 's-start'").get();
    expect(presence).toEqual({ agent_id: "default", harness: "claude-code", project: "/work/ada" });
  });

  test("stays within hooks.sessionStartBudgetTokens (about 4 characters a token)", async () => {
    for (let i = 0; i < 40; i++) await remember({ content: `Pinned rule number ${i}: ${"keep it short ".repeat(8)}`, pinned: true });
    const body = (await hook("session-start", { sessionKey: "s-budget", harness: "codex" })).body as HookContextResponse;
    expect(body.context.length).toBeLessThanOrEqual(400 * 4);
    expect(body.memoryIds.length).toBeGreaterThan(0);
    expect(body.memoryIds.length).toBeLessThan(40);
    for (const id of body.memoryIds) expect(body.context).toContain(id);
    td.daemon.context.stores.sqlite!.run("UPDATE memories SET pinned = 0 WHERE content LIKE 'Pinned rule number%'");
  });

  test("a sub-agent gets its parent's summary: from parentSessionKey, or from an agent:<id>:subagent:<x> key", async () => {
    await hook("session-start", { sessionKey: "agent:nova:main", harness: "openclaw" });
    await hook("user-prompt-submit", { sessionKey: "agent:nova:main", harness: "openclaw", prompt: "migrate the trunk ports to 8443" });
    const child = (await hook("session-start", { sessionKey: "agent:nova:subagent:abc", harness: "openclaw" })).body as HookContextResponse;
    expect(child.context).toContain("Parent session agent:nova:main");
    expect(child.context).toContain("migrate the trunk ports to 8443");
    const explicit = (await hook("session-start", { sessionKey: "child-2", parentSessionKey: "session:agent:nova:main", harness: "claude-code" }))
      .body as HookContextResponse;
    expect(explicit.context).toContain("Parent session agent:nova:main");
  });
});

describe("user-prompt-submit and compaction", () => {
  test("injects relevant memories once per window; compaction-complete opens a new window", async () => {
    const key = "s-prompts";
    const tea = await remember({ content: "Ada drinks oolong tea every afternoon" });
    await hook("session-start", { sessionKey: key, harness: "claude-code" });
    const first = (await hook("user-prompt-submit", { sessionKey: key, harness: "claude-code", prompt: "what tea does Ada drink?" })).body as HookContextResponse;
    expect(first.memoryIds).toContain(tea);
    expect(first.context).toContain(`- ${tea} (fact) Ada drinks oolong tea`);
    const again = (await hook("user-prompt-submit", { sessionKey: key, harness: "claude-code", prompt: "oolong tea again?" })).body as HookContextResponse;
    expect(again.memoryIds).not.toContain(tea);

    const pre = (await hook("pre-compaction", { sessionKey: key, harness: "claude-code" })).body as HookContextResponse;
    expect(pre.memoryIds).toContain(tea);
    expect(pre.context).toContain(tea);
    const after = (await hook("compaction-complete", { sessionKey: key, harness: "claude-code" })).body as HookContextResponse;
    expect(after.window).toBe(1);
    expect(after.memoryIds).toContain(tea);
    // Once more in the new window only through the prompt hook, since compaction-complete carried it.
    const window1 = (await hook("user-prompt-submit", { sessionKey: key, harness: "claude-code", prompt: "tea please" })).body as HookContextResponse;
    expect(window1.window).toBe(1);
    expect(window1.memoryIds).not.toContain(tea);
    // What was carried is carried once: a second compaction without pre-compaction carries nothing.
    expect(((await hook("compaction-complete", { sessionKey: key, harness: "claude-code" })).body as HookContextResponse).memoryIds).toEqual([]);

    const vias = injectedRows(key).filter((r) => r.memory_id === tea).map((r) => [r.via, r.injection_window]);
    expect(vias).toEqual([
      ["user-prompt-submit", 0],
      ["compaction-complete", 1],
    ]);
  });

  test("a prompt in a fresh window with nothing carried injects the memory again", async () => {
    const key = "s-window";
    const fact = await remember({ content: "The staging cluster is called heron" });
    await hook("session-start", { sessionKey: key, harness: "codex" });
    expect(((await hook("user-prompt-submit", { sessionKey: key, harness: "codex", prompt: "staging cluster heron" })).body as HookContextResponse).memoryIds).toContain(fact);
    // No pre-compaction: nothing carried, so the new window starts empty.
    expect(((await hook("compaction-complete", { sessionKey: key, harness: "codex" })).body as HookContextResponse).memoryIds).toEqual([]);
    const again = (await hook("user-prompt-submit", { sessionKey: key, harness: "codex", prompt: "staging cluster heron" })).body as HookContextResponse;
    expect(again.memoryIds).toContain(fact);
    expect(again.window).toBe(1);
  });
});

describe("session-end without an llm", () => {
  test("stores the transcript (searchable), removes presence, says nothing was extracted", async () => {
    await hook("session-start", { sessionKey: "s-end", harness: "claude-code", project: "/p" });
    const res = await hook("session-end", {
      sessionKey: "s-end",
      harness: "claude-code",
      transcript: "user: set the retry budget to seven attempts\nassistant: done, retries are capped at seven",
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ context: "", memoryIds: [], transcriptStored: true, extraction: "skipped" });
    expect(res.body.note).toContain("no llm is configured");
    expect(td.daemon.context.stores.sqlite!.query("SELECT 1 FROM agent_presence WHERE session_key = 's-end'").get()).toBeNull();
    const session = (await call(td, "GET", "/api/sessions/s-end")).body as SessionDetail;
    expect(session.endedAt).not.toBeNull();
    expect(session.hasTranscript).toBe(true);
    const found = await call(td, "POST", "/api/sessions/search", { body: { query: "retry budget" } });
    expect(found.body.hits.map((h: { sessionKey: string }) => h.sessionKey)).toContain("s-end");
    const noTranscript = await hook("session-end", { sessionKey: "s-end-2", harness: "claude-code" });
    expect(noTranscript.body).toMatchObject({ transcriptStored: false, extraction: "skipped" });
  });
});

describe("sessions list and get", () => {
  test("lists the caller's sessions newest first, filters active, gets one with what reached it; another agent's is 404", async () => {
    await hook("session-start", { sessionKey: "mine-1", harness: "codex" }, "lister");
    await hook("session-start", { sessionKey: "mine-2", harness: "codex" }, "lister");
    // Timestamps have millisecond resolution: make "newest" unambiguous.
    await Bun.sleep(3);
    await hook("session-end", { sessionKey: "mine-1", harness: "codex" }, "lister");
    await hook("session-start", { sessionKey: "theirs", harness: "codex" }, "someone-else");
    const all = await call(td, "GET", "/api/sessions", { agent: "lister" });
    expect((await call(td, "GET", "/api/sessions?agent_id=lister")).body).toEqual(all.body);
    expect(all.body.sessions.map((s: { key: string }) => s.key)).toEqual(["mine-1", "mine-2"]);
    const active = await call(td, "GET", "/api/sessions?active=true", { agent: "lister" });
    expect(active.body.sessions.map((s: { key: string }) => s.key)).toEqual(["mine-2"]);
    const one = await call(td, "GET", "/api/sessions/session:mine-2", { agent: "lister" });
    expect(one.body).toMatchObject({ key: "mine-2", agentId: "lister", harness: "codex", bypassed: false, window: 0, memories: [] });
    expectError(await call(td, "GET", "/api/sessions/theirs", { agent: "lister" }), 404, "not_found");
    expectError(await call(td, "GET", "/api/sessions?limit=0", { agent: "lister" }), 400, "invalid_input", "limit");
    expectError(await call(td, "GET", "/api/sessions?active=maybe", { agent: "lister" }), 400, "invalid_input", "active");
  });
});

describe("bad input and forged callers", () => {
  test("each hook answers 400 naming the field, and writes nothing", async () => {
    const before = td.daemon.context.stores.sqlite!.query("SELECT COUNT(*) AS n FROM sessions").get();
    for (const event of ["session-start", "user-prompt-submit", "session-end", "pre-compaction", "compaction-complete"]) {
      expectError(await hook(event, { harness: "codex" }), 400, "invalid_input", "sessionKey");
      expectError(await hook(event, { sessionKey: "x", harness: "bad harness!" }), 400, "invalid_input", "harness");
      expectError(await hook(event, { sessionKey: "x", harness: "codex", prompt: 5 }), 400, "invalid_input", "prompt");
      expectError(await hook(event, { sessionKey: "x", harness: "codex", surprise: 1 }), 400, "invalid_input", "surprise");
      expectError(await hook(event, { sessionKey: "x", harness: "codex", agentId: "bad id!" }), 400, "invalid_input", "agentId");
      expectError(await call(td, "POST", `/api/hooks/${event}`, { raw: "{not json", headers: { "content-type": "application/json" } }), 400, "invalid_input");
    }
    expect(td.daemon.context.stores.sqlite!.query("SELECT COUNT(*) AS n FROM sessions").get()).toEqual(before);
    expectError(await call(td, "POST", "/api/hooks/session-middle", { body: { sessionKey: "x", harness: "codex" } }), 404, "not_found");
    expectError(await call(td, "POST", `/api/sessions/${"k".repeat(600)}/bypass`, { body: { enabled: true } }), 400, "invalid_input", "session key");
    expectError(await call(td, "POST", "/api/sessions/x/bypass", { body: { enabled: "yes" } }), 400, "invalid_input", "enabled");
    expectError(await call(td, "POST", "/api/sessions/search", { body: { query: "" } }), 400, "invalid_input", "query");
    expectError(await call(td, "POST", "/api/sessions/search", { body: { query: "x", limit: 0 } }), 400, "invalid_input", "limit");
  });

  test("no value of any field, odd query or odd key produces a 5xx", async () => {
    const odd: unknown[] = [null, true, -1, 1e308, "", " ", "x".repeat(5000), "\u0000", "😀", "session:", "___", '"', "*", "NEAR(a b)", "a OR", [], {}, [1], { a: 1 }];
    const bodies: [string, Record<string, unknown>][] = [
      ...["session-start", "user-prompt-submit", "session-end", "pre-compaction", "compaction-complete"].map(
        (e): [string, Record<string, unknown>] => [`/api/hooks/${e}`, { sessionKey: "odd", harness: "codex", prompt: "p", transcript: "t" }],
      ),
      ["/api/sessions/search", { query: "zeppelin", limit: 3 }],
      ["/api/memory/feedback", { sessionKey: "odd", ratings: { a: 1 } }],
      ["/api/sessions/odd/bypass", { enabled: false }],
    ];
    for (const [path, valid] of bodies) {
      for (const field of [...Object.keys(valid), "agentId", "project", "parentSessionKey", "currentSessionKey", "sessionKey"]) {
        for (const value of odd) {
          const res = await call(td, "POST", path, { body: { ...valid, [field]: value } });
          expect({ path, field, value, status: res.status < 500 }).toEqual({ path, field, value, status: true });
          if (res.status >= 400) expect(Object.keys(res.body).sort()).toEqual(["code", "error"]);
        }
      }
    }
    for (const key of ["%00", "session%3A", "a%2Fb", "..", "%F0%9F%98%80", "x".repeat(600)]) {
      expect((await call(td, "GET", `/api/sessions/${key}`)).status).toBeLessThan(500);
      expect((await call(td, "POST", `/api/sessions/${key}/bypass`, { body: { enabled: false } })).status).toBeLessThan(500);
    }
    expect((await call(td, "GET", "/health")).status).toBe(200);
  });

  test("a wrong Host, a foreign Origin or a non-JSON body is refused before anything happens", async () => {
    const routes: [string, string, unknown][] = [
      ["POST", "/api/hooks/session-start", { sessionKey: "forged", harness: "codex" }],
      ["POST", "/api/hooks/session-end", { sessionKey: "forged", harness: "codex", transcript: "x" }],
      ["POST", "/api/sessions/forged/bypass", { enabled: true }],
      ["POST", "/api/sessions/search", { query: "x" }],
      ["POST", "/api/memory/feedback", { sessionKey: "forged", ratings: { a: 1 } }],
      ["GET", "/api/sessions", undefined],
      ["GET", "/api/sessions/forged", undefined],
    ];
    for (const [method, path, body] of routes) {
      await expectForgedRefused(td, method, path, body);
      const json = body === undefined ? undefined : JSON.stringify(body);
      if (json) {
        const res = await td.fetch(path, { method, headers: { "content-type": "text/plain" }, body: json });
        expect({ path, status: res.status }).toEqual({ path, status: 415 });
      }
    }
    expect(td.daemon.context.stores.sqlite!.query("SELECT 1 FROM sessions WHERE key = 'forged'").get()).toBeNull();
  });
});

describe("bypass", () => {
  test("while on, every hook answers {bypassed: true} and records nothing; off restores them; MCP-side recall keeps working", async () => {
    const key = "s-bypass";
    const fact = await remember({ content: "The bypass canary is a yellow kite" });
    await hook("session-start", { sessionKey: key, harness: "claude-code" });
    const on = await call(td, "POST", `/api/sessions/session:${key}/bypass`, { body: { enabled: true } });
    expect(on.body).toEqual({ key, bypassed: true });
    const rowsBefore = injectedRows(key).length;
    for (const event of ["session-start", "user-prompt-submit", "pre-compaction", "compaction-complete", "session-end"]) {
      const res = await hook(event, { sessionKey: key, harness: "claude-code", prompt: "yellow kite", transcript: "yellow kite talk" });
      expect({ event, body: res.body }).toEqual({ event, body: { bypassed: true } });
    }
    expect(injectedRows(key).length).toBe(rowsBefore);
    const session = (await call(td, "GET", `/api/sessions/${key}`)).body as SessionDetail;
    expect({ bypassed: session.bypassed, window: session.window, endedAt: session.endedAt, hasTranscript: session.hasTranscript }).toEqual({
      bypassed: true,
      window: 0,
      endedAt: null,
      hasTranscript: false,
    });
    // Tools are not hooks: recall with the session key still answers.
    const recalled = await td.client().memory.recall({ query: "yellow kite", sessionKey: key });
    expect(recalled.results.map((r) => r.id)).toContain(fact);
    const off = await td.client().sessions.bypass(key, { enabled: false });
    expect(off).toEqual({ key, bypassed: false });
    const prompt = (await hook("user-prompt-submit", { sessionKey: key, harness: "claude-code", prompt: "yellow kite" })).body as HookContextResponse;
    expect(prompt.memoryIds).toContain(fact);
  });

  test("a key no hook reported yet can be bypassed first; another agent's session is 404", async () => {
    expect(await td.client().sessions.bypass("session:future-1", { enabled: true })).toEqual({ key: "future-1", bypassed: true });
    expect((await hook("session-start", { sessionKey: "future-1", harness: "codex" })).body).toEqual({ bypassed: true });
    await hook("session-start", { sessionKey: "owned-by-x", harness: "codex" }, "x");
    expectError(await call(td, "POST", "/api/sessions/owned-by-x/bypass", { body: { enabled: true }, agent: "y" }), 404, "not_found");
  });
});

test("bypass survives a daemon restart", async () => {
  const dataDir = tempDir();
  writeFileSync(join(dataDir, "agent.yaml"), "embedding:\n  provider: none\n");
  const config = loadConfig({ env: { SIGNET_PATH: dataDir, HOME: dataDir } });
  const start = () => startDaemon({ ...config, daemon: { ...config.daemon, port: 0 } });
  const clientOf = (d: Awaited<ReturnType<typeof start>>) => new SignetClient({ baseUrl: d.url, dataDir });
  try {
    let daemon = await start();
    await clientOf(daemon).hooks.sessionStart({ sessionKey: "kept", harness: "claude-code" });
    expect(await clientOf(daemon).sessions.bypass("kept", { enabled: true })).toEqual({ key: "kept", bypassed: true });
    await daemon.stop();
    daemon = await start();
    try {
      expect(await clientOf(daemon).hooks.userPromptSubmit({ sessionKey: "kept", harness: "claude-code", prompt: "hello" })).toEqual({ bypassed: true });
      expect((await clientOf(daemon).sessions.get("kept")).bypassed).toBe(true);
    } finally {
      await daemon.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
