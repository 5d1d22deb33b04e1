// `signet doctor` starts a harness's registered MCP server as the harness would (the entry's command,
// arguments and environment, over stdio) and speaks to it with the MCP SDK's client: `initialize`,
// `tools/list`, and one call that only reads. A server that answers initialize but fails the call is
// what a harness shows as "Connected" while every tool call fails, so the call is the verdict.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { VERSION } from "../version";

/** A harmless call: it reads one memory's summary and changes nothing (no access is recorded for a list). */
export const PROBE_TOOL = "memory_list";
const PROBE_ARGUMENTS = { limit: 1 };
/** What the server wrote to stderr, kept for the report: its last lines explain a failed start. */
const STDERR_TAIL = 2000;

type McpStep = "initialize" | "tools/list" | "tools/call";

export type McpProbe = { ok: true; tools: number } | { ok: false; step: McpStep; message: string };

export interface McpProbeOptions {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** The whole probe's budget, from start to the call's answer. */
  timeoutMs: number;
}

function firstText(content: unknown): string {
  const first = Array.isArray(content) ? content[0] : undefined;
  return first && typeof first === "object" && "text" in first && typeof first.text === "string" ? first.text : "the tool answered isError";
}

export async function probeMcp(o: McpProbeOptions): Promise<McpProbe> {
  const transport = new StdioClientTransport({ command: o.command, args: o.args, env: o.env, cwd: o.cwd, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString("utf8")).slice(-STDERR_TAIL);
  });
  const client = new Client({ name: "signet-doctor", version: VERSION });
  const deadline = Date.now() + o.timeoutMs;
  const within = () => ({ timeout: Math.max(1, deadline - Date.now()) });
  let step: McpStep = "initialize";
  const failed = (message: string): McpProbe => {
    const said = stderr.trim().split("\n").slice(-3).join(" / ");
    return { ok: false, step, message: said && !message.includes(said) ? `${message} (its stderr: ${said})` : message };
  };
  try {
    await client.connect(transport, within());
    step = "tools/list";
    const { tools } = await client.listTools(undefined, within());
    if (!tools.some((t) => t.name === PROBE_TOOL)) return failed(`it lists ${tools.length} tools, but not ${PROBE_TOOL}: it is not Signet's MCP server`);
    step = "tools/call";
    const result = await client.callTool({ name: PROBE_TOOL, arguments: PROBE_ARGUMENTS }, undefined, within());
    if (result.isError) return failed(firstText(result.content));
    return { ok: true, tools: tools.length };
  } catch (err) {
    const message = (err as Error).message;
    return failed(/timed out/i.test(message) ? `no answer within ${Math.round(o.timeoutMs / 1000)} s` : message);
  } finally {
    // Ends stdin, then SIGTERM and SIGKILL if the server does not exit: signet-mcp exits on EOF.
    await client.close().catch(() => {});
  }
}
