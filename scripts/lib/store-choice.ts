// Where a benchmark's daemons keep their data: each its own SQLite file (the default), or with
// --postgres one database each on a throwaway PostgreSQL 15 cluster (postgres-cluster.ts), started
// at the first daemon that needs it and stopped with stop().
import { makeTempDir } from "./daemon";
import { startPostgresCluster, type PostgresCluster } from "./postgres-cluster";

export interface StoreChoice {
  kind: "sqlite" | "postgres";
  /** The environment that puts the next daemon on its store (SIGNET_DATABASE_URL of a new database, or nothing). */
  env(): Promise<Record<string, string>>;
  /** Has PostgreSQL gather the planner's statistics of the database at `url` now. */
  analyze(url: string): Promise<void>;
  stop(): Promise<void>;
}

export function storeChoice(postgres: boolean): StoreChoice {
  let cluster: Promise<PostgresCluster> | undefined;
  return {
    kind: postgres ? "postgres" : "sqlite",
    async env(): Promise<Record<string, string>> {
      if (!postgres) return {};
      cluster ??= startPostgresCluster(makeTempDir("signet-bench-pg-"));
      return { SIGNET_DATABASE_URL: await (await cluster).createDatabase() };
    },
    async analyze(url) {
      const sql = new Bun.SQL(url, { max: 1 });
      try {
        await sql`ANALYZE`;
      } finally {
        await sql.close();
      }
    },
    async stop() {
      await (await cluster)?.stop();
    },
  };
}
