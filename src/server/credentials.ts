// Creates the owner's credentials at first start and loads them afterwards (docs/security.md).
// Each file is created exclusively (never through a planted symlink) with mode 0600.
import { randomBytes } from "node:crypto";
import { readOwnerFile } from "../config/owner-files";
import { daemonFiles } from "../config/paths";
import { writeOwnerOnlyFile } from "../os/owner-only-files";

export interface OwnerCredentials {
  adminToken: string;
  instanceKey: string;
}

function loadOrCreate(path: string): string {
  const existing = readOwnerFile(path);
  if (existing !== null) return existing;
  const value = randomBytes(32).toString("base64url");
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
