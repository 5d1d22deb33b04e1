// Fresh migrated databases for the analytics unit tests, removed with removeDatabases() after the file.
import type { Database } from "bun:sqlite";
import { rmSync } from "node:fs";
import type { AnalyticsResponse } from "../../src/contracts/analytics";
import { join } from "node:path";
import { migrate } from "../../src/db/migrate";
import { openDatabase } from "../../src/db/open";
import { tempDir } from "./daemon";

/** The answer when nothing matches. */
export const NO_CALLS: AnalyticsResponse = {
  totalCalls: 0,
  successCount: 0,
  failureCount: 0,
  failureRate: 0,
  latency: { p50: null, p95: null },
  topServers: [],
  topTools: [],
  agents: [],
  timeline: [],
};

const opened: { db: Database; dir: string }[] = [];

export function migratedDb(): Database {
  const dir = tempDir("signet-analytics-");
  const db = openDatabase(join(dir, "memories.db"));
  migrate(db);
  opened.push({ db, dir });
  return db;
}

export function removeDatabases(): void {
  for (const { db, dir } of opened.splice(0)) {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

