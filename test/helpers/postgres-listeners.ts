// For tests of what a daemon misses while its PostgreSQL listening connection is down: a database
// with an administrator's client of the cluster beside it, and the cut of every listening connection
// to it (pg_terminate_backend, as an idle-connection killer or a restart does) kept from coming back
// until the test lets connections in again, so what is notified meanwhile is surely lost.
import type { SQL } from "bun";
import { migratePostgres, openPostgres } from "../../src/db/postgres";
import type { PostgresDatabases } from "./postgres-databases";
import { eventually } from "./wait";

export interface ListenedDatabase {
  url: string;
  name: string;
  /** A new client of the database (closed by `close`). */
  connect(): SQL;
  /** Cuts the database's listening connections and keeps new connections out; resolves to the function that lets them in. */
  cutListeners(): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** A fresh migrated database of `postgres`'s cluster. */
export async function listenedDatabase(postgres: PostgresDatabases): Promise<ListenedDatabase> {
  const url = await postgres.emptyDatabase();
  const name = url.slice(url.lastIndexOf("/") + 1);
  const clients: SQL[] = [];
  const open = (u: string) => {
    const client = openPostgres(u, { max: 2 });
    clients.push(client);
    return client;
  };
  await migratePostgres(open(url));
  // Another database's client: it stays in while the database keeps new connections out.
  const admin = open(url.replace(/\/[^/]+$/, "/postgres"));
  const listening = async () =>
    Number((await admin`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = ${name} AND query LIKE 'LISTEN%'`)[0].n);
  return {
    url,
    name,
    connect: () => open(url),
    async cutListeners() {
      await admin.unsafe(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS false`);
      await admin`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ${name} AND query LIKE 'LISTEN%'`;
      if (!(await eventually(async () => (await listening()) === 0, 5_000))) throw new Error(`the listening connections to ${name} did not end`);
      return async () => {
        await admin.unsafe(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`);
      };
    },
    async close() {
      for (const c of clients.splice(0)) await c.close();
    },
  };
}
