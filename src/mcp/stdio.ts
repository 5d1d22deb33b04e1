// `signet-mcp`: the MCP server over stdio. Only protocol messages go to stdout; logs go to stderr.
// On stdin EOF it finishes what is in flight, then exits.
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { SignetClient } from "../client/client";
import { loadConfig } from "../config/load";
import { createMcpServer } from "./server";

export async function runStdioServer(): Promise<number> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    process.stderr.write(`signet-mcp: ${(err as Error).message}\n`);
    return 2;
  }
  const client = new SignetClient({
    baseUrl: config.daemon.url,
    agentId: config.agent.id,
    token: config.auth.token,
    actor: "mcp-server",
    actorType: "harness",
    runtimePath: "plugin",
  });
  const server = createMcpServer(client);
  const transport = new StdioServerTransport();
  let inFlight = 0;
  let idle: (() => void) | undefined;
  await server.connect(transport);
  // Count requests between arrival and response so EOF can wait for the answers still owed.
  const deliver = transport.onmessage;
  transport.onmessage = (message: JSONRPCMessage) => {
    if ("id" in message && "method" in message) inFlight++;
    deliver?.(message);
  };
  const send = transport.send.bind(transport);
  transport.send = async (message: JSONRPCMessage) => {
    await send(message);
    if ("id" in message && !("method" in message) && --inFlight === 0) idle?.();
  };
  await new Promise<void>((resolve) => process.stdin.once("end", resolve));
  if (inFlight > 0) await new Promise<void>((resolve) => (idle = resolve));
  await server.close();
  return 0;
}
