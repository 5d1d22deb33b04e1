// The builtin model is loaded at the first text there is to embed (core/embed/lazy.ts): a memory or
// a source chunk waiting for a vector, or a recall whose query has stored vectors to be compared
// with. Until then the daemon holds neither its weights nor its compute threads, and says so.
import { afterEach, describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SignetClient } from "../../src/client/client";
import { loadConfig } from "../../src/config/load";
import { startDaemon, type RunningDaemon } from "../../src/server/daemon";
import { startTestDaemon, tempDir, type TestDaemon } from "../helpers/daemon";
import { eventually } from "../helpers/wait";

const BUILTIN = "embedding:\n  provider: builtin\n";
const MODEL_WAIT_MS = 60_000;

let daemons: (TestDaemon | RunningDaemon)[] = [];
afterEach(async () => {
  for (const d of daemons.splice(0)) await d.stop();
});

async function builtinDaemon(): Promise<TestDaemon> {
  const td = await startTestDaemon({ yaml: BUILTIN });
  daemons.push(td);
  // The worker is up once it names its model: the stored vectors are read, nothing is loaded.
  expect(await eventually(async () => (await td.client().health()).embedding.model !== null)).toBe(true);
  return td;
}

describe("the builtin model loads when there is first something to embed", () => {
  test("a daemon that stores nothing, and recalls on its empty store, never loads it", async () => {
    const td = await builtinDaemon();
    expect((await td.client().health()).embedding).toEqual({ provider: "builtin", model: "use-lite-512", ok: true, loaded: false, pending: 0 });
    const r = await td.client().memory.recall({ query: "where does the cat sleep?" });
    // No vector to compare the query with: the leg answers empty without embedding it.
    expect(r.meta).toMatchObject({ method: "keyword", embedding: "ok" });
    expect(r.results).toEqual([]);
    const status = await td.client().embed.status();
    expect(status).toMatchObject({ ok: true, loaded: false, pending: 0, vectors: [] });
    expect(status.error).toBeUndefined();
  });

  test("the first memory loads it and is embedded; a recall then finds it by meaning", async () => {
    const td = await builtinDaemon();
    await td.client().memory.remember({ content: "The kitten is asleep on the sofa" });
    const embedded = async () => {
      const { embedding } = await td.client().health();
      return embedding.loaded && embedding.ok && embedding.pending === 0;
    };
    expect(await eventually(embedded, MODEL_WAIT_MS)).toBe(true);
    const r = await td.client().memory.recall({ query: "a young cat" });
    expect(r.meta).toMatchObject({ method: "vector", embedding: "ok" });
    expect(r.results[0]).toMatchObject({ content: "The kitten is asleep on the sofa", matchedBy: "vector" });
  }, 90_000);

  test("a document source's chunks load it too", async () => {
    const td = await builtinDaemon();
    const dir = tempDir("signet-lazy-source-");
    try {
      writeFileSync(join(dir, "notes.md"), "# Herons\n\nThe heron waits by the reeds at dawn.\n");
      expect((await td.client().sources.add({ path: dir })).chunks).toBe(1);
      const embedded = async () => (await td.client().sources.list()).sources[0]!.embedded === 1;
      expect(await eventually(embedded, MODEL_WAIT_MS)).toBe(true);
      expect((await td.client().embed.status()).loaded).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);

  test("restarted on a store with vectors, the daemon loads it at the first recall, which finds by meaning", async () => {
    const td = await builtinDaemon();
    await td.client().memory.remember({ content: "The kitten is asleep on the sofa" });
    await td.client().memory.remember({ content: "Quarterly tax filing is due in April" });
    expect(await eventually(async () => (await td.client().embed.status()).vectors[0]?.count === 2, MODEL_WAIT_MS)).toBe(true);
    await td.daemon.stop();
    const config = loadConfig({ env: { SIGNET_PATH: td.dataDir, HOME: td.dataDir } });
    const again = await startDaemon({ ...config, daemon: { ...config.daemon, port: 0 } });
    daemons = daemons.filter((d) => d !== td);
    daemons.push(again);
    const client = new SignetClient({ baseUrl: again.url });
    expect(await eventually(async () => (await client.health()).embedding.model !== null)).toBe(true);
    expect((await client.health()).embedding).toMatchObject({ ok: true, loaded: false, pending: 0 });
    // The first recall loads it (a load slower than the query's bound answers by keywords meanwhile).
    const byMeaning = async () => (await client.memory.recall({ query: "a young cat" })).results[0]?.matchedBy === "vector";
    expect(await eventually(byMeaning, MODEL_WAIT_MS)).toBe(true);
    expect((await client.health()).embedding).toMatchObject({ ok: true, loaded: true, pending: 0 });
    rmSync(td.dataDir, { recursive: true, force: true });
  }, 90_000);
});
