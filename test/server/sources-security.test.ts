// What document sources read (docs/api.md#sources, docs/security.md): never through a link planted
// by another account (a file source swapped for a link to the admin token, a directory raced while
// it syncs), links inside a source followed only to files inside it, byte limits on every file and
// .gitignore, and PDF extraction on a worker thread that is terminated past its memory, time and
// text limits. "Another account" is nobody (uid 65534) through setpriv; the PDF bomb is real.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, readFileSync, readdirSync, realpathSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { IngestReport, SkippedFile } from "../../src/contracts/sources";
import { NotADocument, PDF_LIMITS } from "../../src/core/sources/extract";
import { PdfExtractor } from "../../src/core/sources/pdf";
import { readWithin } from "../../src/core/sources/read";
import { startTestDaemon, tempDir, type TestDaemon } from "../helpers/daemon";
import { call } from "../helpers/memory-api";
import { pdfBomb } from "../helpers/pdf-bomb";
import { tinyPdf } from "../helpers/pdf";
import { eventually } from "../helpers/wait";

let td: TestDaemon;
let token: string;
let tokenPath: string;

beforeAll(async () => {
  td = await startTestDaemon();
  tokenPath = join(td.dataDir, ".daemon", "admin.token");
  token = readFileSync(tokenPath, "utf8").trim();
});

afterAll(async () => {
  await td.stop();
});

/** Runs `script` with /bin/sh as nobody (uid and gid 65534, no groups). */
function asNobody(script: string): Bun.Subprocess<"ignore", "pipe", "pipe"> {
  return Bun.spawn(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--", "/bin/sh", "-c", script], {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    cwd: "/",
  });
}

async function nobodyRuns(script: string): Promise<void> {
  const child = asNobody(script);
  const [code, err] = await Promise.all([child.exited, new Response(child.stderr).text()]);
  if (code !== 0) throw new Error(`as nobody, \`${script}\` failed (${code}): ${err}`);
}

/** A directory nobody may write in, reachable by nobody (the temp dir above it opened up). */
function sharedDir(): string {
  const base = tempDir("signet-shared-");
  chmodSync(base, 0o755);
  const shared = join(base, "shared");
  mkdirSync(shared);
  chmodSync(shared, 0o777);
  return shared;
}

/** Chunks anywhere in the store holding the admin token. */
function chunksWithToken(): number {
  return td.daemon.context.stores.sqlite!.query<{ n: number }, [string]>("SELECT count(*) AS n FROM source_chunks WHERE instr(content, ?) > 0").get(token)!.n;
}

/** Recall with sourceOnly, asked for the token: the rows that hold it. */
async function recallToken(): Promise<unknown[]> {
  const res = await call(td, "POST", "/api/memory/recall", { body: { query: token, sourceOnly: true, minScore: 0 } });
  expect(res.status).toBe(200);
  return res.body.results.filter((row: { content: string }) => row.content.includes(token));
}

const reasonOf = (r: { skipped: SkippedFile[] }, path: string) => r.skipped.find((s) => s.path === path)?.reason;

