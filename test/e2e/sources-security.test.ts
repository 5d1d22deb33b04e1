// What a document source cannot do to the daemon, with the compiled binary (docs/api.md#sources,
// docs/security.md): a named pipe (as a document or as a .gitignore) does not block it, a link to
// /dev/zero is not read, a source added through a link is kept under its target (and the CLI finds
// it by either path), and a PDF bomb is extracted on a worker thread that is terminated past its
// memory limit while the daemon keeps answering, its memory bounded, no thread left behind.
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, json, run, sandbox, type Sandbox, startDaemonIn } from "../helpers/binary";
import { pdfBomb } from "../helpers/pdf-bomb";
import { tinyPdf } from "../helpers/pdf";
import { eventually } from "../helpers/wait";

interface Daemon {
  s: Sandbox;
  pid: number;
  cli(args: string[], timeoutMs?: number): ReturnType<typeof run>;
  /** True when GET /health answers 200 within `ms`. */
  healthy(ms?: number): Promise<boolean>;
}

/** A daemon of the binary for `body`, killed after it whatever state it is in. */
async function withDaemon(body: (d: Daemon) => Promise<void>): Promise<void> {
  const s = await sandbox("embedding:\n  provider: none\n");
  await startDaemonIn(s);
  const pid: number = JSON.parse(readFileSync(join(s.dataDir, ".daemon", "daemon.pid"), "utf8")).pid;
  const d: Daemon = {
    s,
    pid,
    cli: (args, timeoutMs) => run(args, { env: s.env, timeoutMs }),
    healthy: (ms = 5000) =>
      fetch(`http://127.0.0.1:${s.port}/health`, { signal: AbortSignal.timeout(ms) }).then(
        (res) => res.ok,
        () => false,
      ),
  };
  try {
    await body(d);
  } finally {
    // A daemon that stopped answering would not act on SIGTERM in time.
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}

/** Threads of `pid` named "Worker" (Bun's worker threads). */
function workerThreads(pid: number): number {
  return readdirSync(`/proc/${pid}/task`).filter((t) => {
    try {
      return readFileSync(`/proc/${pid}/task/${t}/comm`, "utf8").trim() === "Worker";
    } catch {
      return false; // the thread ended meanwhile
    }
  }).length;
}

/** The most resident memory `pid` has had, in bytes (VmHWM). */
function peakRss(pid: number): number {
  const kb = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]!;
  return Number(kb) * 1024;
}

function mkfifo(path: string): void {
  const r = Bun.spawnSync(["mkfifo", path]);
  if (r.exitCode !== 0) throw new Error(`mkfifo ${path}: ${r.stderr.toString()}`);
}

/**
 * A directory holding one readable guide and the special files `plant` makes, added through the
 * CLI: the daemon keeps answering, reads only the guide, and says what it skipped.
 */
async function addWithSpecialFiles(d: Daemon, name: string, plant: (dir: string) => void): Promise<unknown> {
  const dir = join(d.s.home, name);
  mkdirSync(join(dir, "sub"), { recursive: true });
  writeFileSync(join(dir, "guide.md"), "# Guide\n\nThe numbat eats termites.\n");
  plant(dir);
  const add = await d.cli(["source", "add", dir], 10_000);
  expect(await d.healthy()).toBe(true);
  expect(add.code).toBe(0);
  const r = json(add);
  expect(r.parsed).toBe(1);
  return r.skipped;
}

describe("special files in a directory source", () => {
  test("named pipes, as a document and as a .gitignore, are skipped unread; the daemon keeps answering", async () => {
    await withDaemon(async (d) => {
      const dir = join(d.s.home, "piped");
      const skipped = await addWithSpecialFiles(d, "piped", (at) => {
        writeFileSync(join(at, "sub", "inner.md"), "# Inner\n\nThe quoll hunts at night.\n");
        mkfifo(join(at, "pipe.md"));
        mkfifo(join(at, "sub", ".gitignore"));
      });
      expect(skipped).toEqual([
        { path: join(dir, "pipe.md"), reason: "a named pipe, not a regular file" },
        { path: join(dir, "sub", ".gitignore"), reason: "a named pipe, not a regular file: its directory is skipped" },
      ]);
    });
  });

  test("a .gitignore and a document linked to /dev/zero are not read", async () => {
    await withDaemon(async (d) => {
      const dir = join(d.s.home, "zero");
      const skipped = await addWithSpecialFiles(d, "zero", (at) => {
        symlinkSync("/dev/zero", join(at, "sub", ".gitignore"));
        symlinkSync("/dev/zero", join(at, "zero.md"));
      });
      expect(skipped).toEqual([
        { path: join(dir, "sub", ".gitignore"), reason: "a symbolic link to /dev/zero, outside the source (not followed): its directory is skipped" },
        { path: join(dir, "zero.md"), reason: "a symbolic link to /dev/zero, outside the source (not followed)" },
      ]);
      expect(peakRss(d.pid)).toBeLessThan(1024 * 1024 * 1024);
    });
  });
});

