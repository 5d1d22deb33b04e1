// Document source jobs that wait their turn, and what the daemon's stop does to one under way
// (docs/api.md#sources): a removal waits behind a running add with the long wait adds have; two adds
// of one new path behind a running job answer 201 for the one that created it and 200 for the
// other, streamed or not; an add or sync cut short by a stop answers 503 and records nothing as
// synced that it did not read. Also: names that are not UTF-8 are reported as such, and a search
// limit over the legs' usual depth is answered in full.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ApiError, SignetClient } from "../../src/client/client";
import type { SourceStreamLine } from "../../src/contracts/sources";
import { startTestDaemon, tempDir, type TestDaemon } from "../helpers/daemon";
import { call } from "../helpers/memory-api";
import { eventually } from "../helpers/wait";

let td: TestDaemon;

beforeAll(async () => {
  td = await startTestDaemon();
});

afterAll(async () => {
  await td.stop();
});

/** A directory of `n` small Markdown files: an add of it takes many steps. */
function manyNotes(n: number, word: string): string {
  const dir = tempDir("signet-many-");
  for (let i = 0; i < n; i++) writeFileSync(join(dir, `note-${i}.md`), `# Note ${i}\n\nThe ${word} number ${i} forages at dusk.\n`);
  return dir;
}

/** A directory holding one Markdown file with `text`. */
function oneNote(text: string): string {
  const dir = tempDir("signet-one-");
  writeFileSync(join(dir, "note.md"), `${text}\n`);
  return dir;
}

const fileCount = (d: TestDaemon) => d.daemon.context.stores.sqlite!.query<{ n: number }, []>("SELECT count(*) AS n FROM source_files").get()!.n;

/** Starts an add of `dir` and returns it (as `done`) once it is under way: some of its files committed, far from all. */
async function addUnderWay(d: TestDaemon, dir: string): Promise<{ done: Promise<unknown> }> {
  const before = fileCount(d);
  const done = d.client().sources.add({ path: dir });
  done.catch(() => {});
  expect(await eventually(() => fileCount(d) > before, 10_000)).toBe(true);
  return { done };
}

/** An add through the route, streamed or not: its status and the add's `created`. */
async function postAdd(path: string, streamed: boolean): Promise<[number, boolean]> {
  const res = await td.fetch("/api/sources", {
    method: "POST",
    headers: { ...td.ownerHeaders, "content-type": "application/json", accept: streamed ? "application/x-ndjson" : "application/json" },
    body: JSON.stringify({ path }),
  });
  const text = await res.text();
  const last = JSON.parse(streamed ? text.trim().split("\n").at(-1)! : text);
  const result = streamed ? (last as Extract<SourceStreamLine, { result: unknown }>).result : last;
  return [res.status, result.created];
}

describe("jobs that wait their turn", () => {
  test("a removal waits behind a running add as long as an add may take, and is done", async () => {
    const small = await td.client().sources.add({ path: oneNote("The wombat sleeps in its burrow.") });
    const adding = await addUnderWay(td, manyNotes(8000, "antechinus"));
    // A client whose usual wait is far shorter than the add: the removal's own wait applies.
    const impatient = new SignetClient({ baseUrl: td.url, agentId: "default", actor: "test", actorType: "operator", dataDir: td.dataDir, timeoutMs: 100 });
    const { removed } = await impatient.sources.remove(String(small.source.id));
    expect(removed.id).toBe(small.source.id);
    expect((await td.client().sources.list()).sources.map((s) => s.id)).not.toContain(small.source.id);
    await adding.done;
  });

  test("two adds of one new path behind a running add: 201 for the one that created it, 200 for the other, streamed or not", async () => {
    const plain = oneNote("The echidna rolls into a ball.");
    const streamed = oneNote("The sugar glider glides between gum trees.");
    const adding = await addUnderWay(td, manyNotes(4000, "phascogale"));
    const answers = await Promise.all([postAdd(plain, false), postAdd(plain, false), postAdd(streamed, true), postAdd(streamed, true)]);
    const byStatus = (pair: [number, boolean][]) => [...pair].sort((a, b) => a[0] - b[0]);
    expect(byStatus(answers.slice(0, 2))).toEqual([
      [200, false],
      [201, true],
    ]);
    expect(byStatus(answers.slice(2))).toEqual([
      [200, false],
      [201, true],
    ]);
    await adding.done;
  });
});

