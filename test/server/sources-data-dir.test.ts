// The daemon's data directory is never a document source nor read as part of one (docs/security.md,
// docs/api.md#sources): with the data directory in its default place under $HOME, adding $HOME
// leaves it out and says so, whatever leads into it (a link to it or to a file in it, a hard link of
// its admin token, a bind mount of it, another spelling of its path); an add of it or of anything in
// it is refused with a 400; a store that took its files before (an earlier version) loses them at
// the next sync and at the next start, and no search answers them meanwhile. Through real HTTP
// against in-process daemons on temporary homes.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { linkSync, mkdirSync, readFileSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { loadConfig } from "../../src/config/load";
import type { SkippedFile } from "../../src/contracts/sources";
import { DATA_DIR_REASON, DataDirFence } from "../../src/core/files/data-dir";
import { SourceService } from "../../src/core/sources/service";
import { walkDirectory } from "../../src/core/sources/walk";
import { startDaemon, type RunningDaemon } from "../../src/server/daemon";
import { tempDir } from "../helpers/daemon";
import { jsonCall } from "../helpers/json-call";
import { recordingLogger } from "../helpers/log";
import { eventually } from "../helpers/wait";

const SECRET = "hunter2-supersecret";

interface Daemon {
  daemon: RunningDaemon;
  lines: string[];
  owner: Record<string, string>;
  /** A request as the owner (admin token and instance key), or with `headers` instead. */
  api(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any }>;
}

/** A daemon on `dataDir` with HOME `home`, its log lines kept. */
async function start(dataDir: string, home: string, yaml = ""): Promise<Daemon> {
  writeFileSync(join(dataDir, "agent.yaml"), `${yaml}\nembedding:\n  provider: none\n`);
  const config = loadConfig({ env: { SIGNET_PATH: dataDir, HOME: home } });
  const { log, lines } = recordingLogger();
  const daemon = await startDaemon({ ...config, daemon: { ...config.daemon, port: 0 } }, { log });
  const owner = { authorization: `Bearer ${daemon.context.credentials.adminToken}`, "x-signet-instance-key": daemon.context.credentials.instanceKey };
  return { daemon, lines, owner, api: (method, path, body, headers = owner) => jsonCall(daemon.url, method, path, body, headers) };
}

/** A home directory holding the data directory where it is by default, `.agents`. */
function homeWithDataDir(): { home: string; dataDir: string } {
  const home = join(realpathSync(tempDir("signet-home-")), "home");
  const dataDir = join(home, ".agents");
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  return { home, dataDir };
}

/** Every regular file under `dir` (not through links). */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

const reasonOf = (r: { skipped: SkippedFile[] }, path: string) => r.skipped.find((s) => s.path === path)?.reason;

let home: string;
let dataDir: string;
let d: Daemon;
let adminToken: string;
let instanceKey: string;

/** Rows of the store whose file is in the data directory. */
function storedDataDirFiles(daemon = d): number {
  return daemon.daemon.context.stores.sqlite!.query<{ n: number }, [string]>("SELECT count(*) AS n FROM source_files WHERE path = ?1 OR path LIKE ?1 || '/%'").get(dataDir)!.n;
}

/** Chunks anywhere in the store holding one of the daemon's secrets. */
function chunksWithSecrets(daemon = d): number {
  const q = daemon.daemon.context.stores.sqlite!.query<{ n: number }, [string, string, string]>(
    "SELECT count(*) AS n FROM source_chunks WHERE instr(content, ?1) > 0 OR instr(content, ?2) > 0 OR instr(content, ?3) > 0",
  );
  return q.get(adminToken, instanceKey, SECRET)!.n;
}

