// Document sources on both stores: the same cases through SourceService against the daemon's SQLite
// file and against a real PostgreSQL (a throwaway cluster), so the two SourceStores cannot drift:
// adding a directory, listing, keyword search, syncs after a change and a deletion, removal, and
// chunk vectors from a local stand-in embedding service (test/helpers/fake-embedder.ts). On
// PostgreSQL also what only a shared store has: a source added through one daemon is found through
// another, whose indexes follow the chunks' change feed, and two daemons adding or syncing one path
// at once write its files and chunks once.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { realpathSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SOURCES_API } from "../../src/contracts/sources";
import { OllamaEmbedder, OpenAiEmbedder } from "../../src/core/embed/http";
import type { Embedder } from "../../src/core/embed/types";
import { PostgresEmbeddingStore } from "../../src/core/embed/postgres-store";
import { SqliteEmbeddingStore } from "../../src/core/embed/sqlite-store";
import type { EmbeddingStore } from "../../src/core/embed/store";
import { EmbeddingWorker } from "../../src/core/embed/worker";
import { SourceFeed } from "../../src/core/sources/postgres-feed";
import { PostgresSourceStore } from "../../src/core/sources/postgres-store";
import { SourceService } from "../../src/core/sources/service";
import type { TakeOverTiming } from "../../src/core/cluster/take-over";
import { SqliteSourceStore } from "../../src/core/sources/sqlite-store";
import type { SourceStore } from "../../src/core/sources/store";
import { startFakeEmbedder, type FakeEmbedder } from "../helpers/fake-embedder";
import { startShapedEmbedder } from "../helpers/shaped-embedder";
import { recordingLogger } from "../helpers/log";
import { postgresDatabases } from "../helpers/postgres-databases";
import { migratedDatabase } from "../helpers/sqlite";
import { tempDir } from "../helpers/temp-cleanup";
import { eventually } from "../helpers/wait";

// Registered before the cluster's clean-up, so the daemons stop before their clients close.
const stops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});
const postgres = postgresDatabases();

let fake: FakeEmbedder;
beforeAll(() => {
  fake = startFakeEmbedder();
});
afterAll(() => fake.stop());

interface Stores {
  sources: SourceStore;
  embeddings: EmbeddingStore;
}

interface Daemon {
  sources: SourceService;
  worker: EmbeddingWorker | null;
  logged: string[];
  /** The paths of the results of `query`, best first. */
  paths(query: string, extra?: Record<string, unknown>): Promise<string[]>;
  stop(): Promise<void>;
}

/**
 * A daemon's sources, with chunk vectors when `embed`: from the fake embedding service, or from the
 * embedder `embed` makes (one text a batch, so a refusal is the refused text's alone).
 */
async function daemon(stores: Stores, embed: boolean | (() => Embedder) = false, takeOver?: TakeOverTiming): Promise<Daemon> {
  const { log, lines } = recordingLogger();
  const make = typeof embed === "function" ? embed : () => new OllamaEmbedder("fake-embed", fake.url, 256);
  const worker = embed ? new EmbeddingWorker(stores.embeddings, make().provider, async () => make(), { batchSize: 1, minBackoffMs: 50 }) : null;
  const sources = new SourceService(stores.sources, worker, log, takeOver);
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      await sources.stop();
      await worker?.stop();
    })());
  stops.push(stop);
  worker?.start();
  await sources.start();
  const paths = async (query: string, extra: Record<string, unknown> = {}) =>
    (await sources.search(SOURCES_API.search.body.parse({ query, ...extra }))).results.map((r) => r.path);
  return { sources, worker, logged: lines, paths, stop };
}

function sqliteStores(): Stores {
  const db = migratedDatabase();
  return { sources: new SqliteSourceStore(db), embeddings: new SqliteEmbeddingStore(db) };
}

