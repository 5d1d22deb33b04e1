// `signet migrate`: apply migrations with the daemon stopped, to the SQLite file or to storage.url's
// PostgreSQL database. With `signet store copy`, the one CLI command that opens the store
// (docs/architecture.md#layers); the daemon's lock keeps this data directory's daemon out meanwhile.
import { defineCommand } from "./command";
import { COMMAND_DESCRIPTIONS } from "./descriptions";
import { databasePath } from "../config/paths";
import { DaemonLock, DaemonRunningError } from "../control/lock";
import { type MigrateResult, migrate as runMigrations } from "../db/migrate";
import { openDatabase } from "../db/open";
import { displayedUrl, postgresUrlProblem, STORAGE_URL_KEY } from "../config/storage-url";
import { openMigratedPostgres } from "../db/postgres";
import { daemonStopped, storeConfig } from "./stopped-store";
import { EXIT, ExitError, UsageError } from "./errors";
import { emit, outputArgs } from "./output";

function migrateFile(path: string): MigrateResult {
  const db = openDatabase(path);
  try {
    return runMigrations(db);
  } finally {
    db.close();
  }
}

/** A shared store: each migration runs under the advisory lock, so daemons starting meanwhile wait for it. */
async function migrateShared(url: string): Promise<MigrateResult> {
  const cannotMigrate = (err: unknown) => new ExitError(EXIT.failed, `cannot migrate ${displayedUrl(url)}: ${(err as Error).message}`);
  const { sql, migrated } = await openMigratedPostgres(url, 1, cannotMigrate);
  await sql.close();
  return migrated;
}

export const migrate = defineCommand({
  meta: { name: "migrate", description: COMMAND_DESCRIPTIONS.migrate },
  args: outputArgs,
  async run({ args }) {
    const config = storeConfig();
    const lock = daemonStopped(config, "first, or let it be: it migrates its store itself at start");
    try {
      const result = config.storage.url ? await migrateShared(config.storage.url) : migrateFile(databasePath(config.dataDir));
      emit(result, args, (r) =>
        r.applied.length ? `applied ${r.applied.join(", ")}; schema version ${r.version}` : `up to date at schema version ${r.version}`,
      );
    } finally {
      lock.release();
    }
  },
});
