// Where the daemon keeps its runtime state inside the data directory.
import { join } from "node:path";

export function daemonDir(dataDir: string): string {
  return join(dataDir, ".daemon");
}

export const daemonFiles = (dataDir: string) => ({
  pid: join(daemonDir(dataDir), "daemon.pid"),
  lock: join(daemonDir(dataDir), "daemon.lock"),
  log: join(daemonDir(dataDir), "logs", "daemon.log"),
});
