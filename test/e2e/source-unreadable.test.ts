// A directory the daemon cannot list (docs/api.md#sources): given to `signet source add` it is
// refused like an unreadable file (400, exit 2, nothing recorded); inside a source, or as the
// source itself, it is reported at the next sync and what was taken from it keeps its chunks, as an
// unreadable file keeps its own, rather than leaving because the walk did not see it. The compiled
// binary runs as an account that may not list the directory: this one when it is not root, nobody
// (setpriv) when it is, since root may list any directory.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, chownSync, copyFileSync, mkdirSync, readdirSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { BIN, json, requireBinary, run, sandbox, type RunResult, type Sandbox } from "../helpers/binary";
import { tempDir } from "../helpers/temp-cleanup";

const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;
const setpriv = Bun.which("setpriv");

let s: Sandbox;
let root: string;
let cli: (args: string[]) => Promise<RunResult>;

/** The binary where nobody may run it: the checkout may sit under a folder only its owner enters. */
function binaryForNobody(): string {
  const dir = tempDir("signet-nobody-bin-");
  chmodSync(dir, 0o755);
  const copy = join(dir, "signet");
  copyFileSync(requireBinary(), copy);
  chmodSync(copy, 0o755);
  return copy;
}

/** Everything under `dir`, `dir` included, owned by nobody: the daemon runs as nobody. */
function giveToNobody(dir: string): void {
  chownSync(dir, NOBODY, NOBODY);
  if (!statSync(dir).isDirectory()) return;
  for (const name of readdirSync(dir)) giveToNobody(join(dir, name));
}

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
  const env = { ...s.env, SIGNET_AUTOSTART: "0" };
  if (asRoot && setpriv) {
    giveToNobody(root);
    chmodSync(root, 0o755);
    const bin = binaryForNobody();
    cli = (args) => run([`--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", bin, ...args], { env, bin: setpriv, cwd: root, timeoutMs: 30_000 });
  } else {
    cli = (args) => run(args, { env, bin: BIN, cwd: root, timeoutMs: 30_000 });
  }
  expect((await cli(["daemon", "start"])).code).toBe(0);
});

afterAll(async () => {
  await cli(["daemon", "stop"]);
  for (const dir of ["locked", "notes/sub", "whole"]) chmodSync(join(root, dir), 0o755);
});

describe.skipIf(asRoot && !setpriv)("a directory the daemon cannot list", () => {
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
