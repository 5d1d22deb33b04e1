// `signet mcp` from the compiled binary against a real daemon and the real server-everything:
// installing, importing, typed calls, output, exit codes (docs/cli.md#mcp-bridge, docs/api.md#errors),
// the rows each call leaves, and progress, waiting and tasks as a terminal (under `script`) shows them.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { json, requireBinary, run, sandbox, type Sandbox, startDaemonIn } from "../helpers/binary";
import { alive } from "../../src/control/daemon-process";
import { EVERYTHING, NODE, descendants } from "../helpers/everything";
import { FAKE_ERROR_SERVER } from "../helpers/fake-server";
import { eventually } from "../helpers/wait";

let s: Sandbox;
const cli = (args: string[], stdin?: string, cwd?: string) => run(args, { env: s.env, stdin, cwd, timeoutMs: 30_000 });

beforeAll(async () => {
  s = await sandbox("embedding:\n  provider: none\nanalytics:\n  flushMs: 50\n");
  await startDaemonIn(s);
  const added = await cli(["mcp", "add", "everything", "--description", "reference server", "--", NODE, EVERYTHING, "stdio"]);
  if (added.code !== 0) throw new Error(`mcp add failed: ${added.stderr}`);
});

afterAll(async () => {
  await cli(["daemon", "stop"]);
});

