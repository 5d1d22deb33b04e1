// The JSON-RPC loop the dependency-free stdio MCP servers of the bridge tests share: one message a
// line, initialize answered with `name`, tools/list with `list()`, tools/call with what `call`
// sends, any other request with "no method". Notifications are ignored; it exits when stdin closes.
import { createInterface } from "node:readline";

/** Writes one JSON-RPC message, a line. */
export const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);

/**
 * Serves stdin. `list()` is tools/list's answer (`{result}` or `{error}`); `call(id, name, args)`
 * answers a tools/call itself (with `send`, at once or later).
 */
export function serveStdio({ name, list, call }) {
  createInterface({ input: process.stdin }).on("line", (line) => {
    const { id, method, params } = JSON.parse(line);
    if (id === undefined) return;
    if (method === "initialize") {
      send({ id, result: { protocolVersion: params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name, version: "1" } } });
    } else if (method === "tools/list") {
      send({ id, ...list() });
    } else if (method === "tools/call") {
      call(id, params.name, params.arguments ?? {});
    } else {
      send({ id, error: { code: -32601, message: `no method ${method}` } });
    }
  });
}