/** Every search a recall caller can make for what the data directory holds: all of them empty. */
async function expectNothingOfTheDataDir(daemon = d, headers?: Record<string, string>): Promise<void> {
  for (const file of filesUnder(dataDir)) {
    const byPath = await daemon.api("POST", "/api/sources/search", { query: "token key secret wombat", path: relative(home, file), minScore: 0 }, headers);
    expect([file, byPath.status, byPath.body.results]).toEqual([file, 200, []]);
  }
  for (const query of [adminToken, instanceKey, SECRET, "wombat burrow diary"]) {
    const search = await daemon.api("POST", "/api/sources/search", { query, limit: 100, minScore: 0 }, headers);
    expect(search.status).toBe(200);
    expect(search.body.results.filter((r: { path: string }) => r.path.startsWith(`${dataDir}/`))).toEqual([]);
    const recall = await daemon.api("POST", "/api/memory/recall", { query, sourceOnly: true, limit: 100, minScore: 0 }, headers);
    expect(recall.status).toBe(200);
    expect(recall.body.results.filter((r: { path: string }) => r.path.startsWith(`${dataDir}/`))).toEqual([]);
  }
  expect(chunksWithSecrets(daemon)).toBe(0);
}

beforeAll(async () => {
  ({ home, dataDir } = homeWithDataDir());
  d = await start(dataDir, home);
  adminToken = d.daemon.context.credentials.adminToken;
  instanceKey = d.daemon.context.credentials.instanceKey;
  expect((await d.api("PUT", "/api/secrets/MYKEY", { value: SECRET })).status).toBe(200);
  // What else a data directory may hold as text: a log, notes, a harness's skills.
  mkdirSync(join(dataDir, ".daemon", "logs"), { recursive: true });
  writeFileSync(join(dataDir, ".daemon", "logs", "daemon.log"), `info started with token ${adminToken}\n`);
  mkdirSync(join(dataDir, "skills"));
  writeFileSync(join(dataDir, "skills", "diary.md"), "# Diary\n\nThe wombat burrow diary.\n");
  mkdirSync(join(home, "notes"));
  writeFileSync(join(home, "notes", "quokka.md"), "# Quokka\n\nThe quokka smiles on Rottnest.\n");
});

afterAll(async () => {
  await d.daemon.stop();
});

