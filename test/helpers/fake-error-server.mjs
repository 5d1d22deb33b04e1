// A minimal stdio MCP server for bridge tests whose tool `fail` answers a JSON-RPC error of its own:
// `{"error": {"code": <code>, "message": "database locked (code <code>)"}}`, at once, and goes on
// serving. `echo` answers its `s`. With `--fail-list <code>` its tools/list answers that error instead.
// It exits when its stdin closes.
import { send, serveStdio } from "./fake-stdio-server.mjs";

const tools = [
  { name: "fail", inputSchema: { type: "object", properties: { code: { type: "integer" } }, required: ["code"] } },
  { name: "echo", inputSchema: { type: "object", properties: { s: { type: "string" } } } },
];
const failList = process.argv.includes("--fail-list") ? Number(process.argv[process.argv.indexOf("--fail-list") + 1]) : undefined;
const failure = (code) => ({ code, message: `database locked (code ${code})` });

serveStdio({
  name: "fake-error",
  list: () => (failList === undefined ? { result: { tools } } : { error: failure(failList) }),
  call: (id, name, args) => {
    if (name === "fail") send({ id, error: failure(args.code) });
    else send({ id, result: { content: [{ type: "text", text: String(args.s) }] } });
  },
});