describe("a stop during a job", () => {
  /** The SQLite file of `d`'s store, read after the daemon stopped. */
  const sourcesIn = (file: string) => {
    const db = new Database(file, { readonly: true });
    try {
      return db.query<{ id: number; synced_at: string }, []>("SELECT id, synced_at FROM sources ORDER BY id").all();
    } finally {
      db.close();
    }
  };

  test("a sync cut short answers 503, and no source it did not finish is recorded as synced", async () => {
    const d = await startTestDaemon();
    const file = d.daemon.context.stores.sqlite!.filename;
    const many = manyNotes(4000, "quokka");
    const one = oneNote("The bee visits the banksia.");
    try {
      await d.client().sources.add({ path: many });
      await d.client().sources.add({ path: one });
      const before = (await d.client().sources.list()).sources.map((s) => [s.id, s.syncedAt]);
      // Every file changed: the sync reads them all again, the small source last.
      for (let i = 0; i < 4000; i++) writeFileSync(join(many, `note-${i}.md`), `# Note ${i}\n\nThe quokka number ${i} changed its mind at noon.\n`);
      writeFileSync(join(one, "note.md"), "The bee changed its flower.\n");
      const db = d.daemon.context.stores.sqlite!;
      const changed = () => db.query<{ n: number }, []>("SELECT count(*) AS n FROM source_chunks WHERE instr(content, 'changed its mind') > 0").get()!.n;
      const syncing = call(d, "POST", "/api/sources/sync", { body: {}, headers: d.ownerHeaders });
      expect(await eventually(() => changed() > 0, 10_000)).toBe(true);
      await d.daemon.stop();
      const res = await syncing;
      expect([res.status, res.body.code]).toEqual([503, "unavailable"]);
      expect(res.body.error).toStartWith("the daemon is stopping; the sync did not finish");
      expect(sourcesIn(file).map((s) => [s.id, s.synced_at])).toEqual(before);
    } finally {
      rmSync(d.dataDir, { recursive: true, force: true });
    }
  });

  test("an add cut short answers 503; the source keeps the files it read, and a sync after a restart does the rest", async () => {
    const d = await startTestDaemon();
    const many = manyNotes(4000, "dunnart");
    let again: TestDaemon | undefined;
    try {
      const adding = await addUnderWay(d, many);
      await d.daemon.stop();
      const err = await adding.done.then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ApiError);
      expect([(err as ApiError).status, (err as ApiError).code]).toEqual([503, "unavailable"]);
      expect((err as ApiError).message).toStartWith("the daemon is stopping; the add did not finish");
      again = await startTestDaemon({ dataDir: d.dataDir });
      const [source] = (await again.client().sources.list()).sources;
      expect(source!.files).toBeGreaterThan(0);
      expect(source!.files).toBeLessThan(4000);
      const { reports } = await again.client().sources.sync({ id: source!.id });
      expect(reports[0]).toMatchObject({ removed: 0, parsed: 4000 - source!.files, source: { files: 4000 } });
    } finally {
      await again?.stop();
      rmSync(d.dataDir, { recursive: true, force: true });
    }
  });
});

describe("names that are not UTF-8", () => {
  test("a file or directory named so is reported with that reason; a valid name holding U+FFFD is taken", async () => {
    const dir = tempDir("signet-latin1-");
    const bytes = (...parts: (string | number[])[]) => Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p) : Buffer.from(p))));
    writeFileSync(bytes(`${dir}/caf`, [0xe9], ".md"), "The latinword file.\n");
    mkdirSync(bytes(`${dir}/r`, [0xe9], "sum", [0xe9], "s"));
    writeFileSync(bytes(`${dir}/r`, [0xe9], "sum", [0xe9], "s/in.md"), "The innerword file.\n");
    writeFileSync(join(dir, "odd\uFFFDname.md"), "The replacementword file.\n");
    const r = await td.client().sources.add({ path: dir });
    const reason = "its name is not valid UTF-8: rename it to have it indexed";
    expect(r.skipped).toEqual([
      { path: join(dir, "caf\uFFFD.md"), reason },
      { path: join(dir, "r\uFFFDsum\uFFFDs"), reason },
    ]);
    expect(r.parsed).toBe(1);
    expect((await td.client().sources.search({ query: "replacementword" })).results.map((c) => c.path)).toEqual([join(dir, "odd\uFFFDname.md")]);
    await td.client().sources.remove(String(r.source.id));
  });
});

describe("search limit", () => {
  test("a limit over 50 is answered in full when that many chunks match", async () => {
    const dir = tempDir("signet-limit-");
    for (let i = 0; i < 120; i++) writeFileSync(join(dir, `f${i}.md`), `The kiwifruit note ${i}.\n`);
    const r = await td.client().sources.add({ path: dir });
    const found = await td.client().sources.search({ query: "kiwifruit", limit: 100 });
    expect(found.results.length).toBe(100);
    const filtered = await td.client().sources.search({ query: "kiwifruit", limit: 100, path: dir });
    expect(filtered.results.length).toBe(100);
    await td.client().sources.remove(String(r.source.id));
  });
});
