// Owner-only modes and refused symbolic links in the data directory (the daemon started in process).
import { afterAll, beforeAll, describe, expect, spyOn, test } from "bun:test";
import { chmodSync, chownSync, constants, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load";
import { startBackground } from "../../src/control/daemon-process";
import { openDatabase } from "../../src/db/open";
import { databasePath, daemonDir, daemonFiles } from "../../src/config/paths";
import { startDaemon } from "../../src/server/daemon";
import { openOwnerOnly, writeOwnerOnlyFile } from "../../src/os/owner-only-files";
import { DaemonLock, isLockHeld } from "../../src/control/lock";
import { tempDir } from "../helpers/daemon";
import { recordingLogger } from "../helpers/log";

const roots: string[] = [];
let savedUmask: number;

beforeAll(() => {
  // The usual umask, which would leave new files 0644 and new directories 0755.
  savedUmask = process.umask(0o022);
});

afterAll(() => {
  process.umask(savedUmask);
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

function root(): string {
  const dir = tempDir("signet-modes-");
  roots.push(dir);
  return dir;
}

const modeOf = (path: string) => lstatSync(path).mode & 0o7777;

function configFor(dataDir: string) {
  const config = loadConfig({ env: { SIGNET_PATH: dataDir, HOME: dataDir } });
  return { ...config, daemon: { ...config.daemon, port: 0 }, embedding: { ...config.embedding, provider: "none" as const } };
}

/** Starts and stops the daemon, returning what it logged. */
async function startAndStop(dataDir: string, whileRunning: () => void = () => {}): Promise<string> {
  const stderr = spyOn(process.stderr, "write");
  try {
    const daemon = await startDaemon(configFor(dataDir));
    try {
      whileRunning();
    } finally {
      await daemon.stop();
    }
    return stderr.mock.calls.map((c) => String(c[0])).join("");
  } finally {
    stderr.mockRestore();
  }
}

/** Every directory under `dir` must be 0700 and every file 0600. */
function expectOwnerOnlyTree(dir: string): void {
  expect({ path: dir, mode: modeOf(dir) }).toEqual({ path: dir, mode: 0o700 });
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (lstatSync(path).isDirectory()) expectOwnerOnlyTree(path);
    else expect({ path, mode: modeOf(path) }).toEqual({ path, mode: 0o600 });
  }
}

function link(target: string, path: string): void {
  mkdirSync(join(path, ".."), { recursive: true, mode: 0o700 });
  symlinkSync(target, path);
}

describe("modes at daemon start", () => {
  test("loose modes are tightened, each one logged", async () => {
    const dataDir = join(root(), "agents");
    const db = databasePath(dataDir);
    const files = daemonFiles(dataDir);
    const loose: [string, number][] = [
      [dataDir, 0o755],
      [join(dataDir, "memory"), 0o755],
      [daemonDir(dataDir), 0o755],
      [join(daemonDir(dataDir), "logs"), 0o755],
    ];
    for (const [dir] of loose) mkdirSync(dir, { recursive: true, mode: 0o755 });
    writeFileSync(join(dataDir, "agent.yaml"), "embedding:\n  provider: none\n");
    writeFileSync(db, "");
    writeFileSync(files.log, "an older daemon's line\n");
    loose.push([join(dataDir, "agent.yaml"), 0o644], [db, 0o644], [files.log, 0o644]);
    for (const [path, mode] of loose) expect(modeOf(path)).toBe(mode);

    const logged = await startAndStop(dataDir, () => {
      // While it runs: the database's -wal and -shm exist, and the lock and pid files.
      for (const path of [`${db}-wal`, `${db}-shm`, files.lock, files.pid]) expect({ path, mode: modeOf(path) }).toEqual({ path, mode: 0o600 });
      expectOwnerOnlyTree(daemonDir(dataDir));
    });

    for (const [path, mode] of loose) {
      const wanted = mode === 0o755 ? "0700" : "0600";
      expect(logged).toContain(`tightened mode of ${path} from 0${mode.toString(8)} to ${wanted}\n`);
    }
    expectOwnerOnlyTree(join(dataDir, "memory"));
    expectOwnerOnlyTree(daemonDir(dataDir));
    expect(modeOf(dataDir)).toBe(0o700);
    expect(modeOf(join(dataDir, "agent.yaml"))).toBe(0o600);
    expect(readFileSync(files.log, "utf8")).toBe("an older daemon's line\n");
  });

  test("a fresh data directory is created owner-only, with nothing to tighten", async () => {
    const dataDir = join(root(), "fresh");
    const db = databasePath(dataDir);
    const logged = await startAndStop(dataDir, () => {
      for (const path of [db, `${db}-wal`, `${db}-shm`]) expect({ path, mode: modeOf(path) }).toEqual({ path, mode: 0o600 });
      expectOwnerOnlyTree(daemonDir(dataDir));
    });
    expect(modeOf(dataDir)).toBe(0o700);
    expect(modeOf(join(dataDir, "memory"))).toBe(0o700);
    expect(logged).not.toContain("tightened");
  });
});

describe("symbolic links are refused", () => {
  const refusal = (path: string) => `${path} is a symbolic link; refusing to follow it (remove it)`;

  test("a linked daemon.lock: by the daemon's start, the lock and the lock probe", async () => {
    const dir = root();
    const dataDir = join(dir, "agents");
    const target = join(dir, "elsewhere.db");
    const lock = daemonFiles(dataDir).lock;
    link(target, lock);
    await expect(startDaemon(configFor(dataDir))).rejects.toThrow(refusal(lock));
    expect(() => DaemonLock.acquire(dataDir)).toThrow(refusal(lock));
    expect(() => isLockHeld(dataDir)).toThrow(refusal(lock));
    expect(existsSync(target)).toBe(false);
  });

  test("a linked memories.db: by the daemon's start and by openDatabase", async () => {
    const dir = root();
    const dataDir = join(dir, "agents");
    const target = join(dir, "elsewhere.db");
    const db = databasePath(dataDir);
    link(target, db);
    await expect(startDaemon(configFor(dataDir))).rejects.toThrow(refusal(db));
    expect(() => openDatabase(db)).toThrow(refusal(db));
    expect(existsSync(target)).toBe(false);
  });

  test("a linked .daemon", async () => {
    const dir = root();
    const dataDir = join(dir, "agents");
    const target = join(dir, "elsewhere");
    mkdirSync(target);
    link(target, daemonDir(dataDir));
    await expect(startDaemon(configFor(dataDir))).rejects.toThrow(refusal(daemonDir(dataDir)));
    expect(readdirSync(target)).toEqual([]);
  });

  test("a linked daemon.log: startBackground writes nothing through it", async () => {
    const dir = root();
    const dataDir = join(dir, "agents");
    const target = join(dir, "elsewhere.log");
    writeFileSync(target, "not the daemon's\n");
    const log = daemonFiles(dataDir).log;
    link(target, log);
    await expect(startBackground(configFor(dataDir), {}, recordingLogger().log)).rejects.toThrow(refusal(log));
    expect(readFileSync(target, "utf8")).toBe("not the daemon's\n");
  });

  test("openOwnerOnly (how the log is opened) does not follow a link", async () => {
    const dir = root();
    const target = join(dir, "elsewhere.log");
    const path = join(dir, "daemon.log");
    symlinkSync(target, path);
    expect(() => openOwnerOnly(path, constants.O_WRONLY | constants.O_APPEND)).toThrow(refusal(path));
    expect(existsSync(target)).toBe(false);
  });
});

describe("directories another account controls", () => {
  const uid = process.getuid?.();
  const nobody = Number(Bun.spawnSync(["id", "-u", "nobody"]).stdout.toString().trim());
  const chownable = uid === 0 && Number.isInteger(nobody) && nobody !== 0;
  // Making a directory another account's needs root (chown); as anyone else these cannot be set up.
  const asRoot = test.skipIf(!chownable);

  asRoot("a world-writable .daemon owned by another account stops the start", async () => {
    const dataDir = join(root(), "agents");
    const dir = daemonDir(dataDir);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o777);
    chownSync(dir, nobody, nobody);
    await expect(startDaemon(configFor(dataDir))).rejects.toThrow(`${dir} is owned by uid ${nobody} (mode 0777), not by uid 0 that runs the daemon`);
    expect(readdirSync(dir)).toEqual([]);
    expect(modeOf(dir)).toBe(0o777);
  });

  asRoot("a data directory owned by another account stops the start", async () => {
    const dataDir = join(root(), "agents");
    mkdirSync(dataDir, { mode: 0o700 });
    chownSync(dataDir, nobody, nobody);
    await expect(startDaemon(configFor(dataDir))).rejects.toThrow(`${dataDir} is owned by uid ${nobody} (mode 0700), not by uid 0 that runs the daemon`);
    expect(readdirSync(dataDir)).toEqual([]);
  });
});

describe("writeOwnerOnlyFile", () => {
  test("replaces a link rather than writing through it, past a stale temporary file", () => {
    const dir = root();
    const target = join(dir, "elsewhere");
    writeFileSync(target, "theirs\n");
    const path = join(dir, "daemon.pid");
    symlinkSync(target, path);
    // A stale temporary file with our pid, itself a link: removed, not written through.
    symlinkSync(target, `${path}.${process.pid}.tmp`);
    writeOwnerOnlyFile(path, "ours\n");
    expect(lstatSync(path).isFile()).toBe(true);
    expect(modeOf(path)).toBe(0o600);
    expect(readFileSync(path, "utf8")).toBe("ours\n");
    expect(readFileSync(target, "utf8")).toBe("theirs\n");
    expect(readdirSync(dir).sort()).toEqual(["daemon.pid", "elsewhere"]);
  });

  test("exclusive: creates 0600, never over an existing file or a link", () => {
    const dir = root();
    const path = join(dir, "admin.token");
    writeOwnerOnlyFile(path, "secret\n", { exclusive: true });
    expect(modeOf(path)).toBe(0o600);
    expect(() => writeOwnerOnlyFile(path, "other\n", { exclusive: true })).toThrow(/EEXIST/);
    expect(readFileSync(path, "utf8")).toBe("secret\n");
    const linked = join(dir, "instance.key");
    const target = join(dir, "elsewhere");
    symlinkSync(target, linked);
    expect(() => writeOwnerOnlyFile(linked, "key\n", { exclusive: true })).toThrow(/EEXIST/);
    expect(existsSync(target)).toBe(false);
  });
});
