// `signet store copy`: move the data directory's store into an empty PostgreSQL database or a new
// SQLite file (docs/deploy.md#moving-a-store). Like `signet migrate`, it opens the stores itself, with
// this data directory's daemon stopped (its lock is held meanwhile); daemons elsewhere sharing a
// PostgreSQL source must be stopped by their operator.
import { existsSync, rmSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { defineCommand } from "./command";
import { COMMAND_DESCRIPTIONS } from "./descriptions";
import { databasePath } from "../config/paths";
import { DaemonLock, DaemonRunningError } from "../control/lock";
import { copyStore, StoreCopyError, type CopyReport, type StoreEnd } from "../core/transfer/store-copy";
import { migrate } from "../db/migrate";
import { openDatabase } from "../db/open";
import { displayedUrl, postgresUrlProblem, STORAGE_URL_KEY } from "../config/storage-url";
import { newFilePlaceProblem } from "../os/new-file";
import { openMigratedPostgres } from "../db/postgres";
import { daemonStopped, storeConfig } from "./stopped-store";
import { EXIT, ExitError, UsageError } from "./errors";
import { emit, outputArgs } from "./output";

const isPostgresUrl = (s: string) => /^postgres(ql)?:\/\//.test(s);

/**
 * `--to` as the copy's target: a PostgreSQL URL as given, or a new SQLite file's absolute path in a
 * directory that exists. Like `signet backup`, the copy makes no directory (a typo in the path must
 * not leave a tree behind), and a URL of another scheme (`sqlite:///tmp/x.db`) is not taken for a
 * relative path (`./sqlite:/tmp/x.db`).
 */
function targetOf(to: string): string {
  if (isPostgresUrl(to)) {
    const invalid = postgresUrlProblem(to, "--to");
    if (invalid) throw new UsageError(invalid);
    return to;
  }
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(to);
  if (scheme) {
    const path = scheme[1]!.toLowerCase() === "sqlite" ? to.slice(scheme[0].length).replace(/^(?=[^/])/, "./") : undefined;
    // Another database's URL may carry its password too.
    throw new UsageError(
      `--to ${path ? to : displayedUrl(to)}: a ${scheme[1]}:// URL is not a target; give a postgres:// or postgresql:// URL, or a new SQLite file's path${path ? ` (--to ${path})` : ""}`,
    );
  }
  const path = resolve(to);
  const dir = dirname(path);
  let st;
  try {
    st = statSync(dir);
  } catch (err) {
    throw new UsageError(newFilePlaceProblem(path, (err as NodeJS.ErrnoException).code) ?? `cannot create ${path}: ${(err as Error).message}`);
  }
  if (!st.isDirectory()) throw new UsageError(newFilePlaceProblem(path, "ENOTDIR")!);
  return path;
}

interface Opened {
  end: StoreEnd;
  name: string;
  close(): Promise<void>;
}

/** Opens and migrates the store at `where`: a PostgreSQL URL, or a SQLite file (`create`: a new one). */
async function open(where: string, create: boolean): Promise<Opened> {
  if (isPostgresUrl(where)) {
    const cannotOpen = (err: unknown) => new ExitError(EXIT.failed, `cannot open ${displayedUrl(where)}: ${(err as Error).message}`);
    const { sql } = await openMigratedPostgres(where, 4, cannotOpen);
    return { end: { kind: "postgres", sql }, name: displayedUrl(where), close: () => sql.close() };
  }
  const path = resolve(where);
  if (create && existsSync(path)) throw new UsageError(`${path} exists: the copy goes into a new SQLite file (or an empty PostgreSQL database)`);
  if (!create && !existsSync(path)) throw new ExitError(EXIT.failed, `there is no store at ${path}`);
  const db = openDatabase(path);
  migrate(db);
  return { end: { kind: "sqlite", db, path }, name: path, close: async () => db.close() };
}

function render(r: CopyReport & { from: string; to: string }): string {
  const rows = r.tables.reduce((n, t) => n + t.rows, 0);
  return `copied ${rows} rows of ${r.tables.length} tables from ${r.from} to ${r.to}; both export the same ${r.memories} memories`;
}

const copy = defineCommand({
  meta: {
    name: "copy",
    description:
      "Copy every row of this data directory's store (its SQLite file, or storage.url) into an empty PostgreSQL database or a new SQLite file, then check both export the same",
  },
  args: {
    to: { type: "string", required: true, description: "postgres://user:password@host:5432/database (empty), or the path of a new SQLite file" },
    ...outputArgs,
  },
  async run({ args }) {
    const config = storeConfig();
    const source = config.storage.url ?? databasePath(config.dataDir);
    const target = targetOf(args.to);
    if (target === source) throw new UsageError("--to names the store being copied");
    const lock = daemonStopped(config, "first, so no write lands after the copy's snapshot");
    let from: Opened | undefined;
    let to: Opened | undefined;
    let failed = true;
    try {
      from = await open(source, false);
      to = await open(target, true);
      const shown = { table: "", rows: 0 };
      const report = await copyStore(from.end, to.end, (p) => {
        if (process.stderr.isTTY && (p.table !== shown.table || p.rows - shown.rows >= 5000)) process.stderr.write(`\r\x1b[K${p.table}: ${p.rows} rows`);
        Object.assign(shown, p);
      });
      if (process.stderr.isTTY) process.stderr.write("\r\x1b[K");
      failed = false;
      emit({ ...report, from: from.name, to: to.name }, args, render);
    } catch (err) {
      if (err instanceof StoreCopyError) throw new ExitError(EXIT.failed, err.message);
      throw err;
    } finally {
      await from?.close();
      await to?.close();
      // A new file that did not receive the copy is removed: nothing was in it before.
      if (failed && to?.end.kind === "sqlite") for (const suffix of ["", "-wal", "-shm"]) rmSync(`${to.end.path}${suffix}`, { force: true });
      lock.release();
    }
  },
});

export const store = defineCommand({
  meta: { name: "store", description: COMMAND_DESCRIPTIONS.store },
  subCommands: { copy },
});