describe("a parent of the data directory as a source", () => {
  test("$HOME: nothing of the data directory is read or searchable, and skipped names it", async () => {
    // The files the reproduction read: the token, the instance key, the secret store's key and ciphertext.
    for (const file of [".daemon/admin.token", ".daemon/instance.key", ".secrets/store.key", ".secrets/store.enc"]) {
      expect(filesUnder(dataDir)).toContain(join(dataDir, file));
    }
    const added = await d.api("POST", "/api/sources", { path: home });
    expect(added.status).toBe(201);
    expect(reasonOf(added.body, dataDir)).toBe(DATA_DIR_REASON);
    expect(added.body.parsed).toBe(1);
    expect(storedDataDirFiles()).toBe(0);
    // The reproduction's own search, and every file of the data directory by its path.
    const repro = await d.api("POST", "/api/sources/search", { query: "token", path: ".daemon/admin.token", minScore: 0 });
    expect([repro.status, repro.body.results]).toEqual([200, []]);
    await expectNothingOfTheDataDir();
    // The rest of the home directory is taken.
    const quokka = await d.api("POST", "/api/sources/search", { query: "quokka Rottnest" });
    expect(quokka.body.results.map((r: { path: string }) => r.path)).toEqual([join(home, "notes", "quokka.md")]);

    // A sync says the same.
    const synced = await d.api("POST", "/api/sources/sync", { id: added.body.source.id });
    expect(reasonOf(synced.body.reports[0], dataDir)).toBe(DATA_DIR_REASON);
    expect(storedDataDirFiles()).toBe(0);
    expect((await d.api("DELETE", `/api/sources/${added.body.source.id}`)).status).toBe(200);
  });

  test("links inside the source into the data directory, and a hard link of its token, are not read", async () => {
    const dir = join(home, "links");
    mkdirSync(dir);
    const tokenPath = join(dataDir, ".daemon", "admin.token");
    symlinkSync(tokenPath, join(dir, "token.md"));
    symlinkSync(join(dataDir, ".secrets", "store.key"), join(dir, "key.txt"));
    symlinkSync(dataDir, join(dir, "agents"));
    symlinkSync("../.agents/skills", join(dir, "skills"));
    linkSync(tokenPath, join(dir, "hard-token.txt"));
    try {
      const added = await d.api("POST", "/api/sources", { path: home });
      expect(added.status).toBe(201);
      const r = added.body;
      expect(reasonOf(r, dataDir)).toBe(DATA_DIR_REASON);
      expect(reasonOf(r, join(dir, "token.md"))).toBe(`a symbolic link to ${tokenPath}: ${DATA_DIR_REASON}`);
      expect(reasonOf(r, join(dir, "key.txt"))).toBe(`a symbolic link to ${join(dataDir, ".secrets", "store.key")}: ${DATA_DIR_REASON}`);
      expect(reasonOf(r, join(dir, "agents"))).toBe(`a symbolic link to ${dataDir}: ${DATA_DIR_REASON}`);
      expect(reasonOf(r, join(dir, "skills"))).toBe(`a symbolic link to ${join(dataDir, "skills")}: ${DATA_DIR_REASON}`);
      expect(reasonOf(r, join(dir, "hard-token.txt"))).toBe(DATA_DIR_REASON);
      expect(r.parsed).toBe(1);
      await expectNothingOfTheDataDir();

      // A .gitignore that is a link into it is read as any file, so refused, and its directory
      // (here the whole source) skipped: what was taken leaves.
      symlinkSync(join(dataDir, ".daemon", "logs", "daemon.log"), join(home, ".gitignore"));
      const synced = (await d.api("POST", "/api/sources/sync", { id: r.source.id })).body.reports[0];
      expect(synced.skipped).toEqual([
        { path: join(home, ".gitignore"), reason: `a symbolic link to ${join(dataDir, ".daemon", "logs", "daemon.log")}: ${DATA_DIR_REASON}: its directory is skipped` },
      ]);
      expect(synced.removed).toBe(1);
      await expectNothingOfTheDataDir();
      expect((await d.api("DELETE", `/api/sources/${r.source.id}`)).status).toBe(200);
      rmSync(join(home, ".gitignore"));

      // From a source beside the data directory, the same links lead outside it; the hard link is still refused.
      const beside = (await d.api("POST", "/api/sources", { path: dir })).body;
      expect(reasonOf(beside, join(dir, "token.md"))).toBe(`a symbolic link to ${tokenPath}, outside the source (not followed)`);
      expect(reasonOf(beside, join(dir, "hard-token.txt"))).toBe(DATA_DIR_REASON);
      expect(beside.parsed).toBe(0);
      await expectNothingOfTheDataDir();
      expect((await d.api("DELETE", `/api/sources/${beside.source.id}`)).status).toBe(200);
    } finally {
      rmSync(dir, { recursive: true });
      rmSync(join(home, ".gitignore"), { force: true });
    }
  });

  test("a readonly token (team mode) finds nothing of the data directory either", async () => {
    const team = homeWithDataDir();
    const t = await start(team.dataDir, team.home, "auth:\n  mode: team\n");
    try {
      writeFileSync(join(team.home, "notes.md"), "# Notes\n\nThe numbat eats termites.\n");
      const issued = await t.api("POST", "/api/tokens", { role: "readonly", name: "reader" });
      expect(issued.status).toBe(201);
      const reader = { authorization: `Bearer ${issued.body.token}` };
      // The reader cannot add a source; the owner adds the home directory.
      expect((await t.api("POST", "/api/sources", { path: team.home }, reader)).status).toBe(403);
      const added = await t.api("POST", "/api/sources", { path: team.home });
      expect(added.status).toBe(201);
      expect(reasonOf(added.body, team.dataDir)).toBe(DATA_DIR_REASON);
      const token = t.daemon.context.credentials.adminToken;
      for (const query of [token, "token", "admin"]) {
        const found = await t.api("POST", "/api/sources/search", { query, limit: 100, minScore: 0 }, reader);
        expect(found.status).toBe(200);
        expect(found.body.results.filter((r: { path: string; content: string }) => r.path.startsWith(team.dataDir) || r.content.includes(token))).toEqual([]);
      }
      const byPath = await t.api("POST", "/api/sources/search", { query: "token", path: ".daemon/admin.token", minScore: 0 }, reader);
      expect([byPath.status, byPath.body.results]).toEqual([200, []]);
      expect((await t.api("POST", "/api/sources/search", { query: "numbat termites" }, reader)).body.results.length).toBe(1);
    } finally {
      await t.daemon.stop();
    }
  });
});