describe("signet mcp: servers", () => {
  test("add, list, disable, enable, remove; reserved and bad names are usage errors", async () => {
    const listed = json(await cli(["mcp", "list"]));
    expect(listed.servers.map((x: any) => [x.name, x.enabled, x.transport.command])).toEqual([["everything", true, NODE]]);
    expect((await cli(["mcp", "add", "web", "--url", "http://127.0.0.1:9/mcp", "--header", "Authorization=secret:WEB_TOKEN"])).code).toBe(0);
    const web = json(await cli(["mcp", "list"])).servers.find((x: any) => x.name === "web");
    expect(web.transport).toEqual({ type: "http", url: "http://127.0.0.1:9/mcp", headers: { Authorization: "secret:WEB_TOKEN" } });
    // Repeated flags before `--`; what follows `--` is the server's own command line, untouched.
    const envs = await cli(["mcp", "add", "envs", "--env", "A=1", "--env=B=two", "--", "/bin/sh", "-c", "exit 0", "--env", "C=3"]);
    expect(envs.code).toBe(0);
    const added = json(await cli(["mcp", "list"])).servers.find((x: any) => x.name === "envs");
    expect(added.transport).toMatchObject({ command: "/bin/sh", args: ["-c", "exit 0", "--env", "C=3"], env: { A: "1", B: "two" } });
    expect((await cli(["mcp", "add", "noval", "--", "/bin/sh"].toSpliced(3, 0, "--env"))).code).toBe(2);
    // A variable named __proto__ is refused naming it, not dropped.
    const proto = await cli(["mcp", "add", "proto", "--env", "__proto__=x", "--", "/bin/sh"]);
    expect(proto.code).toBe(2);
    expect(proto.stderr).toContain("transport.env: the name __proto__ cannot be used");
    expect((await cli(["mcp", "remove", "envs"])).code).toBe(0);
    const reserved = await cli(["mcp", "add", "analytics", "--", NODE]);
    expect(reserved.code).toBe(2);
    expect(reserved.stderr).toContain("reserved");
    expect((await cli(["mcp", "add", "nothing"])).code).toBe(2);
    expect((await cli(["mcp", "add", "both", "--url", "http://x/mcp", "--", NODE])).code).toBe(2);
    expect((await cli(["mcp", "disable", "web"])).code).toBe(0);
    const off = await cli(["mcp", "web", "anything"]);
    expect(off.code).toBe(1);
    expect(off.stderr).toContain("signet mcp enable web");
    expect((await cli(["mcp", "remove", "web"])).code).toBe(0);
    expect((await cli(["mcp", "remove", "web"])).code).toBe(1);
  });

  test("a server that fails to start exits 3 with the reason; a call to it is recorded as a failed call", async () => {
    expect((await cli(["mcp", "add", "broken", "--", "sh", "-c", 'echo "broken: cannot start" >&2; exit 3'])).code).toBe(0);
    const r = await cli(["mcp", "broken", "list-tools"]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("failed to start");
    expect(r.stderr).toContain("broken: cannot start");
    for (const args of [["--param", "s=1"], ["--json", '{"s":"1"}']]) {
      const call = await cli(["mcp", "broken", "echo", ...args]);
      expect(call.code).toBe(3);
      expect(call.stderr).toContain('MCP server "broken" failed to start: it exited at start (exit code 3)');
      expect(call.stderr).toContain("broken: cannot start");
    }
    // Listing tools is no call; the two calls are.
    let analytics: any;
    await eventually(async () => (analytics = json(await cli(["mcp", "analytics", "--server", "broken"]))).totalCalls >= 2);
    expect(analytics).toMatchObject({ totalCalls: 2, successCount: 0, failureCount: 2 });
    await cli(["mcp", "remove", "broken"]);
  });

  test("a cold start counts in the call's latency, with --param as with --json", async () => {
    // Each server sleeps a second before it starts; each is called once, cold.
    const slow = ["--", "/bin/sh", "-c", 'sleep 1; exec "$0" "$@"', NODE, FAKE_ERROR_SERVER];
    expect((await cli(["mcp", "add", "slow-param", ...slow])).code).toBe(0);
    expect((await cli(["mcp", "add", "slow-json", ...slow])).code).toBe(0);
    expect(json(await cli(["mcp", "slow-param", "echo", "--param", "s=a"])).content[0].text).toBe("a");
    expect(json(await cli(["mcp", "slow-json", "echo", "--json", '{"s":"a"}'])).content[0].text).toBe("a");
    for (const server of ["slow-param", "slow-json"]) {
      let analytics: any;
      await eventually(async () => (analytics = json(await cli(["mcp", "analytics", "--server", server]))).totalCalls >= 1);
      expect(analytics.totalCalls).toBe(1);
      expect(analytics.latency.p50).toBeGreaterThanOrEqual(1000);
    }
    await cli(["mcp", "remove", "slow-param"]);
    await cli(["mcp", "remove", "slow-json"]);
  });

  test("a server's own JSON-RPC error exits 3 with its message, -32000 and -32001 too: not an exit, not a timeout", async () => {
    expect((await cli(["mcp", "add", "erring", "--", NODE, FAKE_ERROR_SERVER])).code).toBe(0);
    for (const code of [-32603, -32000, -32001]) {
      const started = Date.now();
      const r = await cli(["mcp", "erring", "fail", "--param", `code=${code}`]);
      expect(r.code).toBe(3);
      expect(r.stderr).toContain(`MCP server "erring" failed: MCP error ${code}: database locked (code ${code})`);
      expect(r.stderr).not.toContain("exited");
      expect(Date.now() - started).toBeLessThan(10_000);
    }
    await cli(["mcp", "remove", "erring"]);
  });

  test("import copies a harness's servers, skipping Signet itself and names already installed", async () => {
    const project = join(s.home, "project");
    mkdirSync(project, { recursive: true });
    writeFileSync(
      join(s.home, ".claude.json"),
      JSON.stringify({
        mcpServers: {
          signet: { command: "signet-mcp" },
          everything: { command: NODE, args: [EVERYTHING, "stdio"] },
          fetcher: { type: "stdio", command: "uvx", args: ["mcp-server-fetch"], env: { LOG: "1" } },
        },
      }),
    );
    const dry = json(await cli(["mcp", "import", "--from", "claude-code", "--dry-run"], undefined, project));
    expect(dry.installed).toEqual(["fetcher"]);
    expect(json(await cli(["mcp", "list"])).servers.map((x: any) => x.name)).toEqual(["everything"]);
    const done = json(await cli(["mcp", "import", "--from", "claude-code"], undefined, project));
    expect(done.installed).toEqual(["fetcher"]);
    expect(done.skipped.map((x: any) => x.name).sort()).toEqual(["everything", "signet"]);
    expect(json(await cli(["mcp", "list"])).servers.map((x: any) => x.name)).toEqual(["everything", "fetcher"]);
    expect((await cli(["mcp", "import", "--from", "vim"])).code).toBe(2);
    await cli(["mcp", "remove", "fetcher"]);
    rmSync(join(s.home, ".claude.json"));
  });

  test("import --from opencode reads opencode.jsonc, comments and trailing commas included", async () => {
    const project = join(s.home, "oc-project");
    mkdirSync(project, { recursive: true });
    const config = join(s.home, ".config", "opencode", "opencode.jsonc");
    mkdirSync(join(s.home, ".config", "opencode"), { recursive: true });
    writeFileSync(
      config,
      `{
  // my servers
  "mcp": {
    "signet": { "type": "local", "command": ["signet-mcp"], "enabled": true },
    "fetcher": {
      "type": "local",
      "command": ["uvx", "mcp-server-fetch"], /* python */
      "environment": { "LOG": "1" },
    },
  },
}
`,
    );
    const dry = await cli(["mcp", "import", "--from", "opencode", "--dry-run"], undefined, project);
    expect(dry.code).toBe(0);
    expect(json(dry)).toMatchObject({
      sources: [config],
      installed: ["fetcher"],
      servers: [{ name: "fetcher", enabled: true, why: "enabled: from your own config" }],
      skipped: [{ name: "signet", reason: "Signet itself" }],
    });
    const done = json(await cli(["mcp", "import", "--from", "opencode"], undefined, project));
    expect(done.installed).toEqual(["fetcher"]);
    const listed = json(await cli(["mcp", "list"])).servers.find((x: any) => x.name === "fetcher");
    expect(listed.transport).toEqual({ type: "stdio", command: "uvx", args: ["mcp-server-fetch"], env: { LOG: "1" } });
    await cli(["mcp", "remove", "fetcher"]);
    rmSync(config);
  });

  test("add makes a relative command, --cwd and ./ ../ arguments absolute against the current directory", async () => {
    const dir = join(s.home, "here");
    mkdirSync(dir, { recursive: true });
    const withCwd = json(await cli(["mcp", "add", "rel-cwd", "--cwd", "sub", "--", "./bin/server", "./conf.json", "../up", "plain", "--x=./kept"], undefined, dir));
    expect(withCwd.transport).toEqual({
      type: "stdio",
      command: join(dir, "sub", "bin", "server"),
      args: [join(dir, "sub", "conf.json"), join(dir, "up"), "plain", "--x=./kept"],
      env: {},
      cwd: join(dir, "sub"),
    });
    const bare = json(await cli(["mcp", "add", "rel-bare", "--", "node", "./server.js", "."], undefined, dir));
    expect(bare.transport).toEqual({ type: "stdio", command: "node", args: [join(dir, "server.js"), dir], env: {} });
    const help = await cli(["mcp", "add", "--help"]);
    expect(help.stdout).toContain("--cwd");
    expect(help.stdout).toContain("Relative paths are made absolute");
    await cli(["mcp", "remove", "rel-cwd"]);
    await cli(["mcp", "remove", "rel-bare"]);
  });

  test("import: a repository's own servers come disabled whatever the repository says; the report says why", async () => {
    const project = join(s.home, "cloned-repo");
    mkdirSync(join(project, ".claude"), { recursive: true });
    writeFileSync(join(project, ".mcp.json"), JSON.stringify({ mcpServers: { "repo-tool": { command: "./tool.sh", args: ["."] } } }));
    // Shipped inside the repository: not the user's approval.
    writeFileSync(join(project, ".claude", "settings.local.json"), JSON.stringify({ enableAllProjectMcpServers: true, enabledMcpjsonServers: ["repo-tool"] }));
    const why = "disabled: project server not approved in your own config; enable with `signet mcp enable repo-tool`";

    const dry = await cli(["mcp", "import", "--from", "claude-code", "--dry-run", "--pretty"], undefined, project);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(`would install:\n  repo-tool  ${why}`);
    const done = json(await cli(["mcp", "import", "--from", "claude-code"], undefined, project));
    expect(done.installed).toEqual(["repo-tool"]);
    expect(done.servers).toEqual([{ name: "repo-tool", enabled: false, why }]);
    const listed = json(await cli(["mcp", "list"])).servers.find((x: any) => x.name === "repo-tool");
    expect(listed.enabled).toBe(false);
    expect(listed.transport).toEqual({ type: "stdio", command: join(project, "tool.sh"), args: [project], env: {} });
    await cli(["mcp", "remove", "repo-tool"]);

    // The user's own ~/.claude.json approving this project's servers is what enables them.
    writeFileSync(join(s.home, ".claude.json"), JSON.stringify({ projects: { [project]: { enabledMcpjsonServers: ["repo-tool"] } } }));
    const approved = json(await cli(["mcp", "import", "--from", "claude-code", "--dry-run"], undefined, project));
    expect(approved.servers).toEqual([
      { name: "repo-tool", enabled: true, why: `enabled: project server approved in your own config (${join(s.home, ".claude.json")})` },
    ]);
    rmSync(join(s.home, ".claude.json"));
  });
});

describe("signet mcp <server> <tool>", () => {
  test("list-tools and help pages come from the server's schemas", async () => {
    const tools = json(await cli(["mcp", "everything", "list-tools"]));
    expect(tools.tools.map((t: any) => t.name)).toEqual(expect.arrayContaining(["echo", "get-sum"]));
    const serverHelp = await cli(["mcp", "everything", "--help"]);
    expect(serverHelp.code).toBe(0);
    expect(serverHelp.stdout).toContain("reference server");
    expect(serverHelp.stdout).toContain("get-sum");
    // Without --help, off a terminal, the overview is JSON like every answer.
    const overview = json(await cli(["mcp", "everything"]));
    expect(overview.server.name).toBe("everything");
    expect(overview.tools.map((t: any) => t.name)).toContain("get-sum");
    const toolHelp = await cli(["mcp", "everything", "get-sum", "--help"]);
    expect(toolHelp.code).toBe(0);
    expect(toolHelp.stdout).toMatch(/a\b.*number.*required/);
    expect(toolHelp.stdout).toContain("First number");
  });

  test("parameters are typed from the schema; JSON output is the CallToolResult", async () => {
    const echoed = await cli(["mcp", "everything", "echo", "--param", "message=007"]);
    expect(echoed.code).toBe(0);
    expect(json(echoed)).toEqual({ content: [{ type: "text", text: "Echo: 007" }] });
    const sum = json(await cli(["mcp", "everything", "get-sum", "--param", "a=1.5", "--param", "b=2"]));
    expect(sum.content[0].text).toContain("3.5");
    const structured = json(await cli(["mcp", "everything", "get-structured-content", "--param", "location=Chicago"]));
    expect(structured.structuredContent).toHaveProperty("temperature");
    expect(json(await cli(["mcp", "everything", "echo", "--json", '{"message":"raw"}'])).content[0].text).toBe("Echo: raw");
    expect(json(await cli(["mcp", "everything", "echo", "--json", "-"], '{"message":"piped"}')).content[0].text).toBe("Echo: piped");
  });

  test("bad parameters are usage errors listing the valid ones; tool errors exit 1", async () => {
    const notNumber = await cli(["mcp", "everything", "get-sum", "--param", "a=x", "--param", "b=1"]);
    expect(notNumber.code).toBe(2);
    expect(notNumber.stderr).toContain('"a"');
    const missing = await cli(["mcp", "everything", "get-sum", "--param", "a=1"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('missing required parameter "b"');
    const unknown = await cli(["mcp", "everything", "echo", "--param", "msg=hi"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("message");
    const badEnum = await cli(["mcp", "everything", "get-structured-content", "--param", "location=Paris"]);
    expect(badEnum.code).toBe(2);
    expect(badEnum.stderr).toContain("Chicago");
    const noTool = await cli(["mcp", "everything", "nope"]);
    expect(noTool.code).toBe(2);
    expect(noTool.stderr).toContain("echo");
    const noServer = await cli(["mcp", "nowhere", "echo"]);
    expect(noServer.code).toBe(1);
    expect(noServer.stderr).toContain(`no MCP server named "nowhere" is installed`);
    expect((await cli(["mcp", "everything", "echo", "--bogus"])).code).toBe(2);
    const toolError = await cli(["mcp", "everything", "echo", "--json", "{}"]);
    expect(toolError.code).toBe(1);
    expect(json(toolError).isError).toBe(true);
  });

  test("--json arguments are passed as given, unchecked by the schema: the server judges them", async () => {
    // A text where the schema says number: sent as it is, and refused by the server itself.
    const unchecked = await cli(["mcp", "everything", "get-sum", "--json", '{"a":"notanumber","b":2}']);
    expect(unchecked.code).toBe(1);
    expect(json(unchecked).isError).toBe(true);
    expect(json(unchecked).content[0].text).toContain("expected number, received string");
    // Only an object is required, before anything is sent.
    const notObject = await cli(["mcp", "everything", "get-sum", "--json", "[1, 2]"]);
    expect(notObject.code).toBe(2);
    expect(notObject.stderr).toContain("arguments for tool get-sum must be a JSON object");
    expect((await cli(["mcp", "everything", "get-sum", "--json", "{nope"])).code).toBe(2);
    // A tool the server does not have is a usage error listing its tools, as with --param.
    const noTool = await cli(["mcp", "everything", "nope", "--json", "{}"]);
    expect(noTool.code).toBe(2);
    expect(noTool.stderr).toContain('server "everything" has no tool "nope"; its tools: echo');
    expect(noTool.stderr).toContain("signet mcp everything list-tools");
  });

  test("--batch - answers one JSON line per input line, in order", async () => {
    const input = [
      JSON.stringify({ tool: "echo", arguments: { message: "one" } }),
      "not json",
      JSON.stringify({ tool: "get-sum", arguments: { a: 1, b: 2 } }),
      JSON.stringify({ tool: "missing-tool", arguments: {} }),
    ].join("\n");
    const r = await cli(["mcp", "everything", "--batch", "-"], input);
    expect(r.code).toBe(1);
    const lines = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
    expect(lines).toHaveLength(4);
    expect(lines[0]).toEqual({ content: [{ type: "text", text: "Echo: one" }] });
    expect(lines[1].code).toBe("invalid_input");
    expect(lines[2].content[0].text).toContain("3");
    expect(lines[3].code).toBe("not_found");
  });

  test("--pretty prints text as text and saves images", async () => {
    const text = await cli(["mcp", "everything", "echo", "--param", "message=hello", "--pretty"]);
    expect(text.stdout.trim()).toBe("Echo: hello");
    const dir = join(s.home, "images");
    const image = await cli(["mcp", "everything", "get-tiny-image", "--pretty", "--save-dir", dir]);
    expect(image.code).toBe(0);
    const path = /(\/\S+\.png)/.exec(image.stdout)?.[1];
    expect(path).toBeDefined();
    expect(existsSync(path!)).toBe(true);
    expect(readFileSync(path!).subarray(1, 4).toString()).toBe("PNG");
  });

  test("--save-dir never writes through a symlink planted at a file's name", async () => {
    const dir = join(s.home, "planted");
    mkdirSync(dir);
    const outside = join(s.home, "outside.png");
    symlinkSync(outside, join(dir, "image-1.png"));
    const image = await cli(["mcp", "everything", "get-tiny-image", "--pretty", "--save-dir", dir]);
    expect(image.code).toBe(0);
    expect(existsSync(outside)).toBe(false);
    expect(image.stdout).toContain(`image saved: ${join(dir, "image-2.png")} `);
    expect(readFileSync(join(dir, "image-2.png")).subarray(1, 4).toString()).toBe("PNG");
  });

  test("every call leaves a row, and analytics counts them", async () => {
    // An agent of this test's own: rows of earlier tests still on their way cannot be counted as these.
    const mine = ["--server", "everything", "--agent-id", "counting-operator"];
    const before = json(await cli(["mcp", "analytics", ...mine]));
    await cli(["mcp", "everything", "echo", "--param", "message=counted", "--agent", "counting-operator"]);
    await cli(["mcp", "everything", "echo", "--json", "{}", "--agent", "counting-operator"]);
    let after: any;
    // Rows become visible within analytics.flushMs; poll rather than guess how busy the machine is.
    await eventually(async () => {
      after = json(await cli(["mcp", "analytics", ...mine]));
      return after.totalCalls - before.totalCalls >= 2;
    });
    expect(after.totalCalls - before.totalCalls).toBe(2);
    expect(after.failureCount - before.failureCount).toBe(1);
    expect(after.agents.map((a: any) => a.agentId)).toEqual(["counting-operator"]);
    const pretty = await cli(["mcp", "analytics", "--pretty"]);
    expect(pretty.code).toBe(0);
    expect(pretty.stdout).toContain("everything");
  });
});

describe("terminal output", () => {
  const HOSTILE = "clipboard \u001b]52;c;ZXZpbA==\u0007 clear \u001b[2J\u001b[H reversed \u202eevil\u202c end";
  const raw = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

  test("--pretty shows control characters in memories as escapes, never raw; JSON keeps the content exact", async () => {
    const added = json(await cli(["remember", HOSTILE, "--tags", "hostile"]));
    expect(json(await cli(["get", added.id])).content).toBe(HOSTILE);
    for (const args of [
      ["list", "--tags", "hostile", "--pretty"],
      ["get", added.id, "--pretty"],
      ["history", added.id, "--pretty"],
      ["recall", "clipboard reversed", "--pretty"],
    ]) {
      const r = await cli(args);
      expect(r.code).toBe(0);
      expect(r.stdout).not.toMatch(raw);
      expect(r.stdout).toContain("clipboard \\x1b]52;c;ZXZpbA==\\x07 clear \\x1b[2J\\x1b[H reversed \\u202eevil\\u202c end");
    }
  });

  test("--pretty shows control characters in a tool's result as escapes", async () => {
    const r = await cli(["mcp", "everything", "echo", "--param", `message=${HOSTILE}`, "--pretty"]);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(raw);
    expect(r.stdout).toContain("Echo: clipboard \\x1b]52;c;ZXZpbA==\\x07");
  });
});

describe("progress, waiting and tasks", () => {
  const LONG = ["mcp", "everything", "trigger-long-running-operation", "--param", "duration=2", "--param", "steps=4"];
  const CLEAR = "\r\u001b[2K";
  /** The binary under a pseudo-terminal (`script`), as run at a terminal: stdout and stderr are one screen, in `stdout`. */
  const onTerminal = (args: string[]) => {
    const command = [requireBinary(), ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(" ");
    return run(["-qfec", command, "/dev/null"], { env: s.env, bin: Bun.which("script") ?? "script", timeoutMs: 30_000 });
  };

  test("a long call shows its progress on a terminal's status line; in a pipe stdout holds only the result", async () => {
    // The two calls run side by side: each waits out the tool's two seconds.
    const [tty, piped] = await Promise.all([onTerminal(LONG), cli(LONG)]);
    expect(tty.code).toBe(0);
    const first = tty.stdout.indexOf("trigger-long-running-operation: 1/4 (25%)");
    expect(first).toBeGreaterThanOrEqual(0);
    expect(tty.stdout.indexOf("trigger-long-running-operation: 2/4 (50%)")).toBeGreaterThan(first);
    // The status line is wiped before the result is printed.
    const cleared = tty.stdout.lastIndexOf(CLEAR);
    expect(cleared).toBeGreaterThan(first);
    expect(tty.stdout.slice(cleared + CLEAR.length)).toContain("Long running operation completed. Duration: 2 seconds, Steps: 4.");

    expect(piped.code).toBe(0);
    expect(json(piped)).toEqual({ content: [{ type: "text", text: "Long running operation completed. Duration: 2 seconds, Steps: 4." }] });
    expect(piped.stderr).toBe("");
  }, 30_000);

  test("a server that never answers: a terminal hears that the CLI is waiting, then the reason it failed (exit 3)", async () => {
    expect((await cli(["mcp", "add", "silent", "--", NODE, "-e", "setInterval(() => {}, 1000)"])).code).toBe(0);
    const tty = await onTerminal(["mcp", "silent", "list-tools", "--timeout", "2500"]);
    expect(tty.code).toBe(3);
    const waiting = tty.stdout.indexOf("waiting for silent to start… (timeout 3s)");
    expect(waiting).toBeGreaterThanOrEqual(0);
    expect(tty.stdout.indexOf("did not answer the MCP handshake in time")).toBeGreaterThan(waiting);
    const piped = await cli(["mcp", "silent", "list-tools", "--timeout", "1500"]);
    expect(piped.code).toBe(3);
    expect(piped.stderr).toContain("did not answer the MCP handshake in time");
    expect(piped.stderr).not.toContain("waiting");
    await cli(["mcp", "remove", "silent"]);
  }, 30_000);

  test("a tool that requires a task runs as one, its status on the terminal; a failed task exits 1", async () => {
    const tty = await onTerminal(["mcp", "everything", "simulate-research-query", "--param", "topic=terminals"]);
    expect(tty.code).toBe(0);
    expect(tty.stdout).toContain("simulate-research-query: task working: Gathering sources...");
    expect(tty.stdout.slice(tty.stdout.lastIndexOf(CLEAR))).toContain("# Research Report: terminals");

    const fake = join(import.meta.dir, "../helpers/fake-task-server.mjs");
    expect((await cli(["mcp", "add", "tasks", "--", NODE, fake])).code).toBe(0);
    const failed = await cli(["mcp", "tasks", "job", "--param", "fail=disk full"]);
    expect(failed.code).toBe(1);
    expect(json(failed)).toEqual({ isError: true, content: [{ type: "text", text: "task t1 of job failed: disk full" }] });
    await cli(["mcp", "remove", "tasks"]);
  }, 30_000);
});

describe("the daemon owns the servers' processes", () => {
  const daemonPid = async () => json(await cli(["daemon", "status", "--json"])).pid as number;
  // A server that ignores its stdin closing: only a signal ends it.
  const STUBBORN = ["--", "/bin/sh", "-c", `"${NODE}" -e "process.stdin.on('end', () => {}); setInterval(() => {}, 1000)" & "${NODE}" "${EVERYTHING}" stdio`];

  test("stopping the daemon ends every server, wrappers' children included", async () => {
    expect((await cli(["mcp", "add", "stubborn", ...STUBBORN])).code).toBe(0);
    expect((await cli(["mcp", "stubborn", "echo", "--param", "message=x"])).code).toBe(0);
    expect((await cli(["mcp", "everything", "echo", "--param", "message=x"])).code).toBe(0);
    const children = descendants(await daemonPid());
    expect(children.length).toBeGreaterThanOrEqual(4);
    expect((await cli(["daemon", "stop"])).code).toBe(0);
    expect(await eventually(() => children.every((p) => !alive(p)))).toBe(true);
  });

  test("after kill -9 of the daemon, the next start ends the servers it left", async () => {
    expect((await cli(["daemon", "start"])).code).toBe(0);
    expect((await cli(["mcp", "stubborn", "echo", "--param", "message=x"])).code).toBe(0);
    const pid = await daemonPid();
    const children = descendants(pid);
    expect(children.length).toBeGreaterThanOrEqual(2);
    process.kill(pid, "SIGKILL");
    expect(await eventually(() => !alive(pid))).toBe(true);
    // The stubborn server outlived its daemon...
    await Bun.sleep(300);
    expect(children.some((p) => alive(p))).toBe(true);
    // ...until the next daemon starts.
    expect((await cli(["daemon", "start"])).code).toBe(0);
    expect(await eventually(() => children.every((p) => !alive(p)))).toBe(true);
  });
});
