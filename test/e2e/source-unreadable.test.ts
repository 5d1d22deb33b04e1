// A directory the daemon cannot list (docs/api.md#sources): given to `signet source add` it is
// refused like an unreadable file (400, exit 2, nothing recorded); inside a source, or as the
// source itself, it is reported at the next sync and what was taken from it keeps its chunks, as an
// unreadable file keeps its own, rather than leaving because the walk did not see it. The compiled
// binary runs as an account that may not list the directory: this one when it is not root, nobody
// (setpriv) when it is, since root may list any directory.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { json, sandbox, canRunUnprivileged, unprivilegedCli, type RunResult, type Sandbox } from "../helpers/binary";

let s: Sandbox;
let root: string;
let cli: (args: string[]) => Promise<RunResult>;

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** Read again at the next sync: its mtime moves. */
function touch(path: string): void {
  const later = new Date(Date.now() + 60_000);
  utimesSync(path, later, later);
}

const hits = async (query: string) => json(await cli(["source", "search", query])).results.length;

beforeAll(async () => {
  s = await sandbox("embedding:\n  provider: none\n");
  root = dirname(s.dataDir);
  write(join(root, "locked", "x.md"), "The numbat eats termites.\n");
  write(join(root, "notes", "top.md"), "The quoll hunts at night.\n");
  write(join(root, "notes", "sub", "deep.md"), "The bilby digs spiral burrows.\n");
  write(join(root, "whole", "w.md"), "The bandicoot sniffs for grubs.\n");
  cli = unprivilegedCli(root, { ...s.env, SIGNET_AUTOSTART: "0" }, root);
  expect((await cli(["daemon", "start"])).code).toBe(0);
});

afterAll(async () => {
  await cli(["daemon", "stop"]);
  for (const dir of ["locked", "notes/sub", "whole"]) chmodSync(join(root, dir), 0o755);
});

describe.skipIf(!canRunUnprivileged)("a directory the daemon cannot list", () => {
  test("given to add, it is refused naming it, and nothing is recorded", async () => {
    const locked = join(root, "locked");
    chmodSync(locked, 0o000);
    const r = await cli(["source", "add", locked]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`path: cannot read ${locked} (EACCES)`);
    expect(json(await cli(["source", "list"])).sources).toEqual([]);
  }, 30_000);

  test("inside a source, it is reported at the next sync and its files keep their chunks", async () => {
    const notes = join(root, "notes");
    expect(json(await cli(["source", "add", notes])).parsed).toBe(2);
    touch(join(notes, "sub", "deep.md"));
    chmodSync(join(notes, "sub"), 0o000);
    const [report] = json(await cli(["source", "sync", notes])).reports;
    expect(report).toMatchObject({ removed: 0, skipped: [{ path: join(notes, "sub"), reason: "cannot read the directory (EACCES)" }], source: { files: 2 } });
    expect([await hits("bilby spiral"), await hits("quoll")]).toEqual([1, 1]);
    // Readable again: it is read as before.
    chmodSync(join(notes, "sub"), 0o755);
    const again = json(await cli(["source", "sync", notes])).reports[0];
    expect(again).toMatchObject({ removed: 0, skipped: [], source: { files: 2 } });
  }, 30_000);

  test("as the source itself, it is reported and every file keeps its chunks", async () => {
    const whole = join(root, "whole");
    expect(json(await cli(["source", "add", whole])).parsed).toBe(1);
    chmodSync(whole, 0o000);
    const [report] = json(await cli(["source", "sync", whole])).reports;
    expect(report).toMatchObject({ removed: 0, skipped: [{ path: whole, reason: "cannot read the directory (EACCES)" }], source: { files: 1 } });
    expect(await hits("bandicoot grubs")).toBe(1);
  }, 30_000);
});
