// For a test file of the PostgreSQL store: one throwaway cluster (postgres.ts) started before the
// file's tests and stopped after them, with every client opened through it closed first. Where the
// machine has no PostgreSQL, `available` is false and the file's PostgreSQL tests are skipped (or,
// in CI, fail: system-tool.ts).
import { afterAll, beforeAll } from "bun:test";
import type { SQL } from "bun";
import { migratePostgres, openPostgres } from "../../src/db/postgres";
import { startTestPostgres, type TestPostgres } from "./postgres";
import { hasSystemTool } from "./system-tool";

export interface PostgresDatabases {
  available: boolean;
  /** Stops the file's cluster at once, waits `downMs`, and starts it again on the same data and port. */
  restart(downMs?: number): Promise<void>;
  /** A fresh, migrated database; returns how to open a client of it (one per "daemon"). */
  database(options?: { max?: number }): Promise<() => SQL>;
  /** The URL of a fresh, empty database (what a daemon or `signet store copy` migrates itself). */
  emptyDatabase(): Promise<string>;
}

export function postgresDatabases(): PostgresDatabases {
  const available = hasSystemTool("postgres");
  let pg: TestPostgres | undefined;
  const clients: SQL[] = [];
  beforeAll(async () => {
    if (available) pg = await startTestPostgres();
  });
  afterAll(async () => {
    for (const c of clients.splice(0)) await c.close();
    await pg?.stop();
  });
  return {
    available,
    restart: (downMs) => pg!.restart(downMs),
    emptyDatabase: () => pg!.createDatabase(),
    async database(options = {}) {
      const url = await pg!.createDatabase();
      const connect = () => {
        const client = openPostgres(url, options);
        clients.push(client);
        return client;
      };
      await migratePostgres(connect());
      return connect;
    },
  };
}

/** How many connections to `sql`'s database are listening on a channel now (a listener left behind shows here). */
export async function listeningConnections(sql: SQL): Promise<number> {
  const [row] = await sql`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'`;
  return Number(row.n);
}
