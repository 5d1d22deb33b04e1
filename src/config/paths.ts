// The data directory's layout, in one place: every process (daemon, CLI, signet-mcp) finds the same
// files here (docs/config.md#data-directory).
import { join } from "node:path";

export function configPath(dataDir: string): string {
  return join(dataDir, "agent.yaml");
}

export function databasePath(dataDir: string): string {
  return join(dataDir, "memory", "memories.db");
}

export function daemonDir(dataDir: string): string {
  return join(dataDir, ".daemon");
}

/** The secret store (docs/security.md#secrets): the daemon's alone, 0700. */
export function secretsDir(dataDir: string): string {
  return join(dataDir, ".secrets");
}

export const daemonFiles = (dataDir: string) => ({
  pid: join(daemonDir(dataDir), "daemon.pid"),
  lock: join(daemonDir(dataDir), "daemon.lock"),
  log: join(daemonDir(dataDir), "logs", "daemon.log"),
  /** Bridged servers' processes while they run, for the sweep after a crash. */
  bridgeChildren: join(daemonDir(dataDir), "bridge-children.json"),
  /** The owner's credentials (docs/security.md#the-owners-credentials). */
  adminToken: join(daemonDir(dataDir), "admin.token"),
  instanceKey: join(daemonDir(dataDir), "instance.key"),
  /** This daemon's lasting id, among the daemons sharing a PostgreSQL store. */
  daemonId: join(daemonDir(dataDir), "daemon.id"),
  /** The last validated configuration, for `signet hook` (src/config/cache.ts). */
  configCache: join(daemonDir(dataDir), "config-cache.json"),
});

/** The projects `signet index` indexed (docs/code.md#which-project-answers): the code tools answer from their indexes. */
export function codeProjectsPath(dataDir: string): string {
  return join(dataDir, "code", "projects.json");
}
