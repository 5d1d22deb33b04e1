// Creates the owner's credentials and the daemon's lasting id at first start and loads them
// afterwards (docs/security.md). Each file is created exclusively (never through a planted symlink)
// with mode 0600.
import { randomBytes } from "node:crypto";
import { readOwnerFile } from "../config/owner-files";
import { daemonFiles } from "../config/paths";
import { writeOwnerOnlyFile } from "../os/owner-only-files";

export interface OwnerCredentials {
  adminToken: string;
  instanceKey: string;
}

function loadOrCreate(path: string, make = () => randomBytes(32).toString("base64url")): string {
  const existing = readOwnerFile(path);
  if (existing !== null) return existing;
  const value = make();
  try {
    writeOwnerOnlyFile(path, `${value}\n`, { exclusive: true });
    return value;
  } catch (err) {
    // Something unreadable sits there (an empty file, a link): say what is in the way.
    throw new Error(`${path} exists but cannot be read as this account's credential (${(err as Error).message}); remove it and start again`);
  }
}

export function ownerCredentials(dataDir: string): OwnerCredentials {
  const files = daemonFiles(dataDir);
  return { adminToken: loadOrCreate(files.adminToken), instanceKey: loadOrCreate(files.instanceKey) };
}

/**
 * This daemon's id, the same after every restart on its data directory: in a store several daemons
 * share, it marks what only this daemon may take up again (its secret exec jobs).
 */
export function lastingDaemonId(dataDir: string): string {
  return loadOrCreate(daemonFiles(dataDir).daemonId, () => `d_${randomBytes(8).toString("hex")}`);
}
