// A fresh SQLite store for a test: the daemon's file in a temporary directory (removed after the
// test file, temp-cleanup.ts), with every migration applied.
import type { Database } from "bun:sqlite";
import { join } from "node:path";
import { migrate } from "../../src/db/migrate";
import { openDatabase } from "../../src/db/open";
import { tempDir } from "./temp-cleanup";

export function migratedDatabase(prefix?: string): Database {
  const db = openDatabase(join(tempDir(prefix), "memories.db"));
  migrate(db);
  return db;
}
