// The MCP Inspector's CLI (@modelcontextprotocol/inspector 1.0.3, pinned in devDependencies; later
// versions need Node >= 22.7, this one runs on Node 20) lists tools and calls one, over Streamable
// HTTP against /mcp and over stdio against the compiled dist/signet-mcp, both served by a daemon
// started in process. Run as `node .../inspector/cli/build/cli.js --cli ...` (the launcher spawns
// `node` itself); where there is no node, as `bun x --bun mcp-inspector --cli ...`.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { BIN } from "../helpers/binary";
import { startTestDaemon, tempDir, type TestDaemon } from "../helpers/daemon";

const ROOT = resolve(import.meta.dir, "../..");
const INSPECTOR = join(ROOT, "node_modules/@modelcontextprotocol/inspector/cli/build/cli.js");
const SIGNET_MCP = join(ROOT, "dist/signet-mcp");

let td: TestDaemon;
let sandbox: string;

beforeAll(async () => {
  if (!existsSync(INSPECTOR)) throw new Error(`${INSPECTOR} is missing: run \`npm install\` (it is a devDependency)`);
  if (!existsSync(BIN) || !existsSync(SIGNET_MCP)) {
    throw new Error(`${SIGNET_MCP} is missing: run \`bun scripts/build.ts\` (npm test does) before the e2e tests`);
  }
  td = await startTestDaemon();
  // HOME and SIGNET_PATH for the inspector and the stdio server: nothing touches the real ~/.agents.
  sandbox = tempDir("signet-inspector-");
  mkdirSync(join(sandbox, "home"));
});

afterAll(async () => {
  await td?.stop();
  if (sandbox) rmSync(sandbox, { recursive: true, force: true });
});

interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

async function inspector(args: string[]): Promise<RunResult> {
  const node = Bun.which("node");
  const command = node ? [node, INSPECTOR, "--cli", ...args] : [process.execPath, "x", "--bun", "mcp-inspector", "--cli", ...args];
  const proc = Bun.spawn(command, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: join(sandbox, "home"), NO_COLOR: "1" },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    timeout: 30_000,
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

function output(r: RunResult): any {
  if (r.code !== 0) throw new Error(`inspector exited ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  try {
    return JSON.parse(r.stdout);
  } catch {
    throw new Error(`expected JSON on stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  }
}

/** The memory a memory_store / memory_get result carries as its structured content. */
function memoryOf(result: any): any {
  expect(result.isError).toBeFalsy();
  return result.structuredContent;
}

describe("Inspector CLI over Streamable HTTP (/mcp)", () => {
  const http = () => [`${td.url}/mcp`, "--transport", "http"];

  test("lists the tools", async () => {
    const { tools } = output(await inspector([...http(), "--method", "tools/list"]));
    const names = tools.map((t: { name: string }) => t.name);
    expect(names).toContain("memory_store");
    expect(names).toContain("memory_get");
  });

  test("calls memory_store and memory_get as the agent named in a header", async () => {
    const as = ["--header", "x-signet-agent-id: inspector-http"];
    const stored = memoryOf(
      output(
        await inspector([
          ...http(),
          ...as,
          "--method",
          "tools/call",
          "--tool-name",
          "memory_store",
          "--tool-arg",
          "content=The inspector stored this over HTTP",
          "--tool-arg",
          "importance=0.7",
        ]),
      ),
    );
    expect(stored.agentId).toBe("inspector-http");
    expect(stored.importance).toBe(0.7);
    expect(stored.source).toBe("mcp-server");

    const got = memoryOf(output(await inspector([...http(), ...as, "--method", "tools/call", "--tool-name", "memory_get", "--tool-arg", `id=${stored.id}`])));
    expect(got.content).toBe("The inspector stored this over HTTP");

    // Another agent does not see it.
    const other = output(
      await inspector([...http(), "--header", "x-signet-agent-id: someone-else", "--method", "tools/call", "--tool-name", "memory_get", "--tool-arg", `id=${stored.id}`]),
    );
    expect(other.isError).toBe(true);
  });
});

describe("Inspector CLI over stdio (dist/signet-mcp)", () => {
  const stdio = () => [
    SIGNET_MCP,
    "-e",
    `SIGNET_DAEMON_URL=${td.url}`,
    "-e",
    `HOME=${join(sandbox, "home")}`,
    "-e",
    // The daemon's own data directory: signet-mcp checks that the daemon it reaches holds its instance key.
    `SIGNET_PATH=${td.dataDir}`,
    "-e",
    "SIGNET_AUTOSTART=false",
    "-e",
    "SIGNET_AGENT_ID=inspector-stdio",
    "-e",
    "SIGNET_SESSION_KEY=inspector-session",
  ];

  test("lists the tools", async () => {
    const { tools } = output(await inspector([...stdio(), "--method", "tools/list"]));
    const names = tools.map((t: { name: string }) => t.name);
    expect(names).toContain("memory_store");
    expect(names).toContain("memory_get");
  });

  test("calls memory_store, which reaches the in-process daemon", async () => {
    const stored = memoryOf(
      output(
        await inspector([...stdio(), "--method", "tools/call", "--tool-name", "memory_store", "--tool-arg", "content=The inspector stored this over stdio"]),
      ),
    );
    expect(stored.agentId).toBe("inspector-stdio");
    expect(stored.sessionKey).toBe("inspector-session");
    const viaApi = await td.client("inspector-stdio").memory.get(stored.id);
    expect(viaApi.content).toBe("The inspector stored this over stdio");
    expect(viaApi.source).toBe("mcp-server");
  });
});
