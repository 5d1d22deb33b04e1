// Secrets with the compiled binary (docs/api.md#secrets): `signet secret set | list | rm` reading the
// value from stdin (never argv) with the owner's credential read from .daemon/; secret_exec end to
// end through signet-mcp with the SDK's Client and a real subprocess; secret tools over /mcp without
// the owner's instance key are refused; and a daemon killed outright (-9) leaves no job process
// running and its jobs interrupted at the next start.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { alive } from "../../src/control/daemon-process";
import { BIN, json, run, sandbox, type Sandbox } from "../helpers/binary";
import { allFiles } from "../helpers/secrets";
import { hasSystemTool } from "../helpers/system-tool";
import { eventually } from "../helpers/wait";

const MCP_BIN = join(BIN, "..", "signet-mcp");
const YAML = "embedding:\n  provider: none\nanalytics:\n  flushMs: 100\n";
const VALUE = "e2e-secret-value/+=&?";

type ToolResult = { content: { type: string; text: string }[]; isError?: boolean; structuredContent?: any };

let s: Sandbox;
beforeAll(async () => {
  s = await sandbox(YAML);
  expect((await run(["daemon", "start"], { env: s.env })).code).toBe(0);
});
afterAll(async () => {
  await run(["daemon", "stop"], { env: s.env });
});

describe("signet secret", () => {
  test("a value on the command line is refused (exit 2), saying where values come from; nothing is stored", async () => {
    const r = await run(["secret", "set", "ARGV_KEY", "typed-on-the-command-line"], { env: s.env, stdin: "from-stdin\n" });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("the value comes from the hidden prompt or from stdin, never from the command line");
    expect(r.stderr).not.toContain("typed-on-the-command-line");
    expect(json(await run(["secret", "list"], { env: s.env })).secrets.map((x: { name: string }) => x.name)).not.toContain("ARGV_KEY");
  });

  test("set from stdin, list, rm; exit codes; the value never on the command line or in answers", async () => {
    const set = await run(["secret", "set", "API_KEY"], { env: s.env, stdin: `${VALUE}\n` });
    expect(set.code).toBe(0);
    expect(json(set)).toMatchObject({ name: "API_KEY", created: true });
    expect(set.stdout + set.stderr).not.toContain(VALUE);
    const listed = await run(["secret", "list"], { env: s.env });
    expect(json(listed).secrets.map((x: any) => x.name)).toEqual(["API_KEY"]);
    expect(listed.stdout).not.toContain(VALUE);
    const pretty = await run(["secret", "list", "--pretty"], { env: s.env });
    expect(pretty.stdout).toContain("API_KEY");

    // Usage errors: a bad name, no value, a value given as an argument.
    expect((await run(["secret", "set", "bad-name"], { env: s.env, stdin: "v" })).code).toBe(2);
    expect((await run(["secret", "set", "EMPTY"], { env: s.env, stdin: "" })).code).toBe(2);
    expect((await run(["secret", "set", "X", "--value", "v"], { env: s.env })).code).toBe(2);
    expect((await run(["secret", "rm", "NOT_THERE"], { env: s.env })).code).toBe(1);

    await run(["secret", "set", "TEMP"], { env: s.env, stdin: "temporary" });
    const rm = await run(["secret", "rm", "TEMP"], { env: s.env });
    expect(rm.code).toBe(0);
    expect(json(rm)).toEqual({ name: "TEMP", removed: true });
    expect(json(await run(["secret", "list"], { env: s.env })).secrets.map((x: any) => x.name)).toEqual(["API_KEY"]);
    const help = await run(["secret", "set", "--help"], { env: s.env });
    expect(help.stdout).toContain("hidden prompt");
  });

  test("without the owner's admin token, set and rm are refused with exit 4 and change nothing", async () => {
    // The CLI reads the token from .daemon/admin.token: give it a wrong one (the daemon keeps its own).
    const file = join(s.dataDir, ".daemon", "admin.token");
    const token = readFileSync(file);
    writeFileSync(file, "not-the-token\n");
    try {
      const set = await run(["secret", "set", "INTRUDER"], { env: s.env, stdin: "v" });
      expect(set.code).toBe(4);
      expect(set.stderr).toContain("admin token");
      expect((await run(["secret", "rm", "API_KEY"], { env: s.env })).code).toBe(4);
    } finally {
      writeFileSync(file, token);
    }
    expect(json(await run(["secret", "list"], { env: s.env })).secrets.map((x: any) => x.name)).toEqual(["API_KEY"]);
  });
});