let daemons = 0;
/** A daemon's stores on `sql`, each daemon with an id of its own (what its leases are held by). */
function postgresStores(sql: Bun.SQL): Stores {
  const dir = tempDir();
  const id = `d_${++daemons}`;
  return { sources: new PostgresSourceStore(sql, dir, id), embeddings: new PostgresEmbeddingStore(sql, dir, id) };
}

/** A directory of notes (its real path: sources keep paths with their links resolved). */
function notes(files: Record<string, string>): string {
  const dir = realpathSync(tempDir("signet-sources-"));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const NOTES = {
  "herons.md": "# Herons\n\nThe grey heron waits by the reeds at dawn, still as a post.\n",
  "otters.txt": "Otters swim upstream at noon and crack mussels on their bellies.\n",
  "kestrels.md": "# Kestrels\n\nA kestrel hovers over the verge, watching for voles.\n",
};

const STORES: { name: string; available: boolean; open(): Promise<Stores> }[] = [
  { name: "SQLite", available: true, open: async () => sqliteStores() },
  { name: "PostgreSQL", available: postgres.available, open: async () => postgresStores((await postgres.database({ max: 4 }))()) },
];

for (const kind of STORES) {
  describe.skipIf(!kind.available)(`sources on ${kind.name}`, () => {
    test("a directory is added, listed and searched; a sync re-chunks only what changed and drops what left; removal takes it all", async () => {
      const d = await daemon(await kind.open());
      const dir = notes(NOTES);
      const added = await d.sources.add({ path: dir });
      expect(added).toMatchObject({ created: true, scanned: 3, parsed: 3, unchanged: 0, removed: 0, chunks: 3, skipped: [] });
      expect((await d.sources.add({ path: dir })).created).toBe(false);
      const [listed] = await d.sources.list();
      expect(listed).toMatchObject({ id: added.source.id, path: dir, kind: "dir", files: 3, chunks: 3, embedded: 0 });

      expect(await d.paths("heron")).toEqual([join(dir, "herons.md")]);
      const found = await d.sources.search(SOURCES_API.search.body.parse({ query: "kestrel voles" }));
      expect(found.meta).toMatchObject({ method: "keyword", embedding: "disabled" });
      expect(found.results[0]).toMatchObject({ path: join(dir, "kestrels.md"), startLine: 1, heading: "Kestrels", matchedBy: "keyword" });
      // A path filter keeps the chunks of files whose path holds it.
      expect(await d.paths("upstream heron", { path: "otters", minScore: 0 })).toEqual([join(dir, "otters.txt")]);
      expect(await d.paths("heron", { path: "otters", minScore: 0 })).toEqual([]);

      writeFileSync(join(dir, "otters.txt"), "Otters slide down the muddy bank into the river all evening long.\n");
      const [changed] = (await d.sources.sync(undefined)).reports;
      expect(changed).toMatchObject({ scanned: 3, parsed: 1, unchanged: 2, removed: 0, chunks: 1 });
      expect(await d.paths("muddy bank")).toEqual([join(dir, "otters.txt")]);
      expect(await d.paths("mussels")).toEqual([]);

      rmSync(join(dir, "kestrels.md"));
      const [dropped] = (await d.sources.sync(added.source.id)).reports;
      expect(dropped).toMatchObject({ scanned: 2, parsed: 0, unchanged: 2, removed: 1 });
      expect(dropped!.source).toMatchObject({ files: 2, chunks: 2 });
      expect(await d.paths("kestrel")).toEqual([]);

      const removed = await d.sources.remove(added.source.id);
      expect(removed.removed).toMatchObject({ id: added.source.id, files: 2, chunks: 2 });
      expect(await d.sources.list()).toEqual([]);
      expect(await d.paths("heron")).toEqual([]);
      await expect(d.sources.remove(added.source.id)).rejects.toThrow("not found");
      // A removed source's id is never given again: a `source rm <id>` from an older listing cannot
      // remove a source added since.
      const again = await d.sources.add({ path: dir });
      expect(again.source.id).toBeGreaterThan(added.source.id);
      expect(d.logged).toEqual([]);
    });

    test("a query term of several tokens (snake_case) finds the chunk with all of its words first", async () => {
      const d = await daemon(await kind.open());
      const dir = notes({
        "style.md": "# Style\n\nPython function names use snake_case throughout the codebase.\n",
        "zoo.md": "# Zoo\n\nThe snake house has a case of lizards by the door.\n",
      });
      await d.sources.add({ path: dir });
      const found = await d.sources.search(SOURCES_API.search.body.parse({ query: "which snake_case names?", minScore: 0 }));
      expect(found.results[0]!.path).toBe(join(dir, "style.md"));
    });

    test("a NUL past the binary check is stored (PostgreSQL's text takes none) and the words it parts are found", async () => {
      const d = await daemon(await kind.open());
      const dir = notes({ "log.txt": `${"the survey team walked the creek at dawn\n".repeat(250)}a kiwi\0bird was heard\n` });
      expect((await d.sources.add({ path: dir })).skipped).toEqual([]);
      expect(await d.paths("kiwi")).toEqual([join(dir, "log.txt")]);
    });

    test("chunks get vectors in the background and search becomes hybrid; a chunk the provider refuses stays keyword-only", async () => {
      const d = await daemon(await kind.open(), true);
      const dir = notes({
        "pets.md": "# Pets\n\nThe cat sleeps on the warm windowsill all afternoon.\n",
        "garden.md": "# Garden\n\nTomatoes need sun and water every morning.\n",
        "poison.md": "# Weeds\n\nPoisonwood grows along the fence.\n",
      });
      fake.refuse = "Poisonwood";
      try {
        expect((await d.sources.add({ path: dir })).chunks).toBe(3);
        // The refusal is logged once the worker has dealt with it, which may come after the provider answered.
        const refusedLogged = () => d.logged.some((l) => l.includes("refused"));
        expect(await eventually(async () => (await d.sources.list())[0]!.embedded === 2 && fake.refusals > 0 && refusedLogged())).toBe(true);
      } finally {
        fake.refuse = undefined;
      }
      // "feline" shares "cat"'s slot in the fake model: only the vectors find it.
      const feline = await d.sources.search(SOURCES_API.search.body.parse({ query: "feline", minScore: 0 }));
      expect(feline.meta.embedding).toBe("ok");
      expect(feline.results[0]).toMatchObject({ path: join(dir, "pets.md"), matchedBy: "vector" });
      const both = await d.sources.search(SOURCES_API.search.body.parse({ query: "cat windowsill" }));
      expect(both.results[0]).toMatchObject({ path: join(dir, "pets.md"), matchedBy: "hybrid" });
      expect(await d.paths("poisonwood")).toEqual([join(dir, "poison.md")]);
      expect(d.logged.filter((l) => l.includes("refused"))).toHaveLength(1);
      expect((await d.sources.list())[0]!.embedded).toBe(2);
    });

    test("after embedding.dimensions changes, the chunks are embedded again at the new size and found by meaning", async () => {
      const stores = await kind.open();
      const shaped = startShapedEmbedder(64);
      stops.push(() => shaped.stop());
      const sized = (dimensions: number) => () => new OpenAiEmbedder("bag", shaped.url, dimensions, "sk-test");
      const dir = notes({ "pets.md": "# Pets\n\nThe cat sleeps on the warm windowsill all afternoon.\n", "garden.md": "# Garden\n\nTomatoes need sun and water every morning.\n" });
      const embeddedAt = (d: Daemon) => async () => (await d.sources.list())[0]?.embedded === 2;
      const first = await daemon(stores, sized(64));
      await first.sources.add({ path: dir });
      expect(await eventually(embeddedAt(first))).toBe(true);
      await first.stop();
      const sent = shaped.requests.length;
      const second = await daemon(stores, sized(48));
      // The 64-dimension vectors are not current: both chunks are sent again, asking for 48.
      expect(await eventually(async () => (await embeddedAt(second)()) && shaped.requests.length - sent >= 2)).toBe(true);
      const again = shaped.requests.slice(sent).filter((r) => r.texts.some((t) => t.includes("Tomatoes") || t.includes("windowsill")));
      expect(again.map((r) => r.dimensions)).toEqual([48, 48]);
      // "feline" shares "cat"'s slot in the fake model: only the vectors, all of the new size, find it.
      const feline = await second.sources.search(SOURCES_API.search.body.parse({ query: "feline", minScore: 0 }));
      expect(feline.meta.embedding).toBe("ok");
      expect(feline.results[0]).toMatchObject({ path: join(dir, "pets.md"), matchedBy: "vector" });
      expect(second.logged).toEqual([]);
    });
  });
}

describe.skipIf(!postgres.available)("sources shared by daemons on one PostgreSQL", () => {
  /** A daemon as one starts on a shared store: the feed's head, then the load, then the feed. */
  async function following(connect: () => Bun.SQL, embed = false, takeOver?: TakeOverTiming): Promise<Daemon> {
    const sql = connect();
    const head = await SourceFeed.head(sql);
    const d = await daemon(postgresStores(sql), embed, takeOver);
    const feed = new SourceFeed(sql, { onChange: (c) => d.sources.followStored(c), onError: (m) => d.logged.push(`error ${m}`) });
    stops.push(() => feed.stop());
    await feed.start(head);
    return d;
  }

  test("a source added through one daemon is found through another, whose keyword index and vectors follow the change feed", async () => {
    const connect = await postgres.database({ max: 4 });
    const one = await following(connect, true);
    const dir = notes(NOTES);
    await one.sources.add({ path: dir });
    // Loaded at its start: what was there before the other daemon came.
    const two = await following(connect, true);
    expect(await two.paths("heron")).toEqual([join(dir, "herons.md")]);
    // Followed: what changes after.
    writeFileSync(join(dir, "pets.md"), "# Pets\n\nThe cat sleeps on the warm windowsill all afternoon.\n");
    await one.sources.sync(undefined);
    expect(await eventually(async () => (await two.paths("windowsill")).length === 1, 5_000)).toBe(true);
    // The vectors the first daemon stores reach the other's index: "feline" is found by meaning alone.
    expect(await eventually(async () => (await one.sources.list())[0]!.embedded === 4, 10_000)).toBe(true);
    const feline = async () => (await two.sources.search(SOURCES_API.search.body.parse({ query: "feline", minScore: 0 }))).results[0];
    expect(await eventually(async () => (await feline())?.matchedBy === "vector", 5_000)).toBe(true);
    expect((await feline())!.path).toBe(join(dir, "pets.md"));
    rmSync(join(dir, "herons.md"));
    await one.sources.sync(undefined);
    expect(await eventually(async () => (await two.paths("heron")).length === 0, 5_000)).toBe(true);
    const [listed] = await two.sources.list();
    await one.sources.remove(listed!.id);
    expect(await eventually(async () => (await two.paths("otters kestrel windowsill")).length === 0, 5_000)).toBe(true);
    expect(await two.sources.list()).toEqual([]);
    expect([...one.logged, ...two.logged].filter((l) => l.startsWith("error"))).toEqual([]);
  });

  test("a sync through a daemon whose machine does not see the source keeps it, and says so", async () => {
    const connect = await postgres.database({ max: 4 });
    const one = await following(connect);
    const two = await following(connect);
    const dir = notes(NOTES);
    await one.sources.add({ path: dir });
    // The other machine has no such folder: here, moved away for the sync.
    renameSync(dir, `${dir}-elsewhere`);
    const [report] = (await two.sources.sync(undefined)).reports;
    renameSync(`${dir}-elsewhere`, dir);
    expect(report!.removed).toBe(0);
    expect(report!.skipped[0]!.reason).toContain("the source is kept as it is");
    expect(await two.paths("heron")).toEqual([join(dir, "herons.md")]);
    expect((await one.sources.list())[0]!.files).toBe(Object.keys(NOTES).length);
  });

  test("chunks a daemon wrote and died before embedding are embedded by a live one; one leased to a live daemon is left to it", async () => {
    const connect = await postgres.database({ max: 6 });
    const live = await following(connect, true, { everyMs: 100, afterMs: 300 });
    expect(await eventually(() => live.worker!.status().model !== null, 10_000)).toBe(true);
    // The dead daemon had no embedding provider running: its chunks were written without vectors.
    const dead = await following(connect);
    const dir = notes(NOTES);
    await dead.sources.add({ path: dir });
    const requests = fake.requests.length;
    expect(await eventually(async () => (await live.sources.list())[0]?.embedded === Object.keys(NOTES).length, 10_000)).toBe(true);
    // Each chunk once: three requests of one text (batch size 1).
    expect(fake.requests.slice(requests).flatMap((r) => r.texts)).toHaveLength(Object.keys(NOTES).length);
    // A chunk leased to another daemon whose lease holds is not this one's to take.
    const [one] = (await connect()`SELECT seq FROM source_chunks ORDER BY seq LIMIT 1`).map((r: { seq: number }) => r.seq);
    // The live daemon stops first: its take-over, every 100 ms, would otherwise lease the chunk again
    // between the two deletions below and the holder's lease.
    await live.sources.stop();
    // Its vector gone and the live daemon's lease on it over (a stored vector's holds for a few seconds more).
    await connect()`DELETE FROM source_vectors WHERE seq = ${one}`;
    await connect()`DELETE FROM work_leases WHERE kind = 'chunk' AND item = ${one}`;
    const holder = new PostgresSourceStore(connect(), tempDir(), "d_holder");
    const other = new PostgresSourceStore(connect(), tempDir(), "d_other");
    expect(await holder.lease([one], { model: "fake-embed", dimensions: 256 })).toEqual([one]);
    expect(await other.lease([one], { model: "fake-embed", dimensions: 256 })).toEqual([]);
  });

  test("two daemons adding one directory at once, then syncing it at once, write each file and chunk once", async () => {
    const connect = await postgres.database({ max: 4 });
    const [one, two] = [await following(connect), await following(connect)];
    const files: Record<string, string> = {};
    for (let i = 0; i < 150; i++) files[`note-${i}.md`] = `# Note ${i}\n\nThe heron number ${i} waits by the reeds at dawn.\n`;
    const dir = notes(files);
    const sql = connect();
    const counts = async () =>
      (await sql`SELECT (SELECT count(*)::int FROM sources) AS sources, (SELECT count(*)::int FROM source_files) AS files,
        (SELECT count(*)::int FROM source_chunks) AS chunks, (SELECT count(DISTINCT id)::int FROM source_chunks) AS ids`)[0];
    const adds = await Promise.all([one.sources.add({ path: dir }), two.sources.add({ path: dir })]);
    expect(adds.map((a) => a.created).sort()).toEqual([false, true]);
    expect(await counts()).toEqual({ sources: 1, files: 150, chunks: 150, ids: 150 });
    for (let i = 0; i < 150; i += 2) writeFileSync(join(dir, `note-${i}.md`), `# Note ${i}\n\nThe otter number ${i} swims upstream at noon.\n`);
    await Promise.all([one.sources.sync(undefined), two.sources.sync(undefined)]);
    expect(await counts()).toEqual({ sources: 1, files: 150, chunks: 150, ids: 150 });
    // Both daemons' indexes hold the chunks as they are now.
    for (const d of [one, two]) {
      expect(await eventually(async () => (await d.paths("otter", { path: "note-148.md", minScore: 0 })).length === 1, 5_000)).toBe(true);
      expect(await d.paths("heron", { path: "note-148.md", minScore: 0 })).toEqual([]);
      expect(await d.paths("heron", { path: "note-149.md", minScore: 0 })).toEqual([join(dir, "note-149.md")]);
    }
  });
});
