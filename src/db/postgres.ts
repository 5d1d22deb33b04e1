// The PostgreSQL store's connection and migrations. Several daemons share one database, and any of
// them may start first or at the same moment: each migration runs in one transaction holding a
// transaction-level advisory lock, and reads the schema version again under it, so two daemons
// starting together migrate once and the second finds the work done.
import { type MigrateResult, SchemaTooNewError } from "./migrate";
import { POSTGRES_MIGRATIONS } from "./postgres-migrations";

/** The advisory lock every Signet daemon takes to migrate a database ("signet" as an integer). */
const MIGRATION_LOCK = 0x7369676e;

/** A pooled client of the database at `url` (`postgres://` or `postgresql://`). */
export function openPostgres(url: string, options: { max?: number } = {}): Bun.SQL {
  return new Bun.SQL(url, { max: options.max ?? 10, connectionTimeout: 10 });
}

/**
 * A pooled client of the database at `url`, its schema brought up to date. Any failure is `failed(err)`,
 * the pool closed: Bun's client refuses some of the URL's options at once (an unknown sslmode, a port
 * out of range), the rest at the first query.
 */
export async function openMigratedPostgres(
  url: string,
  max: number,
  failed: (err: unknown) => Error,
): Promise<{ sql: Bun.SQL; migrated: MigrateResult }> {
  let sql: Bun.SQL;
  try {
    sql = openPostgres(url, { max });
  } catch (err) {
    throw failed(err);
  }
  try {
    return { sql, migrated: await migratePostgres(sql) };
  } catch (err) {
    await sql.close();
    throw failed(err);
  }
}

async function versionOf(sql: Bun.SQL): Promise<number> {
  const [table] = await sql`SELECT to_regclass('schema_migrations') IS NOT NULL AS present`;
  if (!table.present) return 0;
  const [row] = await sql`SELECT COALESCE(MAX(version), 0)::int AS v FROM schema_migrations`;
  return row.v as number;
}

/** Applies the migrations the database lacks, each under the migration lock; refuses a newer schema. */
export async function migratePostgres(sql: Bun.SQL): Promise<MigrateResult> {
  const known = POSTGRES_MIGRATIONS.reduce((max, m) => Math.max(max, m.version), 0);
  const applied: string[] = [];
  for (const m of [...POSTGRES_MIGRATIONS].sort((a, b) => a.version - b.version)) {
    const ran = await sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`;
      await tx`CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`;
      const current = await versionOf(tx);
      if (current > known) throw new SchemaTooNewError(current, known);
      if (m.version <= current) return false;
      await tx.unsafe(m.sql);
      await tx`INSERT INTO schema_migrations (version, name, applied_at) VALUES (${m.version}, ${m.name}, ${new Date().toISOString()})`;
      return true;
    });
    if (ran) applied.push(m.name);
  }
  // Each migration refused a newer schema and ran the ones missing: the database is now at `known`.
  return { applied, version: known };
}
