// A call of one of Signet's own tools whose arguments do not fit the tool's input schema is answered
// by the MCP SDK before the tool's handler runs: it is recorded all the same, once, as a failure with
// the SDK's error text, over signet-mcp as over /mcp (docs/mcp.md#invocation-recording).
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { join } from "node:path";
import { BIN, run, sandbox, startDaemonIn, type Sandbox } from "../helpers/binary";
import { eventually } from "../helpers/wait";

const YAML = "embedding:\n  provider: none\nanalytics:\n  flushMs: 100\n";

interface Row {
  tool: string;
  session_key: string | null;
  success: number;
  error_text: string | null;
}

function rowsOf(s: Sandbox, agent: string): Row[] {
  const db = new Database(join(s.dataDir, "memory", "memories.db"), { readonly: true });
  try {
    return db
      .query<Row, [string]>("SELECT tool, session_key, success, error_text FROM mcp_invocations WHERE agent_id = ? AND server = 'signet' AND source = 'mcp' ORDER BY id")
      .all(agent);
  } finally {
    db.close();
  }
}

const TRANSPORTS: [string, string, (s: Sandbox) => Transport][] = [
  [
    "signet-mcp",
    "args-stdio",
    (s) =>
      new StdioClientTransport({
        command: join(BIN, "..", "signet-mcp"),
        args: [],
        env: { ...s.env, SIGNET_AGENT_ID: "args-stdio", SIGNET_SESSION_KEY: "args-s1" },
        stderr: "pipe",
      }),
  ],
  [
    "/mcp",
    "args-http",
    (s) =>
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${s.port}/mcp`), {
        requestInit: { headers: { "x-signet-agent-id": "args-http", "x-signet-session-key": "args-s1" } },
      }),
  ],
];

describe("own tools' calls that fail their input schema", () => {
  let s: Sandbox;
  beforeAll(async () => {
    s = await sandbox(YAML);
    await startDaemonIn(s);
  });
  afterAll(async () => {
    await run(["daemon", "stop"], { env: s.env });
  });

  for (const [name, agent, transport] of TRANSPORTS) {
    test(`over ${name}: each is recorded once, failed, with the error it was answered`, async () => {
      const client = new Client({ name: "args-e2e", version: "1.0.0" });
      await client.connect(transport(s));
      try {
        const texts: string[] = [];
        for (const [tool, args] of [
          ["signet_code_clear", {}],
          ["memory_search", {}],
          ["memory_get", { id: "" }],
        ] as const) {
          const r = (await client.callTool({ name: tool, arguments: args })) as { isError?: boolean; content: { text: string }[] };
          expect(r.isError).toBe(true);
          texts.push(r.content[0]!.text);
        }
        expect(texts[0]).toContain("confirm");
        // A call that makes its request, last: once it is on record, the calls before it are too.
        expect(((await client.callTool({ name: "memory_list", arguments: {} })) as { isError?: boolean }).isError).toBeFalsy();
        expect(await eventually(() => rowsOf(s, agent).some((r) => r.tool === "memory_list"), 15_000)).toBe(true);
        expect(rowsOf(s, agent)).toEqual([
          { tool: "signet_code_clear", session_key: "args-s1", success: 0, error_text: texts[0]! },
          { tool: "memory_search", session_key: "args-s1", success: 0, error_text: texts[1]! },
          { tool: "memory_get", session_key: "args-s1", success: 0, error_text: texts[2]! },
          { tool: "memory_list", session_key: "args-s1", success: 1, error_text: null },
        ]);
      } finally {
        await client.close();
      }
    });
  }
});
