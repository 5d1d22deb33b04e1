// What `signet migrate` and `signet store copy` share: they work on the data directory's store
// itself, so its storage.url must be one they can open, and its daemon must be stopped meanwhile.
import type { Config } from "../config/schema";
import { postgresUrlProblem, STORAGE_URL_KEY } from "../config/storage-url";
import { DaemonLock, DaemonRunningError } from "../control/lock";
import { configFromFlags } from "./context";
import { EXIT, ExitError, UsageError } from "./errors";

/** The configuration, refused (exit 2) when its storage.url is not a PostgreSQL URL. */
export function storeConfig(): Config {
  const config = configFromFlags({});
  const invalid = config.storage.url ? postgresUrlProblem(config.storage.url, STORAGE_URL_KEY) : null;
  if (invalid) throw new UsageError(invalid);
  return config;
}

/** The daemon's lock of `config`'s data directory; a running daemon fails the command (exit 1), saying `why` it must stop. */
export function daemonStopped(config: Config, why: string): DaemonLock {
  try {
    return DaemonLock.acquire(config.dataDir);
  } catch (err) {
    if (err instanceof DaemonRunningError) throw new ExitError(EXIT.failed, `${err.message} ${why}`);
    throw err;
  }
}
