// A relay on another port cannot pass the daemon's identity proof on (docs/security.md#clients-check-who-answers):
// the owner's daemon runs on port P, something forwards port Q to it, rewriting Host as any HTTP proxy
// does, and the CLI pointed at Q refuses before it sends the admin token. And /health tells where the
// daemon runs only to the owner.
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Socket } from "bun";
import { freePort, json, run, sandbox, type Sandbox } from "../helpers/binary";

let daemon: Sandbox | undefined;
afterAll(async () => {
  if (daemon) await run(["daemon", "stop"], { env: daemon.env });
});

async function ownerDaemon(): Promise<Sandbox> {
  if (daemon) return daemon;
  const s = await sandbox("embedding:\n  provider: none\n");
  // Stopped in afterAll even when a check below fails.
  daemon = s;
  expect((await run(["daemon", "start"], { env: s.env })).code).toBe(0);
  return s;
}

const ownerFile = (s: Sandbox, name: string) => readFileSync(join(s.dataDir, ".daemon", name), "utf8").trim();

/** Forwards 127.0.0.1:<port> to 127.0.0.1:<target>, rewriting Host to the target's; keeps every byte the client sent. */
async function relay(target: number) {
  const port = await freePort();
  const sent: Buffer[] = [];
  const upstreams = new Map<Socket<unknown>, Promise<Socket<unknown>>>();
  const listener = Bun.listen<unknown>({
    hostname: "127.0.0.1",
    port,
    socket: {
      open(client) {
        upstreams.set(
          client,
          Bun.connect({
            hostname: "127.0.0.1",
            port: target,
            socket: {
              data: (_up, data) => void client.write(data),
              close: () => void client.end(),
            },
          }),
        );
      },
      async data(client, data) {
        sent.push(Buffer.from(data));
        const rewritten = Buffer.from(data).toString("latin1").replace(`Host: 127.0.0.1:${port}`, `Host: 127.0.0.1:${target}`);
        (await upstreams.get(client)!).write(Buffer.from(rewritten, "latin1"));
      },
      async close(client) {
        (await upstreams.get(client))?.end();
        upstreams.delete(client);
      },
    },
  });
  return { port, sent: () => Buffer.concat(sent).toString("latin1"), stop: () => listener.stop(true) };
}

describe("a relay to the owner's daemon", () => {
  test("the CLI pointed at the relay's port refuses, naming it, and the relay never sees the admin token", async () => {
    const s = await ownerDaemon();
    const forward = await relay(s.port);
    try {
      // An explicit URL: a configured port alone would lose to the daemon's own record of where it runs.
      const r = await run(["token", "list"], { env: { ...s.env, SIGNET_DAEMON_URL: `http://127.0.0.1:${forward.port}` } });
      expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 3, stdout: "" });
      expect(r.stderr).toContain(`refusing to talk to http://127.0.0.1:${forward.port}`);
      expect(r.stderr).toContain(`port ${forward.port} is not your Signet daemon for ${s.dataDir}`);
      // The challenge went through the relay and was answered: the refusal is the proof's, not a lost connection.
      expect(forward.sent()).toContain("GET /health?challenge=");
      expect(forward.sent()).not.toContain(ownerFile(s, "admin.token"));
      expect(forward.sent()).not.toContain(ownerFile(s, "instance.key"));
    } finally {
      forward.stop();
    }
    // Called directly, the same daemon proves itself and the command works.
    expect(json(await run(["token", "list"], { env: s.env })).tokens).toEqual([]);
  });
});

describe("/health", () => {
  test("tells where the daemon runs (pid, port, data directory) only to the owner's credentials", async () => {
    const s = await ownerDaemon();
    const health = async (headers: Record<string, string>) => (await fetch(`http://127.0.0.1:${s.port}/health`, { headers })).json();
    const anyone = await health({});
    expect(anyone).toMatchObject({ status: "ok", db: { ok: true } });
    expect(["pid", "port", "dataDir"].filter((k) => k in anyone)).toEqual([]);
    const where = { port: s.port, dataDir: s.dataDir, pid: expect.any(Number) };
    expect(await health({ "x-signet-instance-key": ownerFile(s, "instance.key") })).toMatchObject(where);
    expect(await health({ authorization: `Bearer ${ownerFile(s, "admin.token")}` })).toMatchObject(where);
    const wrong = await health({ "x-signet-instance-key": "not-the-key" });
    expect(["pid", "port", "dataDir"].filter((k) => k in wrong)).toEqual([]);
  });
});
