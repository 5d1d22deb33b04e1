// storage.url as the compiled binary shows and checks it (docs/config.md, docs/deploy.md): a password
// given as a query parameter, which Bun's client reads, is shown nowhere (/health, the daemon's log,
// `signet doctor`, the start, migrate and copy errors); a URL with a bad percent-escape is refused by
// each of them naming the key and the part at fault, without the password; a command the running
// daemon refuses says once how to stop it.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { json, run, sandbox, startDaemonIn, type Sandbox } from "../helpers/binary";
import { jsonCall } from "../helpers/json-call";
import { postgresDatabases } from "../helpers/postgres-databases";

const postgres = postgresDatabases();
const YAML = "embedding:\n  provider: none\n";
const SECRET = "S3cretPassw0rd";
/** No PostgreSQL listens on port 1: every command that opens this store fails, naming it. */
const UNREACHABLE = `postgres://signet@127.0.0.1:1/signet?password=${SECRET}`;
const UNREACHABLE_SHOWN = "postgres://signet@127.0.0.1:1/signet?password=***";

const withUrl = (s: Sandbox, url: string) => ({ ...s.env, SIGNET_DATABASE_URL: url });
const everything = (r: { stdout: string; stderr: string }) => r.stdout + r.stderr;

describe.skipIf(!postgres.available)("a PostgreSQL password given as a query parameter", () => {
  test("is shown in neither /health, the daemon's log nor `signet doctor`; a command the daemon refuses says once how to stop it", async () => {
    const s = await sandbox(YAML);
    const database = await postgres.emptyDatabase();
    const env = withUrl(s, `${database}?password=${SECRET}`);
    await startDaemonIn(s, env);
    try {
      const instanceKey = readFileSync(join(s.dataDir, ".daemon", "instance.key"), "utf8").trim();
      const health = await jsonCall(`http://127.0.0.1:${s.port}`, "GET", "/health", undefined, { "x-signet-instance-key": instanceKey });
      expect(health.body.store).toMatchObject({ kind: "postgres", location: `${database}?password=***` });
      const log = readFileSync(join(s.dataDir, ".daemon", "logs", "daemon.log"), "utf8");
      expect(log).toContain(`store ${database}?password=***`);
      expect(log).not.toContain(SECRET);
      const doctor = await run(["doctor", "--json"], { env });
      const store = json(doctor).checks.find((c: { area: string }) => c.area === "store");
      expect(store.detail).toContain(`PostgreSQL at ${database}?password=***`);
      expect(everything(doctor)).not.toContain(SECRET);

      const migrate = await run(["migrate"], { env });
      expect(migrate.code).toBe(1);
      expect(migrate.stderr).toContain("stop it with `signet daemon stop` first, or let it be: it migrates its store itself at start");
      expect(migrate.stderr.match(/stop it/g)).toHaveLength(1);
      const copy = await run(["store", "copy", "--to", join(s.home, "copy.db")], { env });
      expect(copy.code).toBe(1);
      expect(copy.stderr).toContain("stop it with `signet daemon stop` first, so no write lands after the copy's snapshot");
      expect(copy.stderr.match(/stop it/g)).toHaveLength(1);
    } finally {
      await run(["daemon", "stop"], { env });
    }
  }, 60_000);

  test("is shown in none of the start, migrate and copy errors of a store that cannot be reached", async () => {
    const s = await sandbox(YAML);
    const start = await run(["daemon", "start"], { env: withUrl(s, UNREACHABLE) });
    expect(start.code).not.toBe(0);
    expect(start.stderr).toContain(`cannot open the PostgreSQL store ${UNREACHABLE_SHOWN}`);
    expect(everything(start)).not.toContain(SECRET);
    const migrate = await run(["migrate"], { env: withUrl(s, UNREACHABLE) });
    expect(migrate.code).toBe(1);
    expect(migrate.stderr).toContain(`cannot migrate ${UNREACHABLE_SHOWN}`);
    expect(everything(migrate)).not.toContain(SECRET);
    const copyFrom = await run(["store", "copy", "--to", join(s.home, "copy.db")], { env: withUrl(s, UNREACHABLE) });
    expect(copyFrom.code).toBe(1);
    expect(copyFrom.stderr).toContain(`cannot open ${UNREACHABLE_SHOWN}`);
    // Into it, from the SQLite store `signet migrate` makes.
    expect((await run(["migrate"], { env: s.env })).code).toBe(0);
    const copyTo = await run(["store", "copy", "--to", UNREACHABLE], { env: s.env });
    expect(copyTo.code).toBe(1);
    expect(copyTo.stderr).toContain(`cannot open ${UNREACHABLE_SHOWN}`);
    for (const r of [copyFrom, copyTo]) expect(everything(r)).not.toContain(SECRET);
  }, 60_000);
});

describe("a storage.url with a bad percent-escape", () => {
  const BAD = "postgres://signet:pa%zz@127.0.0.1:1/signet";
  const NAMED = "storage.url (SIGNET_DATABASE_URL) postgres://signet@127.0.0.1:1/signet is not a valid URL: its password has a bad percent-escape";

  test("stops the start, and is refused by migrate and store copy, naming the key and the problem, never the password", async () => {
    const s = await sandbox(YAML);
    const env = withUrl(s, BAD);
    const start = await run(["daemon", "start"], { env });
    expect(start.code).not.toBe(0);
    expect(start.stderr).toContain(NAMED);
    expect(everything(start)).not.toContain("pa%zz");
    const migrate = await run(["migrate"], { env });
    expect(migrate.code).toBe(2);
    expect(migrate.stderr).toContain(NAMED);
    const copy = await run(["store", "copy", "--to", join(s.home, "copy.db")], { env });
    expect(copy.code).toBe(2);
    expect(copy.stderr).toContain(NAMED);
    for (const r of [migrate, copy]) expect(everything(r)).not.toContain("pa%zz");
  }, 30_000);

  test("as store copy's --to, is refused naming --to, never the password", async () => {
    const s = await sandbox(YAML);
    const copy = await run(["store", "copy", "--to", BAD], { env: s.env });
    expect(copy.code).toBe(2);
    expect(copy.stderr).toContain("--to postgres://signet@127.0.0.1:1/signet is not a valid URL: its password has a bad percent-escape");
    expect(everything(copy)).not.toContain("pa%zz");
  });
});
