// The throwaway PostgreSQL cluster of a test file (scripts/lib/postgres-cluster.ts), in a temporary
// directory removed after the tests.
import { startPostgresCluster, type PostgresCluster } from "../../scripts/lib/postgres-cluster";
import { tempDir } from "./temp-cleanup";

export { findPostgresBin } from "../../scripts/lib/postgres-cluster";
export type TestPostgres = PostgresCluster;

/** Starts a cluster; the caller stops it (afterAll). */
export function startTestPostgres(): Promise<TestPostgres> {
  return startPostgresCluster(tempDir("signet-pg-"));
}