describe("links", () => {
  test("a source added through a link is kept under its target, and named by either path", async () => {
    await withDaemon(async (d) => {
      const real = join(d.s.home, "notes", "possum.md");
      mkdirSync(join(d.s.home, "notes"), { recursive: true });
      writeFileSync(real, "# Possum\n\nThe possum sleeps in the roof.\n");
      symlinkSync(real, join(d.s.home, "link.md"));
      const inHome = (args: string[]) => run(args, { env: d.s.env, cwd: d.s.home });
      expect(json(await inHome(["source", "add", "link.md"])).source).toMatchObject({ path: real, kind: "file" });
      expect(json(await inHome(["source", "sync", "link.md"])).reports[0].unchanged).toBe(1);
      expect(json(await inHome(["source", "rm", "link.md"])).removed.path).toBe(real);
    });
  });
});

describe("the data directory in its default place under $HOME", () => {
  test("signet source add $HOME: not one file of the data directory is searchable, skipped names it, and an add of it is refused", async () => {
    const s = await sandbox();
    const dataDir = join(s.home, ".agents");
    mkdirSync(dataDir, { mode: 0o700 });
    writeFileSync(join(dataDir, "agent.yaml"), "embedding:\n  provider: none\n");
    const env = { ...s.env, SIGNET_PATH: dataDir };
    await startDaemonIn(s, env);
    const pid: number = JSON.parse(readFileSync(join(dataDir, ".daemon", "daemon.pid"), "utf8")).pid;
    try {
      expect((await run(["secret", "set", "MYKEY"], { env, stdin: "hunter2-supersecret" })).code).toBe(0);
      const added = await run(["source", "add", s.home], { env });
      expect(added.code).toBe(0);
      expect(json(added).skipped).toContainEqual({ path: dataDir, reason: "the Signet data directory is never indexed" });
      const secrets = [".daemon/admin.token", ".daemon/instance.key"].map((f) => readFileSync(join(dataDir, f), "utf8").trim());
      secrets.push("hunter2-supersecret");
      const files = readdirSync(dataDir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
      for (const f of [".daemon/admin.token", ".daemon/instance.key", ".secrets/store.key", ".secrets/store.enc", ".daemon/logs/daemon.log"]) {
        expect(files).toContain(join(dataDir, f));
      }
      // The reproduction's request, for every file of the data directory, as any local caller makes it.
      for (const file of files) {
        const res = await fetch(`http://127.0.0.1:${s.port}/api/sources/search`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ query: "token", path: file.slice(s.home.length + 1), minScore: 0 }),
        });
        expect([file, res.status, ((await res.json()) as { results: unknown[] }).results]).toEqual([file, 200, []]);
      }
      for (const query of [...secrets, "token key secret log"]) {
        // After `--`: a secret is base64url and may begin with "-", which would read as an option.
        const found = json(await run(["source", "search", "--json", "--", query], { env }));
        expect(found.results.filter((r: { path: string; content: string }) => r.path.startsWith(dataDir) || secrets.some((v) => r.content.includes(v)))).toEqual([]);
      }
      const refused = await run(["source", "add", dataDir], { env });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(`${dataDir} is the Signet data directory, which holds the daemon's secrets`);
    } finally {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  });
});

describe("a PDF bomb", () => {
  test("is extracted off the daemon's thread: /health answers meanwhile, the bomb is skipped, memory stays bounded, no worker is left", async () => {
    await withDaemon(async (d) => {
      const dir = join(d.s.home, "papers");
      mkdirSync(dir, { recursive: true });
      // 1 MiB on disk, 1 GiB of zeros once its content stream is inflated.
      writeFileSync(join(dir, "bomb.pdf"), pdfBomb(1024 * 1024 * 1024));
      writeFileSync(join(dir, "echidna.pdf"), tinyPdf([["Echidna spines are modified hairs"]]));

      // The daemon's own threads (its WAL checkpoints); a PDF's worker comes and goes on top of them.
      const before = workerThreads(d.pid);
      const add = Bun.spawn([BIN, "source", "add", dir], { env: d.s.env, stdout: "pipe", stderr: "pipe" });
      const out = new Response(add.stdout).text();
      let done = false;
      void add.exited.then(() => (done = true));
      let answered = 0;
      let unanswered = 0;
      // Asked while the add runs, each within a bounded wait.
      await Bun.sleep(300);
      while (!done) {
        if (await d.healthy()) answered++;
        else unanswered++;
        await Bun.sleep(100);
      }
      expect({ answered: answered > 0, unanswered }).toEqual({ answered: true, unanswered: 0 });
      expect(await add.exited).toBe(0);

      const r = JSON.parse(await out);
      expect(r.skipped).toEqual([
        { path: join(dir, "bomb.pdf"), reason: "extracting its text took more than 512 MiB of memory (streams that inflate far beyond the file?)" },
      ]);
      expect(r.parsed).toBe(1);
      const hit = json(await d.cli(["source", "search", "echidna spines"]));
      expect(hit.results[0].path).toBe(join(dir, "echidna.pdf"));
      expect(peakRss(d.pid)).toBeLessThan(1.5 * 1024 * 1024 * 1024);
      expect(await eventually(() => workerThreads(d.pid) === before)).toBe(true);
    });
  });
});