describe("an add of the data directory or of anything in it", () => {
  test("is refused with a 400 naming the data directory, however the path is spelled; nothing is recorded", async () => {
    const before = (await d.api("GET", "/api/sources")).body.sources.length;
    symlinkSync(dataDir, join(home, "agents-link"));
    linkSync(join(dataDir, ".daemon", "admin.token"), join(home, "token-copy.txt"));
    const refused = (shown: string, where: "is" | "in") =>
      `path: ${shown} is ${where === "is" ? "the Signet data directory" : `in the Signet data directory ${dataDir}`}, which holds the daemon's secrets (its admin token, instance key and secret store) and is never indexed`;
    const cases: [string, string][] = [
      [dataDir, refused(dataDir, "is")],
      [`${dataDir}/`, refused(`${dataDir}/ (${dataDir})`, "is")],
      [`${home}/notes/../.agents`, refused(`${home}/notes/../.agents (${dataDir})`, "is")],
      [join(home, "agents-link"), refused(`${join(home, "agents-link")} (${dataDir})`, "is")],
      [join(dataDir, ".daemon"), refused(join(dataDir, ".daemon"), "in")],
      [join(dataDir, ".daemon", "admin.token"), refused(join(dataDir, ".daemon", "admin.token"), "in")],
      [join(home, "agents-link", ".secrets", "store.key"), refused(`${join(home, "agents-link", ".secrets", "store.key")} (${join(dataDir, ".secrets", "store.key")})`, "in")],
      [join(dataDir, "skills"), refused(join(dataDir, "skills"), "in")],
      // A hard link of the token is the token.
      [join(home, "token-copy.txt"), refused(join(home, "token-copy.txt"), "in")],
    ];
    for (const [path, message] of cases) {
      const res = await d.api("POST", "/api/sources", { path });
      expect([path, res.status, res.body]).toEqual([path, 400, { error: message, code: "invalid_input" }]);
    }
    // Streaming too: refused before anything streams.
    const streamed = await jsonCall(d.daemon.url, "POST", "/api/sources", { path: dataDir }, { ...d.owner, accept: "application/x-ndjson" });
    expect(streamed.status).toBe(400);
    expect((await d.api("GET", "/api/sources")).body.sources.length).toBe(before);
    expect(storedDataDirFiles()).toBe(0);
  });
});

