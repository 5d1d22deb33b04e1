// Fresh migrated databases for the analytics unit tests, closed with removeDatabases() after the file.
import type { Database } from "bun:sqlite";
import type { AnalyticsResponse } from "../../src/contracts/analytics";
import { migratedDatabase } from "./sqlite";

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

const opened: Database[] = [];

export function migratedDb(): Database {
  const db = migratedDatabase("signet-analytics-");
  opened.push(db);
  return db;
}

/** Closes the databases; their directories go with the test file's (temp-cleanup.ts). */
export function removeDatabases(): void {
  for (const db of opened.splice(0)) db.close();
}

