// The HTTP floor for the daemon's benchmarks: a bare Bun.serve in its own process that does the least
// a write route must do (read and parse the JSON body, answer 201 with a small JSON) and answers
// GET /health with a small JSON. What the daemon costs above this is Signet's own work.
//
//   bun scripts/lib/floor-server.ts <port>
const port = Number(process.argv[2]);
if (!Number.isInteger(port) || port <= 0) {
  process.stderr.write("usage: bun scripts/lib/floor-server.ts <port>\n");
  process.exit(2);
}
let n = 0;
Bun.serve({
  hostname: "127.0.0.1",
  port,
  async fetch(request) {
    if (request.method === "GET") return Response.json({ status: "ok" });
    const body = (await request.json()) as { content?: unknown };
    return Response.json({ id: String(++n), deduped: false, length: String(body.content ?? "").length }, { status: 201 });
  },
});
process.stderr.write(`floor listening on ${port}\n`);
