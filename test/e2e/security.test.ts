// The compiled binary under the security model (docs/security.md): the CLI and signet-mcp refuse a
// port held by something that is not the owner's daemon and send it nothing; the daemon runs from
// a fixed directory; `signet mcp add` still works because the CLI reads the admin token itself.
import { afterAll, describe, expect, test } from "bun:test";
import { readlinkSync, realpathSync } from "node:fs";
import { json, run, sandbox } from "../helpers/binary";

const stops: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const stop of stops) await stop();
});

function squatter(port: number) {
  const seen: string[] = [];
  const server = Bun.serve({
    port,
    hostname: "127.0.0.1",
    async fetch(request) {
      seen.push(`${request.method} ${new URL(request.url).pathname} ${await request.text()}`);
      return Response.json({ status: "ok", version: "0.1.0", dataDir: "/home/other/.agents" });
    },
  });
  return { seen, stop: () => server.stop(true) };
}

describe("who answers on the port", () => {
  test("signet remember refuses a listener that cannot prove it is the owner's daemon, naming the port, and sends it nothing", async () => {
    const s = await sandbox("embedding:\n  provider: none\n");
    const fake = squatter(s.port);
    try {
      const r = await run(["remember", "my AWS key is AKIAEXAMPLE"], { env: s.env });
      expect(r.code).toBe(3);
      expect(r.stderr).toContain(`port ${s.port}`);
      expect(r.stderr).toContain(s.dataDir);
      expect(fake.seen.length).toBe(1);
      expect(fake.seen[0]).toStartWith("GET /health ");
      expect(fake.seen.join("")).not.toContain("AKIA");
    } finally {
      fake.stop();
    }
  });

  test("signet-mcp answers the tool call with the refusal and sends the squatter nothing", async () => {
    const s = await sandbox("embedding:\n  provider: none\n");
    const fake = squatter(s.port);
    try {
      const messages = [
        { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "t", version: "1" } } },
        { jsonrpc: "2.0", method: "notifications/initialized" },
        { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "memory_store", arguments: { content: "secret AKIAEXAMPLE" } } },
      ];
      const r = await run(["mcp", "serve"], { env: s.env, stdin: `${messages.map((m) => JSON.stringify(m)).join("\n")}\n` });
      const answers = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
      const call = answers.find((a) => a.id === 2);
      expect(call.result.isError).toBe(true);
      expect(call.result.content[0].text).toContain(`port ${s.port}`);
      expect(fake.seen.join("")).not.toContain("AKIA");
      expect(fake.seen.every((line) => line.startsWith("GET /health "))).toBe(true);
    } finally {
      fake.stop();
    }
  });
});

describe("the owner's own daemon", () => {
  test("runs from its data directory, whatever directory started it; signet mcp add and the CLI work with the admin token read by the CLI", async () => {
    const s = await sandbox("embedding:\n  provider: none\n");
    const repo = realpathSync(s.home.replace(/home$/, ""));
    const start = await run(["daemon", "start"], { env: s.env, cwd: repo });
    expect(start.code).toBe(0);
    stops.push(() => run(["daemon", "stop"], { env: s.env }));
    const status = json(await run(["daemon", "status", "--json"], { env: s.env }));
    expect(readlinkSync(`/proc/${status.pid}/cwd`)).toBe(realpathSync(s.dataDir));

    const add = await run(["mcp", "add", "sleeper", "--", "/bin/sh", "-c", "sleep 60"], { env: s.env });
    expect({ code: add.code, stderr: add.stderr }).toEqual({ code: 0, stderr: "" });
    expect(json(await run(["mcp", "list"], { env: s.env })).servers.map((x: { name: string }) => x.name)).toEqual(["sleeper"]);
    expect((await run(["mcp", "remove", "sleeper"], { env: s.env })).code).toBe(0);
    expect((await run(["remember", "still works"], { env: s.env })).code).toBe(0);
  });
});