describe("links", () => {
  test("a file source that another account swaps for a link to the admin token is not read", async () => {
    const shared = sharedDir();
    const notes = join(shared, "notes.md");
    writeFileSync(notes, "# Notes\n\nThe bandicoot digs shallow holes.\n");
    const added = await td.client().sources.add({ path: notes });
    expect(added.parsed).toBe(1);

    await nobodyRuns(`rm -f ${notes} && ln -s ${tokenPath} ${notes}`);
    const { reports } = await td.client().sources.sync({ id: added.source.id });
    expect(chunksWithToken()).toBe(0);
    expect(await recallToken()).toEqual([]);
    expect(reports[0]!.skipped).toEqual([{ path: notes, reason: `${notes} is now a symbolic link (links are resolved once, when a source is added)` }]);
    expect(reports[0]!.source.files).toBe(0);
    await td.client().sources.remove(String(added.source.id));
  });

  test("in a directory: a link to a file inside is taken under its own path; links out, to nothing, in loops and to directories are skipped and reported", async () => {
    const root = tempDir("signet-links-");
    mkdirSync(join(root, "docs"));
    writeFileSync(join(root, "docs", "kiwi.md"), "# Kiwi\n\nThe kiwi forages for grubs at night.\n");
    symlinkSync("docs/kiwi.md", join(root, "alias.md"));
    symlinkSync(tokenPath, join(root, "token.md"));
    symlinkSync(join(root, "nowhere.md"), join(root, "dangling.md"));
    symlinkSync("loop-b.md", join(root, "loop-a.md"));
    symlinkSync("loop-a.md", join(root, "loop-b.md"));
    symlinkSync("docs", join(root, "docs-link"));
    symlinkSync("/etc", join(root, "etc-link"));

    const r = await td.client().sources.add({ path: root });
    expect(r.parsed).toBe(2);
    expect(reasonOf(r, join(root, "token.md"))).toBe(`a symbolic link to ${tokenPath}, outside the source (not followed)`);
    expect(reasonOf(r, join(root, "dangling.md"))).toBe("a symbolic link to nothing (its target does not exist)");
    expect(reasonOf(r, join(root, "loop-a.md"))).toBe("a symbolic link loop");
    expect(reasonOf(r, join(root, "docs-link"))).toBe("a symbolic link to a directory (links to directories are not followed)");
    expect(reasonOf(r, join(root, "etc-link"))).toBe("a symbolic link to /etc, outside the source (not followed)");
    const hits = await td.client().sources.search({ query: "kiwi grubs" });
    expect(hits.results.map((h) => h.path).sort()).toEqual([join(root, "alias.md"), join(root, "docs", "kiwi.md")]);
    expect(chunksWithToken()).toBe(0);

    // A link inside that later points outside: its chunks leave, and it is reported.
    rmSync(join(root, "alias.md"));
    symlinkSync(tokenPath, join(root, "alias.md"));
    const again = (await td.client().sources.sync({ id: r.source.id })).reports[0]!;
    expect(reasonOf(again, join(root, "alias.md"))).toBe(`a symbolic link to ${tokenPath}, outside the source (not followed)`);
    expect(again.removed).toBe(1);
    expect(chunksWithToken()).toBe(0);
    await td.client().sources.remove(String(r.source.id));
  });

  test("another account swapping a file for a link while syncs run never gets the token read", async () => {
    const shared = sharedDir();
    // Files before the victim in name order, touched before each sync so each sync reads them:
    // the time between the walk seeing the victim and reading it.
    for (let i = 0; i < 200; i++) writeFileSync(join(shared, `a${String(i).padStart(3, "0")}.md`), `# Page ${i}\n\nThe potoroo ${i} hops.\n`);
    const victim = join(shared, "victim.md");
    writeFileSync(victim, "# Victim\n\nA plain note.\n");
    chmodSync(victim, 0o666);
    const added = await td.client().sources.add({ path: shared });
    expect(added.parsed).toBe(201);

    // Renames are atomic: the victim is always either a regular file or a link to the token.
    const swapper = asNobody(
      `cd ${shared} && while :; do ln -sf ${tokenPath} .link.tmp && mv -f .link.tmp victim.md; printf '# Victim\\n\\nA plain note.\\n' > .file.tmp && mv -f .file.tmp victim.md; done`,
    );
    const reports: IngestReport[] = [];
    try {
      for (let i = 0; i < 40; i++) {
        const later = new Date(Date.now() + (i + 1) * 1000);
        for (let f = 0; f < 200; f++) utimesSync(join(shared, `a${String(f).padStart(3, "0")}.md`), later, later);
        reports.push((await td.client().sources.sync({ id: added.source.id })).reports[0]!);
        expect(chunksWithToken()).toBe(0);
      }
    } finally {
      swapper.kill("SIGKILL");
      await swapper.exited;
    }
    expect(await recallToken()).toEqual([]);
    // The race was run: some syncs found the victim a link to the token, and said so.
    const reasons = reports.map((r) => reasonOf(r, victim)).filter((x) => x !== undefined);
    expect(reasons).toContain(`a symbolic link to ${tokenPath}, outside the source (not followed)`);
    await td.client().sources.remove(String(added.source.id));
  });

  test("a file source added through a link is kept under its target; a link appearing on its way later is refused", async () => {
    const base = tempDir("signet-resolve-");
    mkdirSync(join(base, "real"));
    const real = join(base, "real", "wallaby.md");
    writeFileSync(real, "# Wallaby\n\nWallabies graze at dusk.\n");
    symlinkSync(real, join(base, "link.md"));
    const added = await td.client().sources.add({ path: join(base, "link.md") });
    expect(added.source).toMatchObject({ path: realpathSync(real), kind: "file", files: 1 });

    // The directory on the file's way becomes a link to another directory holding a file of that name.
    mkdirSync(join(base, "elsewhere"));
    writeFileSync(join(base, "elsewhere", "wallaby.md"), "# Impostor\n");
    renameSync(join(base, "real"), join(base, "moved"));
    symlinkSync(join(base, "elsewhere"), join(base, "real"));
    const r = (await td.client().sources.sync({ id: added.source.id })).reports[0]!;
    expect(r.skipped).toEqual([{ path: real, reason: `${real} now leads to ${join(base, "elsewhere", "wallaby.md")} (a directory on its way became a symbolic link)` }]);
    expect((await td.client().sources.search({ query: "impostor" })).results).toEqual([]);
    await td.client().sources.remove(String(added.source.id));
  });
});

