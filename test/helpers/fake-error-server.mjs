// A minimal stdio MCP server for bridge tests whose tool `fail` answers a JSON-RPC error of its own:
// `{"error": {"code": <code>, "message": "database locked (code <code>)"}}`, at once, and goes on
// serving. `echo` answers its `s`. With `--fail-list <code>` its tools/list answers that error instead.
// It exits when its stdin closes.
import { createInterface } from "node:readline";

const tools = [
  { name: "fail", inputSchema: { type: "object", properties: { code: { type: "integer" } }, required: ["code"] } },
  { name: "echo", inputSchema: { type: "object", properties: { s: { type: "string" } } } },
];
const failList = process.argv.includes("--fail-list") ? Number(process.argv[process.argv.indexOf("--fail-list") + 1]) : undefined;
const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
const failure = (code) => ({ code, message: `database locked (code ${code})` });

createInterface({ input: process.stdin }).on("line", (line) => {
  const { id, method, params } = JSON.parse(line);
  if (id === undefined) return;
  if (method === "initialize") {
    send({ id, result: { protocolVersion: params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "fake-error", version: "1" } } });
  } else if (method === "tools/list") {
    send(failList === undefined ? { id, result: { tools } } : { id, error: failure(failList) });
  } else if (method === "tools/call") {
    const args = params.arguments ?? {};
    if (params.name === "fail") send({ id, error: failure(args.code) });
    else send({ id, result: { content: [{ type: "text", text: String(args.s) }] } });
  } else {
    send({ id, error: { code: -32601, message: `no method ${method}` } });
  }
});
