// A minimal stdio MCP server for bridge tests, with no dependencies: `text` answers with `bytes`
// characters (a large result on demand, written in pieces of `pieceBytes` when given, the way a
// slow server's output reaches the daemon: many small chunks), `cwd` with the directory it runs
// in. It exits when its stdin closes.
import { send, serveStdio } from "./fake-stdio-server.mjs";

const tools = [
  { name: "text", inputSchema: { type: "object", properties: { bytes: { type: "number" }, pieceBytes: { type: "number" } }, required: ["bytes"] } },
  { name: "cwd", inputSchema: { type: "object", properties: {} } },
];

async function sendInPieces(message, pieceBytes) {
  const line = Buffer.from(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
  for (let at = 0; at < line.length; at += pieceBytes) {
    await new Promise((done) => process.stdout.write(line.subarray(at, at + pieceBytes), done));
  }
}

serveStdio({
  name: "fake",
  list: () => ({ result: { tools } }),
  call: (id, name, args) => {
    const text = name === "cwd" ? process.cwd() : "x".repeat(args.bytes);
    const answer = { id, result: { content: [{ type: "text", text }] } };
    if (args.pieceBytes) void sendInPieces(answer, args.pieceBytes);
    else send(answer);
  },
});
