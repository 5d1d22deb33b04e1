// Re-embedding after a model change (docs/api.md#re-embedding), over real HTTP with real restarts of
// the daemon on one data directory. The embedding provider is the local fake (test/helpers/
// fake-embedder.ts): "other/256" is another model of the same size, whose vectors mean nothing next
// to "fake-embed"'s, so a query compared with the wrong model's vectors would find nothing by vector.
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { SignetClient } from "../../src/client/client";
import { loadConfig } from "../../src/config/load";
import { databasePath } from "../../src/config/paths";
import type { EmbedStatusResponse } from "../../src/contracts/embed";
import { startDaemon, type RunningDaemon } from "../../src/server/daemon";
import { startTestDaemon, tempDir } from "../helpers/daemon";
import { startFakeEmbedder } from "../helpers/fake-embedder";
import { eventually } from "../helpers/wait";

const fake = startFakeEmbedder();
const OLD = "fake-embed";
const NEW = "other/256";
const running: RunningDaemon[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const d of running.splice(0)) await d.stop();
  fake.delayMs = 0;
  fake.down = false;
});
afterAll(async () => {
  await fake.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function dataDir(): string {
  const dir = tempDir("signet-reindex-");
  dirs.push(dir);
  return dir;
}

/** A daemon on `dir` embedding with `model` from the fake provider, and a client acting as the owner's CLI. */
async function start(dir: string, model: string): Promise<{ daemon: RunningDaemon; client: SignetClient }> {
  writeFileSync(join(dir, "agent.yaml"), `embedding:\n  provider: openai\n  model: ${model}\n  baseUrl: ${fake.url}\n`);
  const config = loadConfig({ env: { SIGNET_PATH: dir, HOME: dir } });
  const daemon = await startDaemon({ ...config, daemon: { ...config.daemon, port: 0 } });
  running.push(daemon);
  return { daemon, client: new SignetClient({ baseUrl: daemon.url, agentId: "default", actor: "test", actorType: "operator", dataDir: dir }) };
}

async function stop(daemon: RunningDaemon): Promise<void> {
  await daemon.stop();
  running.splice(running.indexOf(daemon), 1);
}

async function waitFor(check: () => Promise<boolean> | boolean, ms = 20_000): Promise<void> {
  if (!(await eventually(check, ms))) throw new Error("condition not met in time");
}

const drained = (client: SignetClient) => async () => {
  const e = (await client.health()).embedding;
  return e.ok && e.pending === 0 && e.reindex?.state !== "running";
};

/** The contents of the memories with a stored vector of `model`, read from `dir`'s database while no daemon runs. */
function storedWith(dir: string, model: string): Set<string> {
  const db = new Database(databasePath(dir), { readonly: true });
  try {
    const rows = db.query<{ content: string }, [string]>("SELECT m.content FROM memory_vectors v JOIN memories m ON m.seq = v.seq WHERE v.model = ?").all(model);
    return new Set(rows.map((r) => r.content));
  } finally {
    db.close();
  }
}

/** Texts the fake embedded with `model` since request number `from`, queries included. */
const embeddedWith = (model: string, from = 0) => fake.requests.slice(from).filter((r) => r.model === model).flatMap((r) => r.texts);

/** Stores the filler memories and the one only a vector can find for "car". */
async function seed(client: SignetClient, filler: number): Promise<string> {
  for (let i = 0; i < filler; i++) await client.memory.remember({ content: `note ${i} about bananas and apples number ${i}` });
  return (await client.memory.remember({ content: "the automobile is parked outside" })).id;
}

describe("after a model change", () => {
  test("recall answers throughout, each vector compared only with a query of its own model; /health shows progress", async () => {
    const dir = dataDir();
    let { daemon, client } = await start(dir, OLD);
    const automobile = await seed(client, 40);
    await waitFor(drained(client));
    await stop(daemon);

    // The new model is slow, so the re-embedding is caught half done.
    fake.delayMs = 250;
    ({ daemon, client } = await start(dir, NEW));
    await waitFor(async () => {
      const r = (await client.health()).embedding.reindex;
      return r?.state === "running" && r.previousModel === OLD && r.done > 0;
    });
    const mark = fake.requests.length;
    const during = await client.memory.recall({ query: "car", minScore: 0 });
    const mid = (await client.health()).embedding.reindex!;
    expect(mid).toMatchObject({ state: "running", model: NEW, previousModel: OLD, total: 41 });
    expect(mid.done).toBeLessThan(41);
    // The automobile memory is found by vector alone: through the old model's vector (compared with
    // the query as the old model embeds it) or, once replaced, the new one's.
    expect(during.meta.embedding).toBe("ok");
    expect(during.results.find((r) => r.id === automobile)?.matchedBy).toBe("vector");
    // The query was embedded by both models.
    expect(embeddedWith(OLD, mark)).toEqual(["car"]);
    expect(embeddedWith(NEW, mark)).toContain("car");

    fake.delayMs = 0;
    await waitFor(drained(client));
    const h = await client.health();
    expect(h.embedding.reindex).toMatchObject({ state: "done", model: NEW, done: 41, total: 41 });
    expect(h.embedding.reindex?.previousModel).toBeUndefined();
    const after = fake.requests.length;
    const r = await client.memory.recall({ query: "automobile car", minScore: 0 });
    expect(r.results.find((x) => x.id === automobile)).toBeDefined();
    // Done: the old model is no longer asked.
    expect(embeddedWith(OLD, after)).toEqual([]);
    const status = await client.embed.status();
    expect(status.vectors).toEqual([{ model: NEW, dimensions: 256, count: 41 }]);
  }, 60_000);

  test("a restart in the middle resumes: nothing done is embedded again, the job and its count carry on", async () => {
    const dir = dataDir();
    let { daemon, client } = await start(dir, OLD);
    await seed(client, 63);
    await waitFor(drained(client));
    await stop(daemon);

    fake.delayMs = 200;
    const firstRun = fake.requests.length;
    ({ daemon, client } = await start(dir, NEW));
    await waitFor(async () => ((await client.health()).embedding.reindex?.done ?? 0) >= 16);
    const before = (await client.health()).embedding.reindex!;
    expect(before.state).toBe("running");
    await stop(daemon);
    // What the first run stored; the batch in flight at its stop was cancelled, nothing of it stored
    // (the fake records that batch's texts only once its delay is over, maybe during the second run).
    const storedBeforeRestart = storedWith(dir, NEW);
    expect(storedBeforeRestart.size).toBeGreaterThanOrEqual(16);
    expect(storedBeforeRestart.size).toBeLessThan(64);
    expect(embeddedWith(NEW, firstRun).length).toBeLessThan(64);

    fake.delayMs = 0;
    const secondRun = fake.requests.length;
    ({ daemon, client } = await start(dir, NEW));
    const resumed = (await client.health()).embedding.reindex;
    await waitFor(drained(client));
    const done = (await client.health()).embedding.reindex!;
    expect(done).toMatchObject({ state: "done", model: NEW, total: 64, done: 64, startedAt: before.startedAt });
    if (resumed) expect(resumed.startedAt).toBe(before.startedAt);
    // Only what the first run had not stored is embedded by the second.
    const second = embeddedWith(NEW, secondRun);
    expect(second.filter((t) => storedBeforeRestart.has(t))).toEqual([]);
    expect(new Set(second).size).toBe(64 - storedBeforeRestart.size);
  }, 60_000);
});

describe("POST /api/embed/reindex", () => {
  test("--all re-embeds vectors already of the current model; progress is followed to the end", async () => {
    const dir = dataDir();
    const { client } = await start(dir, OLD);
    await seed(client, 9);
    await waitFor(drained(client));
    const mark = fake.requests.length;
    const started = await client.embed.reindex({ all: true });
    expect(started.reindex).toMatchObject({ model: OLD });
    await waitFor(drained(client));
    expect((await client.health()).embedding.reindex).toMatchObject({ state: "done", done: 10, total: 10 });
    expect(embeddedWith(OLD, mark)).toHaveLength(10);
    // Nothing changed since: a plain reindex has nothing to do.
    const again = await client.embed.reindex({});
    expect(again.reindex).toMatchObject({ state: "done", total: 0, done: 0 });
  }, 30_000);

  test("needs the owner's admin token; forged callers are refused and nothing starts", async () => {
    const dir = dataDir();
    const { daemon, client } = await start(dir, OLD);
    await seed(client, 2);
    await waitFor(drained(client));
    const mark = fake.requests.length;
    const post = (headers: Record<string, string>) =>
      fetch(`${daemon.url}/api/embed/reindex`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: "{}" });
    const admin = daemon.context.credentials.adminToken;
    expect((await post({})).status).toBe(401);
    expect((await post({ authorization: "Bearer wrong" })).status).toBe(403);
    expect((await post({ authorization: `Bearer ${admin}`, origin: "http://evil.example" })).status).toBe(403);
    expect((await post({ authorization: `Bearer ${admin}`, host: "evil.example" })).status).toBe(403);
    expect((await post({ authorization: `Bearer ${admin}`, "sec-fetch-site": "cross-site" })).status).toBe(403);
    expect((await client.health()).embedding.reindex).toBeUndefined();
    expect(fake.requests.length).toBe(mark);
    // The status is a read, like /health's.
    expect((await fetch(`${daemon.url}/api/embed/status`)).status).toBe(200);
    expect((await post({ authorization: `Bearer ${admin}` })).status).toBe(202);
  }, 30_000);

  test("bad input is a 400 naming the field; provider none is a 400 saying why", async () => {
    const td = await startTestDaemon();
    try {
      const post = (body: string) =>
        td.fetch("/api/embed/reindex", { method: "POST", headers: { "content-type": "application/json", ...td.ownerHeaders }, body });
      for (const [body, field] of [
        ['{"all":"yes"}', "all"],
        ['{"bogus":1}', "bogus"],
        ["[1]", "object"],
        // JSON null is a body, not the absence of one (which the route takes as {}).
        ["null", "object"],
      ] as const) {
        const res = await post(body);
        expect(res.status).toBe(400);
        const err = (await res.json()) as { code: string; error: string };
        expect(err.code).toBe("invalid_input");
        expect(err.error).toContain(field);
      }
      for (const body of ["{}", ""]) {
        const none = await post(body);
        expect(none.status).toBe(400);
        expect(((await none.json()) as { error: string }).error).toContain("provider is none");
      }
      const s = (await (await td.fetch("/api/embed/status")).json()) as EmbedStatusResponse;
      expect(s).toMatchObject({ provider: "none", reindex: null, vectors: [] });
    } finally {
      await td.stop();
    }
  });
});

describe("signet embed", () => {
  const MAIN = resolve(import.meta.dir, "../../src/main.ts");
  const run = async (dir: string, url: string, args: string[]) => {
    const proc = Bun.spawn([process.execPath, MAIN, "embed", ...args], {
      env: { PATH: process.env.PATH ?? "", SIGNET_PATH: dir, HOME: dir, SIGNET_DAEMON_URL: url, SIGNET_AUTOSTART: "false" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    return { stdout, stderr, code };
  };

  test("reindex starts with the owner's token read by the CLI, follows to the end, prints JSON in a pipe; status too", async () => {
    const dir = dataDir();
    const { daemon, client } = await start(dir, OLD);
    await seed(client, 5);
    await waitFor(drained(client));
    fake.delayMs = 100;
    const r = await run(dir, daemon.url, ["reindex", "--all"]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as EmbedStatusResponse;
    expect(out.reindex).toMatchObject({ state: "done", done: 6, total: 6 });
    // Not a terminal: no progress bar drawn.
    expect(r.stderr).not.toContain("re-embedding [");
    const s = await run(dir, daemon.url, ["status"]);
    expect(s.code).toBe(0);
    expect(JSON.parse(s.stdout)).toMatchObject({ provider: "openai", model: OLD, vectors: [{ model: OLD, count: 6 }] });
    const started = await run(dir, daemon.url, ["reindex", "--no-wait"]);
    expect(started.code).toBe(0);
    expect(JSON.parse(started.stdout)).toMatchObject({ reindex: { model: OLD } });
    const bad = await run(dir, daemon.url, ["reindex", "--bogus"]);
    expect(bad.code).not.toBe(0);
  }, 60_000);
});
