// A stdio MCP server whose one tool, `hang`, never answers: it appends "called <id>" to the file its
// first argument names when called, and "cancelled <id>" when the client cancels (the bridge tests'
// evidence that a cancellation reached the server).
import { appendFileSync } from "node:fs";
import { createInterface } from "node:readline";

const marks = process.argv[2];
const send = (m) => process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", ...m })}\n`);
createInterface({ input: process.stdin }).on("line", (line) => {
  const { id, method, params } = JSON.parse(line);
  if (method === "notifications/cancelled") return appendFileSync(marks, `cancelled ${params.requestId}\n`);
  if (id === undefined) return;
  if (method === "initialize") {
    send({ id, result: { protocolVersion: params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "hanging", version: "1" } } });
  } else if (method === "tools/list") {
    send({ id, result: { tools: [{ name: "hang", inputSchema: { type: "object" } }] } });
  } else if (method === "tools/call") {
    appendFileSync(marks, `called ${id}\n`);
  } else {
    send({ id, error: { code: -32601, message: `no method ${method}` } });
  }
});
