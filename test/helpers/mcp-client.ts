// SDK clients over /mcp for the tool tests: each acts as one agent (and session, when given) and has
// listed the tools first, so the SDK checks every structured answer against its output schema.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

export class McpClients {
  private readonly clients: Client[] = [];

  constructor(
    private readonly url: () => string,
    private readonly name: string,
  ) {}

  async connect(agent: string, sessionKey?: string): Promise<Client> {
    const headers: Record<string, string> = { "x-signet-agent-id": agent };
    if (sessionKey) headers["x-signet-session-key"] = sessionKey;
    return this.open(headers);
  }

  /** A client acting with an API token (team mode): the token's role and agent decide what it may do. */
  withToken(token: string): Promise<Client> {
    return this.open({ authorization: `Bearer ${token}` });
  }

  private async open(headers: Record<string, string>): Promise<Client> {
    const client = new Client({ name: this.name, version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${this.url()}/mcp`), { requestInit: { headers } }));
    await client.listTools();
    this.clients.push(client);
    return client;
  }

  /** /mcp is stateless: closing sends nothing, so it may run before or after the daemon stops. */
  async closeAll(): Promise<void> {
    for (const c of this.clients.splice(0)) await c.close().catch(() => {});
  }
}

/** A tool's answer: its first text part, its structured content and whether it is an error. */
export async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<{ text: string; structured: any; isError: boolean }> {
  const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const first = r.content[0];
  return { text: first?.type === "text" ? first.text : "", structured: r.structuredContent as any, isError: r.isError === true };
}
