// A stdio MCP server for bridge tests that gets things wrong in the ways a real one can. Its tools:
// `echo` answers its `s`; `whoami`'s description (and its answer) holds the API_KEY it was started
// with; `gone` is listed but answers -32601 (method not found); `invalid` answers a message that is
// not valid JSON-RPC (a result that is no object); `hang` never answers. `--init-ms N` answers the
// handshake N ms late (a slow start). No dependencies; it exits when its stdin closes.
import { createInterface } from "node:readline";

const arg = (name) => (process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : undefined);
const initMs = arg("--init-ms") ?? 0;
const key = process.env.API_KEY ?? "";
const empty = { type: "object", properties: {} };
const tools = [
  { name: "echo", inputSchema: { type: "object", properties: { s: { type: "string" } } } },
  { name: "whoami", description: `Calls the API as key ${key}`, inputSchema: empty },
  { name: "gone", inputSchema: empty },
  { name: "invalid", inputSchema: empty },
  { name: "hang", inputSchema: empty },
];
const write = (line) => process.stdout.write(`${line}\n`);
const send = (message) => write(JSON.stringify({ jsonrpc: "2.0", ...message }));

function call(id, name, args) {
  if (name === "echo") send({ id, result: { content: [{ type: "text", text: String(args.s) }] } });
  else if (name === "whoami") send({ id, result: { content: [{ type: "text", text: `key ${key}` }] } });
  else if (name === "gone") send({ id, error: { code: -32601, message: `no tool ${name} after all` } });
  else if (name === "invalid") write(JSON.stringify({ jsonrpc: "2.0", id, result: 42 }));
}

createInterface({ input: process.stdin }).on("line", (line) => {
  const { id, method, params } = JSON.parse(line);
  if (id === undefined) return;
  if (method === "initialize") {
    const answer = { id, result: { protocolVersion: params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "faulty", version: "1" } } };
    setTimeout(() => send(answer), initMs);
  } else if (method === "tools/list") {
    send({ id, result: { tools } });
  } else if (method === "tools/call") {
    call(id, params.name, params.arguments ?? {});
  } else {
    send({ id, error: { code: -32601, message: `no method ${method}` } });
  }
});
