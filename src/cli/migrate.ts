// `signet migrate`: apply migrations with the daemon stopped. The one CLI command that opens the
// database (docs/architecture.md#layers); the daemon's lock keeps a running daemon out meanwhile.
import { defineCommand } from "citty";
import { databasePath } from "../config/paths";
import { DaemonLock, DaemonRunningError } from "../control/lock";
import { migrate as runMigrations } from "../db/migrate";
import { openDatabase } from "../db/open";
import { configFromFlags } from "./context";
import { EXIT, ExitError } from "./errors";
import { emit, outputArgs } from "./output";

export const migrate = defineCommand({
  meta: { name: "migrate", description: "Apply database migrations with the daemon stopped" },
  args: outputArgs,
  async run({ args }) {
    const config = configFromFlags({});
    let lock: DaemonLock;
    try {
      lock = DaemonLock.acquire(config.dataDir);
    } catch (err) {
      if (err instanceof DaemonRunningError) {
        throw new ExitError(EXIT.failed, `${err.message}; the daemon migrates at start, or stop it before \`signet migrate\``);
      }
      throw err;
    }
    try {
      const db = openDatabase(databasePath(config.dataDir));
      try {
        const result = runMigrations(db);
        emit(result, args, (r) =>
          r.applied.length ? `applied ${r.applied.join(", ")}; schema version ${r.version}` : `up to date at schema version ${r.version}`,
        );
      } finally {
        db.close();
      }
    } finally {
      lock.release();
    }
  },
});