describe("reading what the walk saw", () => {
  test("a file reached through a directory swapped for a link is refused, though it is the file lstat saw", () => {
    const base = tempDir("signet-swapped-dir-");
    const root = join(base, "root");
    mkdirSync(join(base, "outside"));
    writeFileSync(join(base, "outside", "secret.md"), "outside the source");
    mkdirSync(root);
    // The walk listed root/sub/secret.md through a link that appeared on its way: what it saw is
    // the outside file, and opening the same path reaches that same file.
    symlinkSync(join(base, "outside"), join(root, "sub"));
    const path = join(root, "sub", "secret.md");
    expect(() => readWithin(path, root, 1024, statSync(path))).toThrow(new NotADocument("reached through a symbolic link to outside the source"));
  });

  test("a file swapped for a named pipe after the walk is refused without blocking", async () => {
    const dir = tempDir("signet-fifo-swap-");
    const path = join(dir, "notes.md");
    writeFileSync(path, "# Notes\n");
    const seen = statSync(path);
    rmSync(path);
    expect(Bun.spawnSync(["mkfifo", path]).exitCode).toBe(0);
    // In a process of its own, bounded: a read that blocked would hold this test's thread.
    const script = `import { readWithin } from ${JSON.stringify(join(import.meta.dir, "../../src/core/sources/read.ts"))};
      try { readWithin(${JSON.stringify(path)}, ${JSON.stringify(dir)}, 1024, { dev: ${seen.dev}, ino: ${seen.ino} }); } catch (err) { console.log(err.message); }`;
    const child = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe", timeout: 10_000 });
    const [out, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
    expect({ out: out.trim(), code }).toEqual({ out: "a named pipe, not a regular file", code: 0 });
  });
});

describe("limits", () => {
  test("a text file over 5 MiB and a .gitignore over 256 KiB are skipped and reported, and what they held leaves", async () => {
    const root = tempDir("signet-limits-");
    mkdirSync(join(root, "sub"));
    writeFileSync(join(root, "big.txt"), "# Big\n\nThe dunnart is small.\n");
    writeFileSync(join(root, "sub", "inner.md"), "# Inner\n\nThe bilby burrows.\n");
    const r = await td.client().sources.add({ path: root });
    expect(r.parsed).toBe(2);

    writeFileSync(join(root, "big.txt"), `${"dunnart ".repeat(10)}\n`.repeat(70_000));
    writeFileSync(join(root, "sub", ".gitignore"), "# nothing\n".repeat(30_000));
    const s = (await td.client().sources.sync({ id: r.source.id })).reports[0]!;
    expect(reasonOf(s, join(root, "big.txt"))).toBe("larger than 5 MiB");
    expect(reasonOf(s, join(root, "sub", ".gitignore"))).toBe("larger than 256 KiB: its directory is skipped");
    expect(s.removed).toBe(2);
    expect((await td.client().sources.search({ query: "dunnart bilby" })).results).toEqual([]);
    await td.client().sources.remove(String(r.source.id));
  });
});

/** Threads named "Worker" in this process (Bun's worker threads), the daemon's included. */
function workerThreads(): number {
  return readdirSync("/proc/self/task").filter((t) => {
    try {
      return readFileSync(`/proc/self/task/${t}/comm`, "utf8").trim() === "Worker";
    } catch {
      return false; // the thread ended meanwhile
    }
  }).length;
}

describe("PDF extraction off the daemon's thread", () => {
  const normal = tinyPdf([["Platypus papers describe the electroreceptors of the bill"]]);
  const bomb = pdfBomb(1024 * 1024 * 1024);

  test("the bomb is a real one: a 1 MiB file whose stream inflates past 64 MiB", async () => {
    expect(bomb.length).toBeLessThan(1.1 * 1024 * 1024);
    const { inflateSync } = await import("node:zlib");
    const body = Buffer.from(bomb);
    const stream = body.subarray(body.indexOf("stream\n") + 7, body.lastIndexOf("\nendstream"));
    expect(() => inflateSync(stream, { maxOutputLength: 64 * 1024 * 1024 })).toThrow(/larger than/);
  });

  test("past the memory limit the worker is terminated and the PDF refused; the next PDF gets a new worker", async () => {
    const before = workerThreads();
    const pdf = new PdfExtractor(PDF_LIMITS);
    try {
      expect(await pdf.extract(bomb)).toEqual({
        problem: "extracting its text took more than 512 MiB of memory (streams that inflate far beyond the file?)",
      });
      expect(await eventually(() => workerThreads() === before)).toBe(true);
      expect(await pdf.extract(normal)).toEqual({ pages: ["Platypus papers describe the electroreceptors of the bill"] });
    } finally {
      pdf.close();
    }
    expect(await eventually(() => workerThreads() === before)).toBe(true);
  });

  test("past the time limit and the text limit likewise", async () => {
    const before = workerThreads();
    const slow = new PdfExtractor({ ...PDF_LIMITS, timeMs: 200 });
    const wordy = new PdfExtractor({ ...PDF_LIMITS, textChars: 20 });
    try {
      expect(await slow.extract(bomb)).toEqual({ problem: "extracting its text took longer than 0.2 s" });
      expect(await wordy.extract(normal)).toEqual({ problem: "more than 20 characters of text" });
    } finally {
      slow.close();
      wordy.close();
    }
    expect(await eventually(() => workerThreads() === before)).toBe(true);
  });

  test("through a sync: the bomb is skipped and reported, a normal PDF beside it is taken, no worker is left", async () => {
    const root = tempDir("signet-bomb-");
    writeFileSync(join(root, "bomb.pdf"), bomb);
    writeFileSync(join(root, "platypus.pdf"), normal);
    const before = workerThreads();
    const r = await td.client().sources.add({ path: root });
    expect(r.skipped).toEqual([
      { path: join(root, "bomb.pdf"), reason: "extracting its text took more than 512 MiB of memory (streams that inflate far beyond the file?)" },
    ]);
    expect(r.parsed).toBe(1);
    expect((await td.client().sources.search({ query: "platypus electroreceptors" })).results[0]!.path).toBe(join(root, "platypus.pdf"));
    expect(await eventually(() => workerThreads() === before)).toBe(true);
    await td.client().sources.remove(String(r.source.id));
  });
});