// `script` gives the CLI a terminal (a pty), so the hidden prompt is what reads the value.
const SCRIPT = Bun.which("script");
test.skipIf(!SCRIPT)("on a terminal the value comes from a prompt that does not echo it (skipped: no `script` to make a pty)", async () => {
  const typed = "typed-at-the-prompt";
  const proc = Bun.spawn([SCRIPT!, "-qec", `${BIN} secret set PROMPTED --json`, "/dev/null"], {
    env: s.env,
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
    timeout: 20_000,
  });
  // Typed once the prompt shows, as a person would: the CLI turns echo off before it prompts.
  const decoder = new TextDecoder();
  let out = "";
  const reader = proc.stdout.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    out += decoder.decode(read.value, { stream: true });
    if (out.includes("value for PROMPTED:")) break;
  }
  proc.stdin.write(`${typed}\r`);
  await proc.stdin.flush();
  for (let read = await reader.read(); !read.done; read = await reader.read()) out += decoder.decode(read.value, { stream: true });
  const code = await proc.exited;
  proc.stdin.end();
  expect(code).toBe(0);
  expect(out).toContain("value for PROMPTED:");
  expect(out).toContain('"created": true');
  expect(out).not.toContain(typed);
  // The value stored is the one typed: a job compares it without printing it.
  const headers = { "content-type": "application/json", authorization: `Bearer ${readFileSync(join(s.dataDir, ".daemon", "admin.token"), "utf8").trim()}` };
  const base = `http://127.0.0.1:${s.port}`;
  const { id } = (await (await fetch(`${base}/api/secrets/exec`, { method: "POST", headers, body: JSON.stringify({ command: `[ "$P" = '${typed}' ] && echo same`, secrets: { P: "PROMPTED" } }) })).json()) as any;
  let job: any;
  for (let i = 0; i < 200 && (!job || job.status === "queued" || job.status === "running"); i++) {
    await Bun.sleep(20);
    job = await (await fetch(`${base}/api/secrets/exec/${id}`, { headers })).json();
  }
  expect(job.stdout).toBe("same\n");
  await run(["secret", "rm", "PROMPTED"], { env: s.env });
});

async function poll(client: Client, jobId: string): Promise<ToolResult> {
  for (let i = 0; i < 500; i++) {
    const r = (await client.callTool({ name: "secret_exec_status", arguments: { jobId } })) as ToolResult;
    const status = r.structuredContent?.status;
    if (status !== "queued" && status !== "running") return r;
    await Bun.sleep(20);
  }
  throw new Error(`job ${jobId} did not finish`);
}