describe("a store that took the data directory before it was left out", () => {
  /** Adds `path` as a version without the fence did: a service on the daemon's store that knows no data directory. */
  async function addTheOldWay(daemon: Daemon, path: string): Promise<number> {
    const old = new SourceService(daemon.daemon.context.sources.store, null);
    try {
      const r = await old.add({ path });
      return r.source.id;
    } finally {
      await old.stop();
    }
  }

  test("search never answers its chunks; a sync drops them; a source inside it syncs to nothing", async () => {
    // The one inside first: the home's walk then leaves its files to it (already part of it).
    const insideId = await addTheOldWay(d, join(dataDir, ".daemon"));
    const homeId = await addTheOldWay(d, home);
    // What the reproduction found: the token and the secret store's files were chunked.
    expect(storedDataDirFiles()).toBeGreaterThan(4);
    expect(chunksWithSecrets()).toBeGreaterThan(0);
    // Not answered meanwhile (FTS5 answers a path filter; the in-memory index never had them).
    const repro = await d.api("POST", "/api/sources/search", { query: "token", path: ".daemon/admin.token", minScore: 0 });
    expect([repro.status, repro.body.results]).toEqual([200, []]);
    // (The hard link of the token an earlier test left in the home directory may be found by its
    // content until the sync below: its path says nothing of it.)
    for (const query of [adminToken, instanceKey, "wombat burrow diary"]) {
      const found = await d.api("POST", "/api/memory/recall", { query, sourceOnly: true, minScore: 0 });
      expect(found.body.results.filter((r: { path: string }) => r.path.startsWith(`${dataDir}/`))).toEqual([]);
    }

    const synced = (await d.api("POST", "/api/sources/sync", {})).body.reports;
    const ofHome = synced.find((r: { source: { id: number } }) => r.source.id === homeId);
    expect(ofHome.removed).toBeGreaterThan(2);
    expect(synced.find((r: { source: { id: number } }) => r.source.id === insideId).removed).toBeGreaterThan(1);
    expect(reasonOf(ofHome, dataDir)).toBe(DATA_DIR_REASON);
    expect(reasonOf(ofHome, join(home, "token-copy.txt"))).toBe(DATA_DIR_REASON);
    const ofInside = synced.find((r: { source: { id: number } }) => r.source.id === insideId);
    expect(ofInside.skipped).toEqual([{ path: join(dataDir, ".daemon"), reason: `${join(dataDir, ".daemon")} is in the Signet data directory: ${DATA_DIR_REASON}` }]);
    expect(ofInside.source.files).toBe(0);
    expect(storedDataDirFiles()).toBe(0);
    expect(chunksWithSecrets()).toBe(0);
    await expectNothingOfTheDataDir();
    for (const id of [homeId, insideId]) expect((await d.api("DELETE", `/api/sources/${id}`)).status).toBe(200);
  });

  test("the next start drops them before any sync, and logs it", async () => {
    const other = homeWithDataDir();
    let daemon = await start(other.dataDir, other.home);
    const saved = { dataDir, home };
    try {
      writeFileSync(join(other.home, "notes.md"), "# Notes\n\nThe bilby burrows.\n");
      const id = await addTheOldWay(daemon, other.home);
      const held = (daemon.daemon.context.stores.sqlite!.query<{ n: number }, [string]>("SELECT count(*) AS n FROM source_files WHERE path LIKE ?1 || '/%'").get(other.dataDir))!.n;
      expect(held).toBeGreaterThan(4);
      await daemon.daemon.stop();
      daemon = await start(other.dataDir, other.home);
      const left = () => daemon.daemon.context.stores.sqlite!.query<{ n: number }, [string]>("SELECT count(*) AS n FROM source_files WHERE path LIKE ?1 || '/%'").get(other.dataDir)!.n;
      expect(await eventually(() => left() === 0)).toBe(true);
      expect(daemon.lines).toContain(
        `warn sources: dropped ${held} file(s) of the Signet data directory from source ${id} (${other.home}), taken before it was left out: ${DATA_DIR_REASON}`,
      );
      // The rest of the source stays.
      const found = await daemon.api("POST", "/api/sources/search", { query: "bilby burrows" });
      expect(found.body.results.map((r: { path: string }) => r.path)).toEqual([join(other.home, "notes.md")]);
      ({ dataDir, home } = other);
      adminToken = daemon.daemon.context.credentials.adminToken;
      instanceKey = daemon.daemon.context.credentials.instanceKey;
      await expectNothingOfTheDataDir(daemon);
    } finally {
      ({ dataDir, home } = saved);
      adminToken = d.daemon.context.credentials.adminToken;
      instanceKey = d.daemon.context.credentials.instanceKey;
      await daemon.daemon.stop();
    }
  });
});

