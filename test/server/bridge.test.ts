// The MCP bridge in the daemon against real servers: the registry routes, the pool's lifecycle
// (warm, timeouts, crashes, idle close, the cap, every child reaped), streamed progress, tasks and
// the calls' records.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ApiError } from "../../src/client/client";
import type { CallUpdate } from "../../src/contracts/bridge";
import { alive } from "../../src/control/daemon-process";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon";
import { EVERYTHING, NODE, descendants, everythingStdio, startEverythingHttp } from "../helpers/everything";
import { fakeErrorStdio, fakeStdio } from "../helpers/fake-server";
import { eventually } from "../helpers/wait";

let d: TestDaemon;

beforeAll(async () => {
  d = await startTestDaemon({ yaml: "analytics:\n  flushMs: 50\n" });
});

afterAll(async () => {
  await d.stop();
});

afterEach(async () => {
  for (const s of await d.daemon.context.bridge.list()) await d.daemon.context.bridge.remove(s.name);
});

async function api(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await d.fetch(path, {
    method,
    headers: { "content-type": "application/json", ...d.ownerHeaders, ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

const install = (name: string, transport: unknown, extra: Record<string, unknown> = {}) =>
  api("POST", "/api/marketplace/servers", { name, transport, ...extra });
const call = (name: string, body: Record<string, unknown>, headers?: Record<string, string>) =>
  api("POST", `/api/marketplace/servers/${name}/call`, body, headers);
const livePid = (name: string) => d.daemon.context.bridge.live().find((s) => s.name === name)?.pid;

/** A call asking for its progress: the status, the media type, and each NDJSON line with when it came (ms after the request). */
async function streamCall(name: string, body: Record<string, unknown>) {
  const started = Date.now();
  const res = await d.fetch(`/api/marketplace/servers/${name}/call`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/x-ndjson" },
    body: JSON.stringify(body),
  });
  const type = res.headers.get("content-type");
  if (!type?.startsWith("application/x-ndjson")) return { status: res.status, type, body: (await res.json()) as any, lines: [] };
  const lines: { at: number; line: any }[] = [];
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    buffered += decoder.decode(read.value, { stream: true });
    for (let nl = buffered.indexOf("\n"); nl !== -1; nl = buffered.indexOf("\n")) {
      lines.push({ at: Date.now() - started, line: JSON.parse(buffered.slice(0, nl)) });
      buffered = buffered.slice(nl + 1);
    }
  }
  expect(buffered).toBe("");
  return { status: res.status, type, body: undefined, lines };
}

const FAKE_TASKS = resolve(import.meta.dir, "../helpers/fake-task-server.mjs");

function invocationRows(server: string) {
  return d.daemon.context.stores.sqlite!
    .query<any, [string]>("SELECT * FROM mcp_invocations WHERE server = ? ORDER BY id")
    .all(server);
}

async function flushed() {
  await d.daemon.context.analytics.recorder.flush();
}

describe("registry routes", () => {
  test("install, list, get, update, delete; references stay references", async () => {
    const made = await install("everything", everythingStdio({ env: { TOKEN: "secret:EVERYTHING_TOKEN" } }), {
      description: "the reference server",
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      name: "everything",
      enabled: true,
      description: "the reference server",
      transport: { type: "stdio", command: NODE, args: [EVERYTHING, "stdio"], env: { TOKEN: "secret:EVERYTHING_TOKEN" } },
    });
    const listed = await api("GET", "/api/marketplace/servers");
    expect(listed.body.servers.map((s: any) => [s.name, s.running])).toEqual([["everything", false]]);
    const off = await api("PATCH", "/api/marketplace/servers/everything", { enabled: false });
    expect(off.body.enabled).toBe(false);
    expect(off.body.updatedAt > made.body.updatedAt).toBe(true);
    expect((await api("GET", "/api/marketplace/servers?enabled=true")).body.servers).toEqual([]);
    expect((await api("GET", "/api/marketplace/servers?enabled=false")).body.servers).toHaveLength(1);
    expect((await api("DELETE", "/api/marketplace/servers/everything")).status).toBe(200);
    expect((await api("GET", "/api/marketplace/servers/everything")).status).toBe(404);
  });

  test("bad installs are refused with the field named, and change nothing", async () => {
    for (const word of ["list", "add", "analytics", "list-tools", "Help"]) {
      const r = await install(word, everythingStdio());
      expect(r.status).toBe(400);
      expect(r.body.error).toContain("reserved");
    }
    expect((await install("bad name", everythingStdio())).body.error).toContain("name");
    expect((await install("x", { type: "stdio", command: "" })).body.error).toContain("transport.command");
    expect((await install("x", { type: "http", url: "ftp://example.com" })).body.error).toContain("transport.url");
    expect((await install("x", { type: "sse", url: "http://x" })).status).toBe(400);
    expect((await api("POST", "/api/marketplace/servers", { name: "x" })).body.error).toContain("transport");
    expect((await api("GET", "/api/marketplace/servers?enabled=maybe")).status).toBe(400);
    expect((await api("GET", "/api/marketplace/servers")).body.servers).toEqual([]);
    expect((await install("dup", everythingStdio())).status).toBe(201);
    const again = await install("dup", everythingStdio());
    expect(again).toMatchObject({ status: 409, body: { code: "exists" } });
  });

  test("an env variable or header named __proto__ is refused naming it, not dropped; installed and changed servers keep none", async () => {
    // JSON.parse makes `__proto__` an own key, as a request body does; an object literal would set the prototype.
    const proto = () => JSON.parse('{"__proto__":"x","KEPT":"y"}') as Record<string, string>;
    const cases: [string, unknown][] = [
      ["transport.env", { ...everythingStdio(), env: proto() }],
      ["transport.headers", { type: "http", url: "http://127.0.0.1:9/mcp", headers: proto() }],
    ];
    for (const [field, transport] of cases) {
      const r = await install("proto", transport);
      expect({ field, status: r.status, code: r.body.code }).toEqual({ field, status: 400, code: "invalid_input" });
      expect(r.body.error).toContain(`${field}: the name __proto__ cannot be used`);
    }
    expect((await api("GET", "/api/marketplace/servers")).body.servers).toEqual([]);
    expect((await install("proto", everythingStdio({ env: { KEPT: "y" } }))).status).toBe(201);
    const changed = await api("PATCH", "/api/marketplace/servers/proto", { transport: { ...everythingStdio(), env: proto() } });
    expect(changed.status).toBe(400);
    expect(changed.body.error).toContain("transport.env: the name __proto__ cannot be used");
    expect((await api("GET", "/api/marketplace/servers/proto")).body.transport.env).toEqual({ KEPT: "y" });
  });
});

describe("calls through the pool", () => {
  test("tools are listed and a warm server answers; a numeric-looking string stays a string", async () => {
    await install("everything", everythingStdio());
    const tools = await api("GET", "/api/marketplace/servers/everything/tools");
    expect(tools.status).toBe(200);
    expect(tools.body.tools.map((t: any) => t.name)).toEqual(expect.arrayContaining(["echo", "get-sum", "get-tiny-image"]));
    const pid = livePid("everything");
    expect(pid).toBeGreaterThan(0);
    const echoed = await call("everything", { tool: "echo", arguments: { message: "007" } });
    expect(echoed).toEqual({ status: 200, body: { content: [{ type: "text", text: "Echo: 007" }] } });
    const sum = await call("everything", { tool: "get-sum", arguments: { a: 2, b: 40 } });
    expect(sum.body.content[0].text).toContain("42");
    // The same process served every call: the server stayed warm.
    expect(livePid("everything")).toBe(pid);
    // An argument named __proto__ is refused naming it, not dropped before the server sees the call.
    const proto = await call("everything", JSON.parse('{"tool":"echo","arguments":{"__proto__":"x","message":"hi"}}'));
    expect({ status: proto.status, code: proto.body.code }).toEqual({ status: 400, code: "invalid_input" });
    expect(proto.body.error).toContain("arguments: the name __proto__ cannot be used");
  });

  test("the tool's own error is a result; unknown tools, servers and disabled servers are refused", async () => {
    await install("everything", everythingStdio());
    const bad = await call("everything", { tool: "echo", arguments: {} });
    expect(bad.status).toBe(200);
    expect(bad.body.isError).toBe(true);
    const unknownTool = await call("everything", { tool: "nope", arguments: {} });
    expect(unknownTool.status).toBe(404);
    expect(unknownTool.body.error).toContain("its tools: echo");
    expect((await call("nothing", { tool: "echo" })).status).toBe(404);
    await api("PATCH", "/api/marketplace/servers/everything", { enabled: false });
    const off = await call("everything", { tool: "echo", arguments: { message: "x" } });
    expect(off).toMatchObject({ status: 409, body: { code: "disabled" } });
    expect(off.body.error).toContain("signet mcp enable everything");
    expect((await call("everything", { tool: 7 })).status).toBe(400);
  });

  test("`params` words are typed by the daemon from the tool's schema; what does not fit is refused naming it", async () => {
    await install("everything", everythingStdio());
    expect(await call("everything", { tool: "echo", params: ["message=007"] })).toEqual({ status: 200, body: { content: [{ type: "text", text: "Echo: 007" }] } });
    expect((await call("everything", { tool: "get-sum", params: ["a=1.5", "b=2"] })).body.content[0].text).toContain("3.5");
    const notNumber = await call("everything", { tool: "get-sum", params: ["a=x", "b=1"] });
    expect(notNumber).toMatchObject({ status: 400, body: { code: "invalid_input" } });
    expect(notNumber.body.error).toContain('"a"');
    const missing = await call("everything", { tool: "get-sum", params: ["a=1"] });
    expect(missing.body.error).toContain('missing required parameter "b"');
    const noTool = await call("everything", { tool: "nope", params: [] });
    expect(noTool).toMatchObject({ status: 400, body: { code: "invalid_input" } });
    expect(noTool.body.error).toContain("its tools: echo");
    const both = await call("everything", { tool: "echo", arguments: { message: "a" }, params: ["message=b"] });
    expect(both.status).toBe(400);
    expect(both.body.error).toContain("params");
    // The route's guard holds for it as for any call: a page elsewhere cannot make one.
    expect((await call("everything", { tool: "echo", params: ["message=x"] }, { origin: "https://evil.example" })).status).toBe(403);
  });

  test("a server that exits at start, or is not there at all, fails to start with the reason", async () => {
    await install("dies", {
      type: "stdio",
      command: NODE,
      args: ["-e", "console.error('missing API key'); process.exit(3)"],
    });
    const r = await call("dies", { tool: "echo", arguments: {} });
    expect(r.status).toBe(503);
    expect(r.body.code).toBe("server_unavailable");
    expect(r.body.error).toContain("exit code 3");
    expect(r.body.error).toContain("missing API key");
    await install("absent", { type: "stdio", command: "/nonexistent/mcp-server" });
    const absent = await call("absent", { tool: "echo", arguments: {} });
    expect(absent.body).toMatchObject({ code: "server_unavailable" });
    expect(absent.body.error).toContain("command not found");
    expect(d.daemon.context.bridge.live()).toEqual([]);
  });

  test("a server stored with relative paths (before they had to be absolute) starts nothing and says how to mend it", async () => {
    // The API refuses such paths now; an older store may still hold them.
    await d.daemon.context.bridge.install({
      name: "relative",
      enabled: true,
      transport: { type: "stdio", command: "./bin/server.js", args: [], env: {}, cwd: "repo" },
    } as never);
    const r = await call("relative", { tool: "echo", arguments: {} });
    expect({ status: r.status, code: r.body.code }).toEqual({ status: 503, code: "server_unavailable" });
    expect(r.body.error).toContain('"relative" has a relative cwd repo and a relative command ./bin/server.js');
    expect(r.body.error).toContain("signet mcp remove relative");
    expect(d.daemon.context.bridge.live()).toEqual([]);
  });

  test("a server that never answers the handshake: the caller hears so when its own timeout passes", async () => {
    await install("silent", { type: "stdio", command: NODE, args: ["-e", "setInterval(() => {}, 1000)"] });
    const started = Date.now();
    const r = await api("GET", "/api/marketplace/servers/silent/tools?timeout_ms=400");
    expect(r.status).toBe(503);
    expect(r.body.error).toContain("did not answer the MCP handshake in time");
    expect(Date.now() - started).toBeLessThan(5000);
    // The start itself has its own budget, bridge.callTimeoutMs: its end is in bridge-faults.test.ts.
  });

  test("a call past its timeout answers 504; the server stays usable", async () => {
    await install("everything", everythingStdio());
    const slow = await call("everything", {
      tool: "trigger-long-running-operation",
      arguments: { duration: 5, steps: 5 },
      timeoutMs: 300,
    });
    expect(slow).toMatchObject({ status: 504, body: { code: "timeout" } });
    expect(slow.body.error).toBe('MCP server "everything" did not answer within 300 ms');
    const ok = await call("everything", { tool: "echo", arguments: { message: "still here" } });
    expect(ok.body.content[0].text).toBe("Echo: still here");
  });

  test("a server's own JSON-RPC errors are its failure in its own words, -32000 and -32001 too: not an exit, not a timeout", async () => {
    await install("erring", fakeErrorStdio());
    expect((await call("erring", { tool: "echo", arguments: { s: "warm" } })).body.content[0].text).toBe("warm");
    const pid = livePid("erring");
    // -32000 and -32001 are the codes the SDK gives its own "connection closed" and "request timed
    // out"; from a server they are its error (-32000 is the generic "server error" of JSON-RPC).
    for (const code of [-32603, -32000, -32001]) {
      const error = `MCP server "erring" failed: MCP error ${code}: database locked (code ${code})`;
      const started = Date.now();
      const r = await call("erring", { tool: "fail", arguments: { code } });
      expect(r).toEqual({ status: 503, body: { code: "server_unavailable", error } });
      expect(await call("erring", { tool: "fail", params: [`code=${code}`] })).toEqual(r);
      // It answered at once: nothing waited for a timeout.
      expect(Date.now() - started).toBeLessThan(5000);
    }
    // The same process answered every call: it never exited.
    expect(livePid("erring")).toBe(pid);
    await flushed();
    expect(invocationRows("erring").map((r: any) => [r.tool, r.success, r.error_text])).toEqual([
      ["echo", 1, null],
      ...[-32603, -32000, -32001].flatMap((code) => {
        const row = ["fail", 0, `MCP server "erring" failed: MCP error ${code}: database locked (code ${code})`];
        return [row, row];
      }),
    ]);
  });

  test("a server that answers its start with an error failed to start in its own words: not for want of time, not an exit", async () => {
    for (const code of [-32603, -32000, -32001]) {
      await install(`erring-start${code}`, fakeErrorStdio({ failList: code }));
      const r = await api("GET", `/api/marketplace/servers/erring-start${code}/tools`);
      expect(r.status).toBe(503);
      expect(r.body.error).toBe(`MCP server "erring-start${code}" failed to start: MCP error ${code}: database locked (code ${code})`);
    }
    expect(d.daemon.context.bridge.live()).toEqual([]);
  });

  test("a server killed mid-call fails that call; the next call starts it again", async () => {
    await install("everything", everythingStdio());
    await call("everything", { tool: "echo", arguments: { message: "warm" } });
    const pid = livePid("everything")!;
    const pending = call("everything", { tool: "trigger-long-running-operation", arguments: { duration: 5, steps: 5 } });
    await Bun.sleep(200);
    process.kill(pid, "SIGKILL");
    const r = await pending;
    expect(r.status).toBe(503);
    expect(r.body.error).toContain("exited during the call");
    const again = await call("everything", { tool: "echo", arguments: { message: "back" } });
    expect(again.body.content[0].text).toBe("Echo: back");
    expect(livePid("everything")).not.toBe(pid);
  });

  test("when a wrapper is killed mid-call, the server it started goes with it", async () => {
    await install("wrapped", { type: "stdio", command: "/bin/sh", args: ["-c", `"${NODE}" "${EVERYTHING}" stdio`] });
    await call("wrapped", { tool: "echo", arguments: { message: "warm" } });
    const shell = livePid("wrapped")!;
    const server = descendants(shell);
    expect(server.length).toBeGreaterThan(0);
    const pending = call("wrapped", { tool: "trigger-long-running-operation", arguments: { duration: 5, steps: 5 } });
    await Bun.sleep(200);
    process.kill(shell, "SIGKILL");
    expect((await pending).status).toBe(503);
    expect(await eventually(() => server.every((p) => !alive(p)))).toBe(true);
  });

  test("a secret reference that cannot be resolved fails the start and shows no value", async () => {
    await install("needs-secret", everythingStdio({ env: { API_KEY: "secret:NOT_THERE" } }));
    const r = await call("needs-secret", { tool: "echo", arguments: { message: "x" } });
    expect(r.status).toBe(503);
    expect(r.body.error).toContain("secret:NOT_THERE");
    expect(d.daemon.context.bridge.live()).toEqual([]);
  });

  test("streamable HTTP servers are called the same way", async () => {
    const http = await startEverythingHttp();
    try {
      expect((await install("remote", { type: "http", url: http.url })).status).toBe(201);
      const tools = await api("GET", "/api/marketplace/servers/remote/tools");
      expect(tools.body.tools.map((t: any) => t.name)).toContain("echo");
      const r = await call("remote", { tool: "echo", arguments: { message: "over http" } });
      expect(r.body.content[0].text).toBe("Echo: over http");
    } finally {
      await http.stop();
    }
  });
});

describe("progress and tasks", () => {
  const LONG = "trigger-long-running-operation";

  test("asked for with Accept: application/x-ndjson, progress streams as it comes, then the result", async () => {
    await install("everything", everythingStdio());
    const r = await streamCall("everything", { tool: LONG, arguments: { duration: 2, steps: 4 } });
    expect(r.status).toBe(200);
    expect(r.type).toStartWith("application/x-ndjson");
    const [last, ...rest] = r.lines.map((l) => l.line).reverse();
    expect(last).toEqual({ result: { content: [{ type: "text", text: "Long running operation completed. Duration: 2 seconds, Steps: 4." }] } });
    // The last step's notification comes right before the result, and the SDK may settle the
    // request first (it handles notifications a tick later): that one can be missing.
    const progress = rest.reverse();
    expect(progress.length).toBeGreaterThanOrEqual(3);
    expect(progress).toEqual([1, 2, 3, 4].slice(0, progress.length).map((n) => ({ progress: n, total: 4 })));
    // Sent as it happened (a step every 500 ms), not gathered up to the end.
    expect(r.lines.at(-1)!.at - r.lines[0]!.at).toBeGreaterThan(1000);
    // A call refused before it started keeps its own status and plain JSON.
    const unknown = await streamCall("everything", { tool: "nope" });
    expect(unknown).toMatchObject({ status: 404, body: { code: "not_found" }, lines: [] });
  }, 20_000);

  test("progress renews the timeout of a call that streams it; without streaming the timeout stays a hard bound", async () => {
    await install("everything", everythingStdio());
    const args = { duration: 2, steps: 4 };
    // The three calls run side by side on the one server: each is bounded on its own.
    const [streamed, plain, silent] = await Promise.all([
      streamCall("everything", { tool: LONG, arguments: args, timeoutMs: 1200 }),
      call("everything", { tool: LONG, arguments: args, timeoutMs: 1200 }),
      // No progress before the timeout: refused as a plain 504 too.
      streamCall("everything", { tool: LONG, arguments: { duration: 2, steps: 1 }, timeoutMs: 600 }),
    ]);
    expect(streamed.lines.at(-1)!.line.result.content[0].text).toContain("completed");
    expect(plain).toMatchObject({ status: 504, body: { code: "timeout" } });
    expect(plain.body.error).toContain("did not answer within 1200 ms");
    expect(silent).toMatchObject({ status: 504, body: { code: "timeout" }, lines: [] });
  }, 20_000);

  test("a failure after progress began is the stream's last line; the client throws it with its code", async () => {
    await install("everything", everythingStdio());
    await call("everything", { tool: "echo", arguments: { message: "warm" } });
    const updates: CallUpdate[] = [];
    const failed = await d
      .client()
      .bridge.call("everything", { tool: LONG, arguments: { duration: 5, steps: 5 } }, {
        onUpdate: (update) => {
          if (updates.push(update) === 1) process.kill(livePid("everything")!, "SIGKILL");
        },
      })
      .catch((err) => err);
    expect(failed).toBeInstanceOf(ApiError);
    expect(failed).toMatchObject({ status: 503, code: "server_unavailable" });
    expect(failed.message).toContain("exited during the call");
    expect(updates).toEqual([{ progress: 1, total: 5 }]);
  });

  test("a large result comes whole over the stream, in however many pieces it arrives", async () => {
    await install("fake", fakeStdio());
    const result = await d.client().bridge.call("fake", { tool: "text", arguments: { bytes: 3_000_000 } }, { onUpdate: () => {} });
    expect((result.content[0] as any).text).toBe("x".repeat(3_000_000));
  });

  test("a tool that requires a task (server-everything's simulate-research-query) runs as one, its status streamed", async () => {
    await install("everything", everythingStdio());
    const tools = await api("GET", "/api/marketplace/servers/everything/tools");
    expect(tools.body.tools.find((t: any) => t.name === "simulate-research-query").execution).toEqual({ taskSupport: "required" });
    const updates: CallUpdate[] = [];
    // Four stages of a second each outlast 2.5 s; each change of status renews the timeout.
    const streamed = d
      .client()
      .bridge.call("everything", { tool: "simulate-research-query", arguments: { topic: "bun" }, timeoutMs: 2500 }, {
        onUpdate: (u) => updates.push(u),
      });
    // Without streaming, the same call answers its result (run beside the streamed one: a task takes 4 s).
    const [result, plain] = await Promise.all([streamed, call("everything", { tool: "simulate-research-query", arguments: { topic: "plain" } })]);
    expect((result.content[0] as any).text).toContain("# Research Report: bun");
    const statuses = updates.map((u) => ("task" in u ? u.task : undefined));
    expect(statuses[0]).toMatchObject({ status: "working", statusMessage: "Gathering sources..." });
    expect(statuses.at(-1)).toMatchObject({ status: "completed" });
    expect(new Set(statuses.map((t) => t?.taskId)).size).toBe(1);
    expect(plain.status).toBe(200);
    expect(plain.body.content[0].text).toContain("# Research Report: plain");
  }, 30_000);

  test("a failed task is the tool's failure; an overdue one times out; a server without tasks is called plainly", async () => {
    await install("tasks", { type: "stdio", command: NODE, args: [FAKE_TASKS] });
    expect((await call("tasks", { tool: "job" })).body).toEqual({ content: [{ type: "text", text: "done" }] });
    const failed = await call("tasks", { tool: "job", arguments: { fail: "disk full" } });
    expect(failed.status).toBe(200);
    expect(failed.body).toEqual({ isError: true, content: [{ type: "text", text: "task t2 of job failed: disk full" }] });
    const overdue = await call("tasks", { tool: "job", arguments: { ms: 10_000 }, timeoutMs: 400 });
    expect(overdue).toMatchObject({ status: 504, body: { code: "timeout" } });
    await install("no-tasks", { type: "stdio", command: NODE, args: [FAKE_TASKS, "--no-tasks"] });
    expect((await call("no-tasks", { tool: "job" })).body).toEqual({ content: [{ type: "text", text: "ran without a task" }] });
    await flushed();
    expect(invocationRows("tasks").map((r: any) => [r.success, r.error_text])).toEqual([
      [1, null],
      [0, "task t2 of job failed: disk full"],
      [0, expect.stringContaining("did not answer within 400 ms")],
    ]);
  });
});

describe("invocation records", () => {
  test("every call is recorded with the real agent, source, outcome and latency", async () => {
    await install("tracked", everythingStdio());
    await call("tracked", { tool: "echo", arguments: { message: "a" } }, { "x-signet-agent-id": "ops" });
    await call("tracked", { tool: "echo", arguments: {} }, { "x-signet-agent-id": "ops" });
    await call("tracked", { tool: "nope", arguments: {} }); // never reached a tool: not recorded
    await call("tracked", { tool: "echo", arguments: { message: "b" }, source: "agent", sessionKey: "s-1" }, {
      "x-signet-agent-id": "claude",
    });
    await flushed();
    const rows = invocationRows("tracked");
    expect(rows.map((r: any) => [r.tool, r.agent_id, r.source, r.success, r.client, r.session_key])).toEqual([
      ["echo", "ops", "cli", 1, "cli", null],
      ["echo", "ops", "cli", 0, "cli", null],
      ["echo", "claude", "agent", 1, null, "s-1"],
    ]);
    expect(rows[1].error_text).toContain("message");
    for (const r of rows) {
      expect(r.latency_ms).toBeGreaterThanOrEqual(0);
      expect(r.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    }
    const analytics = await api("GET", "/api/mcp/analytics?server=tracked");
    expect(analytics.body).toMatchObject({ totalCalls: 3, successCount: 2, failureCount: 1 });
  });

  test("a call's start is part of it, with params as with arguments: a start that fails is a failed call; a cold start counts in its latency", async () => {
    await install("broken", { type: "stdio", command: "/bin/sh", args: ["-c", 'echo "broken: cannot start" >&2; exit 3'] });
    for (const how of [{ params: ["s=1"] }, { arguments: { s: "1" } }]) {
      const r = await call("broken", { tool: "echo", ...how });
      expect(r).toMatchObject({ status: 503, body: { code: "server_unavailable" } });
      expect(r.body.error).toContain("broken: cannot start");
    }
    // Each starts cold, a second late.
    await install("slow-params", fakeErrorStdio({ startDelayMs: 1000 }));
    await install("slow-args", fakeErrorStdio({ startDelayMs: 1000 }));
    expect((await call("slow-params", { tool: "echo", params: ["s=a"] })).body.content[0].text).toBe("a");
    expect((await call("slow-args", { tool: "echo", arguments: { s: "a" } })).body.content[0].text).toBe("a");
    // Warm, and words that do not fit: refused before any call, so not recorded.
    expect((await call("slow-params", { tool: "echo", params: ["s=b"] })).body.content[0].text).toBe("b");
    expect((await call("slow-params", { tool: "echo", params: ["nope=1"] })).status).toBe(400);
    await flushed();
    const broken = invocationRows("broken");
    expect(broken.map((r: any) => [r.tool, r.source, r.success])).toEqual([
      ["echo", "cli", 0],
      ["echo", "cli", 0],
    ]);
    for (const r of broken) {
      expect(r.error_text).toContain('MCP server "broken" failed to start: it exited at start (exit code 3)');
      expect(r.error_text).toContain("broken: cannot start");
    }
    const [coldParams, warmParams, ...none] = invocationRows("slow-params");
    const [coldArgs] = invocationRows("slow-args");
    expect(none).toEqual([]);
    expect([coldParams.success, warmParams.success, coldArgs.success]).toEqual([1, 1, 1]);
    expect(coldParams.latency_ms).toBeGreaterThanOrEqual(1000);
    expect(coldArgs.latency_ms).toBeGreaterThanOrEqual(1000);
    expect(warmParams.latency_ms).toBeLessThan(1000);
    const analytics = await api("GET", "/api/mcp/analytics?server=broken");
    expect(analytics.body).toMatchObject({ totalCalls: 2, successCount: 0, failureCount: 2 });
  });

  test("agents reach enabled servers through mcp_server_list and mcp_server_call over /mcp", async () => {
    await install("agent-target", everythingStdio());
    await install("off", everythingStdio(), { enabled: false });
    const client = new Client({ name: "bridge-test", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${d.url}/mcp`), {
        requestInit: { headers: { "x-signet-agent-id": "codex", "x-signet-session-key": "sess-9" } },
      }),
    );
    try {
      const listed = await client.callTool({ name: "mcp_server_list", arguments: {} });
      expect((listed.structuredContent as any).servers.map((s: any) => s.name)).toEqual(["agent-target"]);
      const tools = await client.callTool({ name: "mcp_server_list", arguments: { server: "agent-target" } });
      expect((tools.structuredContent as any).tools.map((t: any) => t.name)).toContain("echo");
      const r = await client.callTool({
        name: "mcp_server_call",
        arguments: { server: "agent-target", tool: "echo", arguments: { message: "from an agent" } },
      });
      expect(r).toEqual({ content: [{ type: "text", text: "Echo: from an agent" }] });
      const off = await client.callTool({ name: "mcp_server_call", arguments: { server: "off", tool: "echo", arguments: {} } });
      expect(off.isError).toBe(true);
      expect((off.content as any)[0].text).toContain("disabled");
    } finally {
      await client.close();
    }
    await flushed();
    expect(invocationRows("agent-target").map((r: any) => [r.tool, r.agent_id, r.source, r.session_key])).toEqual([
      ["echo", "codex", "agent", "sess-9"],
    ]);
    const own = invocationRows("signet").map((r: any) => [r.tool, r.agent_id, r.source, r.success]);
    expect(own).toEqual([
      ["mcp_server_list", "codex", "mcp", 1],
      ["mcp_server_list", "codex", "mcp", 1],
      ["mcp_server_call", "codex", "mcp", 1],
      ["mcp_server_call", "codex", "mcp", 0],
    ]);
  });
});

describe("lifecycle", () => {
  test("an idle server is closed after bridge.idleCloseMs; the cap closes the least recently used", async () => {
    const small = await startTestDaemon({ yaml: "bridge:\n  idleCloseMs: 400\n  maxServers: 1\n" });
    try {
      const post = (path: string, body: unknown) =>
        small.fetch(path, { method: "POST", headers: { "content-type": "application/json", ...small.ownerHeaders }, body: JSON.stringify(body) });
      await post("/api/marketplace/servers", { name: "a", transport: everythingStdio() });
      await post("/api/marketplace/servers", { name: "b", transport: everythingStdio() });
      const live = () => small.daemon.context.bridge.live();
      expect((await post("/api/marketplace/servers/a/call", { tool: "echo", arguments: { message: "1" } })).status).toBe(200);
      const a = live()[0]!.pid!;
      expect((await post("/api/marketplace/servers/b/call", { tool: "echo", arguments: { message: "2" } })).status).toBe(200);
      expect(live().map((s) => s.name)).toEqual(["b"]);
      const b = live()[0]!.pid!;
      expect(await eventually(() => !alive(a))).toBe(true);
      // Nothing calls b now: it is closed once idle for 400 ms.
      expect(await eventually(() => live().length === 0 && !alive(b), 5000)).toBe(true);
    } finally {
      await small.stop();
    }
  });

  test("no child outlives the daemon: wrapped servers' grandchildren are reaped on stop", async () => {
    const own = await startTestDaemon();
    const post = (path: string, body: unknown) =>
      own.fetch(path, { method: "POST", headers: { "content-type": "application/json", ...own.ownerHeaders }, body: JSON.stringify(body) });
    // A shell that stays the parent: the server proper is the daemon's grandchild.
    await post("/api/marketplace/servers", {
      name: "wrapped",
      transport: { type: "stdio", command: "/bin/sh", args: ["-c", `"${NODE}" "${EVERYTHING}" stdio`] },
    });
    await post("/api/marketplace/servers", { name: "plain", transport: everythingStdio() });
    await post("/api/marketplace/servers", { name: "silent", transport: { type: "stdio", command: NODE, args: ["-e", "setInterval(() => {}, 1000)"] } });
    expect((await post("/api/marketplace/servers/wrapped/call", { tool: "echo", arguments: { message: "1" } })).status).toBe(200);
    expect((await post("/api/marketplace/servers/plain/call", { tool: "echo", arguments: { message: "1" } })).status).toBe(200);
    // A call in flight on a server that hangs at start when the daemon stops.
    const hanging = post("/api/marketplace/servers/silent/call", { tool: "echo", arguments: {} }).catch(() => null);
    await eventually(() => own.daemon.context.bridge.live().length === 3, 3000);
    const pids = own.daemon.context.bridge.live().map((s) => s.pid!);
    const all = [...pids, ...pids.flatMap((p) => descendants(p))];
    expect(all.length).toBeGreaterThan(pids.length);
    await own.stop();
    await hanging;
    expect(all.filter((p) => alive(p))).toEqual([]);
  });
});