describe("MCP", () => {
  test("secret_list, secret_exec and secret_exec_status through signet-mcp, with a real subprocess", async () => {
    await run(["secret", "set", "API_KEY"], { env: s.env, stdin: VALUE });
    const transport = new StdioClientTransport({ command: MCP_BIN, args: [], env: s.env, stderr: "pipe" });
    const client = new Client({ name: "signet-e2e", version: "1.0.0" });
    await client.connect(transport);
    try {
      const list = (await client.callTool({ name: "secret_list", arguments: {} })) as ToolResult;
      expect(list.isError).toBeFalsy();
      expect(list.structuredContent).toEqual({ secrets: ["API_KEY"] });

      const queued = (await client.callTool({
        name: "secret_exec",
        arguments: { command: 'echo "token: $TOKEN"; printf %s "$TOKEN" | base64 >&2; echo $$', secrets: { TOKEN: "API_KEY" }, timeoutSeconds: 60 },
      })) as ToolResult;
      expect(queued.isError).toBeFalsy();
      expect(queued.structuredContent).toMatchObject({ status: "queued", timeoutMs: 60_000 });
      const done = await poll(client, queued.structuredContent.id);
      expect(done.isError).toBeFalsy();
      const job = done.structuredContent;
      expect(job).toMatchObject({ status: "completed", exitCode: 0, timedOut: false, stderr: "[REDACTED]\n" });
      const [line, pid] = job.stdout.trim().split("\n");
      expect(line).toBe("token: [REDACTED]");
      // A real process ran; in the sandbox the shell is the first process of its own PID namespace.
      expect(pid).toMatch(/^[1-9]\d*$/);
      if (hasSystemTool("bubblewrap")) expect(pid).toBe("1");
      expect(done.content[0]!.text).toContain("token: [REDACTED]");
      expect(JSON.stringify(done)).not.toContain(VALUE);

      const bad = (await client.callTool({ name: "secret_exec", arguments: { command: "true", secrets: {}, timeoutSeconds: 1801 } })) as ToolResult;
      expect(bad.isError).toBe(true);
      expect(bad.content[0]!.text).toContain("timeoutSeconds");
      const unknown = (await client.callTool({ name: "secret_exec_status", arguments: { jobId: "nope" } })) as ToolResult;
      expect(unknown.isError).toBe(true);
      expect(unknown.content[0]!.text).toContain("not_found");
      const tools = (await client.listTools()).tools.map((t) => t.name);
      expect(tools.filter((t) => t.startsWith("secret"))).toEqual(["secret_list", "secret_exec", "secret_exec_status"]);
    } finally {
      await client.close();
    }
    // The tool calls were recorded (analytics), without the value; nor is it anywhere on disk.
    await Bun.sleep(300);
    const found = allFiles(s.dataDir).filter((f) => f.bytes.includes(Buffer.from(VALUE)));
    expect(found.map((f) => f.path)).toEqual([]);
    const logs = readdirSync(join(s.dataDir, ".daemon", "logs")).map((f) => readFileSync(join(s.dataDir, ".daemon", "logs", f), "utf8"));
    expect(logs.join("")).not.toContain(VALUE);
  });

  test("over /mcp, without signet-mcp's instance key, secret tools are refused and nothing runs", async () => {
    const mark = join(s.dataDir, "ran-over-http");
    const client = new Client({ name: "signet-e2e", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${s.port}/mcp`)));
    try {
      const r = (await client.callTool({ name: "secret_exec", arguments: { command: `touch ${mark}`, secrets: {} } })) as ToolResult;
      expect(r.isError).toBe(true);
      expect(r.content[0]!.text).toContain("unauthorized");
      const list = (await client.callTool({ name: "secret_list", arguments: {} })) as ToolResult;
      expect(list.isError).toBe(true);
    } finally {
      await client.close();
    }
    await Bun.sleep(200);
    expect(existsSync(mark)).toBe(false);
  });
});

// Without a sandbox (none on the machine): the sweep at the next start ends what the job left. A
// sandboxed job ends with the daemon itself (secret-exec-sandbox.test.ts).
test("unsandboxed, a daemon killed with -9: its job's processes are ended and the job is interrupted at the next start", async () => {
  const k = await sandbox(`${YAML}secrets:\n  sandbox: "off"\n`);
  expect((await run(["daemon", "start"], { env: k.env })).code).toBe(0);
  const pids = join(k.dataDir, "pids");
  const transport = new StdioClientTransport({ command: MCP_BIN, args: [], env: k.env, stderr: "pipe" });
  const client = new Client({ name: "signet-e2e", version: "1.0.0" });
  await client.connect(transport);
  let jobId: string;
  try {
    const queued = (await client.callTool({
      name: "secret_exec",
      arguments: { command: `sleep 300 & echo $! >> ${pids}; setsid sleep 300 & echo $! >> ${pids}; wait`, secrets: {} },
    })) as ToolResult;
    jobId = queued.structuredContent.id;
  } finally {
    await client.close();
  }
  expect(await eventually(() => existsSync(pids) && readFileSync(pids, "utf8").trim().split("\n").length === 2)).toBe(true);
  const daemonPid = Number(JSON.parse(readFileSync(join(k.dataDir, ".daemon", "daemon.pid"), "utf8")).pid);
  process.kill(daemonPid, "SIGKILL");
  expect(await eventually(() => !alive(daemonPid))).toBe(true);

  const restarted = await run(["daemon", "start"], { env: k.env });
  expect(restarted.code).toBe(0);
  const [inGroup, detached] = readFileSync(pids, "utf8").trim().split("\n").map(Number);
  try {
    if (!(await eventually(() => !alive(inGroup!) && !alive(detached!), 5000))) {
      // Rare in CI and not reproduced here: what the sweep had to go on, for the next reader of the log.
      const ledger = join(k.dataDir, ".daemon", "secret-exec-children.json");
      const logs = join(k.dataDir, ".daemon", "logs");
      console.error({
        // Whether this start found the killed daemon's lock still held ("already running") or started one.
        restarted: restarted.stdout,
        ledger: existsSync(ledger) ? readFileSync(ledger, "utf8") : "missing",
        log: readdirSync(logs).map((f) => readFileSync(join(logs, f), "utf8")).join("").split("\n").filter((l) => l.includes("secret exec")),
      });
    }
    expect({ inGroup: alive(inGroup!), detached: alive(detached!) }).toEqual({ inGroup: false, detached: false });
    const again = new Client({ name: "signet-e2e", version: "1.0.0" });
    await again.connect(new StdioClientTransport({ command: MCP_BIN, args: [], env: k.env, stderr: "pipe" }));
    try {
      const r = (await again.callTool({ name: "secret_exec_status", arguments: { jobId: jobId! } })) as ToolResult;
      expect(r.structuredContent).toMatchObject({ status: "interrupted", error: expect.stringContaining("the daemon stopped") });
    } finally {
      await again.close();
    }
  } finally {
    await run(["daemon", "stop"], { env: k.env });
    // Nothing of the job outlives the test, whatever it found.
    for (const pid of [inGroup!, detached!]) if (alive(pid)) process.kill(pid, "SIGKILL");
  }
});
