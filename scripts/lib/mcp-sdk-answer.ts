// What the MCP SDK's server, built by createMcpServer over the tool table, answers to one request:
// the reference the answers signet-mcp sends before the SDK has loaded are held to
// (src/mcp/initialize-answer.ts, src/mcp/tools-list-answer.ts), and what scripts/gen-mcp-tools-list.ts writes.
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { SignetClient } from "../../src/client/client";
import { createMcpServer } from "../../src/mcp/server";

/** The SDK server's answer to `request`, as a message (its stdio transport writes it as JSON and a newline). */
export async function sdkAnswer(request: Record<string, unknown>): Promise<JSONRPCMessage> {
  const server = createMcpServer(new SignetClient({ baseUrl: "http://127.0.0.1:9" }));
  const [client, serverSide] = InMemoryTransport.createLinkedPair();
  const answers: JSONRPCMessage[] = [];
  client.onmessage = (m) => answers.push(m);
  await server.connect(serverSide);
  await client.start();
  await client.send(request as JSONRPCMessage);
  for (let i = 0; i < 200 && answers.length === 0; i++) await Bun.sleep(5);
  await server.close();
  if (answers.length === 0) throw new Error(`the SDK's server did not answer ${JSON.stringify(request)}`);
  return answers[0]!;
}
