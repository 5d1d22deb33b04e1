// What the daemon tells of an installed MCP server started with `secret:NAME` values (docs/api.md,
// docs/security.md#secrets): its failures (with the end of its stderr), its answers and its progress
// never carry those values, in any form the secret jobs' redaction catches; analytics and the log
// neither. A value no environment variable can hold is refused naming the secret, not quoting it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { resolveSecretRefs } from "../../src/core/bridge/secret-refs";
import { tempDir } from "../helpers/daemon";
import { NODE } from "../helpers/everything";
import { startLoggedDaemon, type LoggedDaemon } from "../helpers/secrets";

const KEY = "sk-bridge-secret-7f3a9c";
const SERVE = resolve(import.meta.dir, "../helpers/fake-stdio-server.mjs");

let root: string;
let d: LoggedDaemon;

beforeAll(async () => {
  root = tempDir("signet-bridge-redaction-");
  const dataDir = join(root, "data");
  mkdirSync(dataDir);
  d = await startLoggedDaemon(dataDir);
  expect((await d.api("PUT", "/api/secrets/API_KEY", { value: KEY })).status).toBeLessThan(300);
});

afterAll(async () => {
  await d.daemon.stop();
});

async function install(name: string, command: string, args: string[]): Promise<void> {
  const res = await d.api("POST", "/api/marketplace/servers", { name, transport: { type: "stdio", command, args, env: { API_KEY: "secret:API_KEY" } } });
  expect(res.status).toBe(201);
}

/** The error texts analytics recorded (the first 2,000 characters of each failure). */
function recordedErrors(): string[] {
  const rows = d.daemon.context.stores.sqlite!.query<{ error_text: string | null }, []>("SELECT error_text FROM mcp_invocations").all();
  return rows.map((r) => r.error_text ?? "");
}

describe("a server given secret:NAME", () => {
  test("that rejects its key on stderr at start: the failure names the server, its stderr shows [REDACTED] for the key and its encodings", async () => {
    const script = `echo "auth rejected for key $API_KEY ($(printf %s "$API_KEY" | base64))" >&2; exit 1`;
    await install("rejecting", "/bin/sh", ["-c", script]);
    const res = await d.api("POST", "/api/marketplace/servers/rejecting/call", { tool: "anything", arguments: {} });
    expect(res.status).toBe(503);
    expect(res.body.error).toContain('MCP server "rejecting" failed to start');
    expect(res.body.error).toContain("auth rejected for key [REDACTED] ([REDACTED]");
    expect(res.body.error).not.toContain(KEY);
    expect(res.body.error).not.toContain(Buffer.from(KEY).toString("base64").slice(0, 12));
  });

  test("that echoes its key in an answer and in progress: both come redacted", async () => {
    const server = join(root, "echoing.mjs");
    writeFileSync(
      server,
      `import { send, serveStdio } from ${JSON.stringify(SERVE)};
serveStdio({
  name: "echoing",
  list: () => ({ result: { tools: [{ name: "whoami", inputSchema: { type: "object" } }] } }),
  call: (id, _name, _args) => send({ id, result: { content: [{ type: "text", text: "using key " + process.env.API_KEY }], structuredContent: { key: process.env.API_KEY } } }),
});
`,
    );
    await install("echoing", NODE, [server]);
    const res = await d.api("POST", "/api/marketplace/servers/echoing/call", { tool: "whoami", arguments: {} });
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.body)).not.toContain(KEY);
    expect(JSON.stringify(res.body)).toContain("using key [REDACTED]");
  });

  test("nothing recorded or logged carries the key", async () => {
    const errors = recordedErrors();
    expect(errors.some((e) => e.includes("auth rejected for key [REDACTED]"))).toBe(true);
    expect(errors.filter((e) => e.includes(KEY))).toEqual([]);
    expect(d.lines.filter((l) => l.includes(KEY))).toEqual([]);
  });
});

test("a secret value holding a NUL is refused at start, naming the secret and not quoting the value", () => {
  const lookup = (name: string) => (name === "BINARY" ? "ab\0cd-secret-tail" : "plain");
  const secrets: string[] = [];
  expect(() => resolveSecretRefs({ K: "secret:BINARY" }, lookup, secrets)).toThrow("secret:BINARY holds a NUL character");
  try {
    resolveSecretRefs({ K: "secret:BINARY" }, lookup, secrets);
  } catch (err) {
    expect((err as Error).message).not.toContain("secret-tail");
  }
  expect(resolveSecretRefs({ A: "secret:PLAIN", B: "as is" }, lookup, secrets)).toEqual({ A: "plain", B: "as is" });
  expect(secrets).toEqual(["plain"]);
});
