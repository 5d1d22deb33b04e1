// How `signet source rm|sync` tell a source's id from its path (docs/cli.md#document-sources), run as
// a user would with the compiled binary: a number that is one source's id and another source's
// path (resolved from the current directory) is refused as ambiguous (exit 2), changing nothing;
// `./N` names the path, and a number no source has as its id but one has as its path names that one.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { json, run, sandbox, type Sandbox, startDaemonIn } from "../helpers/binary";

let s: Sandbox;
let notes: string;
let work: string;
const cli = (args: string[], cwd?: string) => run(args, { env: s.env, cwd });
const listed = async () => json(await cli(["source", "list"])).sources.map((x: { id: number; path: string }) => [x.id, x.path]);

beforeAll(async () => {
  s = await sandbox("embedding:\n  provider: none\n");
  await startDaemonIn(s);
  notes = join(s.home, "notes");
  work = join(s.home, "work");
  for (const [dir, text] of [
    [notes, "The marmot whistles."],
    [join(work, "1"), "The ibex climbs."],
    [join(work, "7"), "The chamois grazes."],
  ]) {
    mkdirSync(dir!, { recursive: true });
    writeFileSync(join(dir!, "a.md"), `${text}\n`);
  }
});

afterAll(async () => {
  await cli(["daemon", "stop"]);
});

describe("a source named by a number", () => {
  test("one source's id and another's path: refused as ambiguous, saying how to name each, and nothing changes", async () => {
    expect(json(await cli(["source", "add", notes])).source.id).toBe(1);
    expect(json(await cli(["source", "add", "1"], work)).source).toMatchObject({ id: 2, path: join(work, "1") });
    for (const verb of ["rm", "sync"]) {
      const r = await cli(["source", verb, "1"], work);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`1 is both the id of source 1 (${notes}) and the path of source 2 (${join(work, "1")}): write ./1 for the path, or name source 1 by its path`);
    }
    expect(await listed()).toEqual([
      [1, notes],
      [2, join(work, "1")],
    ]);
  });

  test("./N names the path; the number alone is the id where no source has it as its path", async () => {
    const rm = await cli(["source", "rm", "./1"], work);
    expect(rm.code).toBe(0);
    expect(json(rm).removed).toMatchObject({ id: 2, path: join(work, "1") });
    // Nothing at ./1 is a source any more: 1 is source 1's id.
    expect(json(await cli(["source", "sync", "1"], work)).reports[0].source.path).toBe(notes);
  });

  test("a number no source has as its id names the source at that path", async () => {
    expect(json(await cli(["source", "add", "7"], work)).source).toMatchObject({ id: 3, path: join(work, "7") });
    const sync = await cli(["source", "sync", "7"], work);
    expect(sync.code).toBe(0);
    expect(json(sync).reports[0].source).toMatchObject({ id: 3, path: join(work, "7") });
  });
});