describe("the walk, whatever leads to the data directory", () => {
  test("the data directory named through a link, or with another spelling, is still left out", async () => {
    const { home: h, dataDir: dd } = homeWithDataDir();
    writeFileSync(join(dd, "secret.md"), "# Secret\n\nkept out\n");
    writeFileSync(join(h, "open.md"), "# Open\n");
    symlinkSync(dd, join(h, "..", "dd-link"));
    for (const spelled of [join(h, "..", "dd-link"), `${dd}/`, `${dd}/../.agents`, `${h}/./.agents`]) {
      const r = await walkDirectory(h, null, new DataDirFence(spelled));
      expect([spelled, r.files.map((f) => f.path)]).toEqual([spelled, [join(h, "open.md")]]);
      expect(r.skipped).toEqual([{ path: dd, reason: DATA_DIR_REASON }]);
    }
  });

  test("a bind mount of the data directory inside the source is not entered", async () => {
    // A mount namespace of its own (root only): the bind is gone with the process.
    const probe = Bun.spawnSync(["unshare", "-m", "--propagation", "private", "true"]);
    if (probe.exitCode !== 0) {
      console.warn("skipped: no mount namespace here (unshare -m needs root)");
      return;
    }
    const { home: h, dataDir: dd } = homeWithDataDir();
    mkdirSync(join(dd, ".daemon"));
    writeFileSync(join(dd, ".daemon", "admin.token"), "sgt_planted\n");
    const source = join(realpathSync(tempDir("signet-bind-")), "docs");
    mkdirSync(join(source, "mnt"), { recursive: true });
    mkdirSync(join(source, "sub"));
    writeFileSync(join(source, "open.md"), "# Open\n");
    const script = `
      import { walkDirectory } from ${JSON.stringify(join(import.meta.dir, "../../src/core/sources/walk.ts"))};
      import { readWithin } from ${JSON.stringify(join(import.meta.dir, "../../src/core/sources/read.ts"))};
      import { DataDirFence } from ${JSON.stringify(join(import.meta.dir, "../../src/core/files/data-dir.ts"))};
      import { statSync } from "node:fs";
      const fence = new DataDirFence(${JSON.stringify(dd)});
      const r = await walkDirectory(${JSON.stringify(source)}, null, fence);
      // Reading through the bind, as a race past the walk would: refused.
      const path = ${JSON.stringify(join(source, "mnt", ".daemon", "admin.token"))};
      let read;
      try { read = new TextDecoder().decode(readWithin(path, ${JSON.stringify(source)}, 1024, statSync(path), fence)); } catch (err) { read = err.message; }
      // A bind of a directory inside it (its .daemon) is known by its device and inode too.
      const sub = await walkDirectory(${JSON.stringify(join(source, "sub"))}, null, fence);
      console.log(JSON.stringify({ files: r.files.map((f) => f.path), skipped: r.skipped, read, sub: sub.skipped, subFiles: sub.files.length }));`;
    const child = Bun.spawnSync(
      [
        "unshare",
        "-m",
        "--propagation",
        "private",
        "sh",
        "-c",
        `mount --bind "$1" "$2" && mount --bind "$1/.daemon" "$3" && exec "$4" -e "$5"`,
        "sh",
        dd,
        join(source, "mnt"),
        join(source, "sub"),
        process.execPath,
        script,
      ],
      { stdout: "pipe", stderr: "pipe", timeout: 20_000 },
    );
    expect(child.stderr.toString()).toBe("");
    expect(JSON.parse(child.stdout.toString())).toEqual({
      files: [join(source, "open.md")],
      skipped: [
        { path: join(source, "mnt"), reason: DATA_DIR_REASON },
        { path: join(source, "sub"), reason: DATA_DIR_REASON },
      ],
      read: DATA_DIR_REASON,
      sub: [{ path: join(source, "sub"), reason: DATA_DIR_REASON }],
      subFiles: 0,
    });
    expect(readFileSync(join(dd, ".daemon", "admin.token"), "utf8")).toBe("sgt_planted\n");
    void h;
  });
});
