// The migration runner: each migration in its own transaction, recorded in schema_migrations.
import type { Database } from "bun:sqlite";
import { MIGRATIONS, type Migration } from "./migrations";

export class SchemaTooNewError extends Error {
  constructor(found: number, known: number) {
    super(
      `the database is at schema version ${found}, newer than this signet understands (up to ${known}); ` +
        "upgrade signet before opening this data directory",
    );
    this.name = "SchemaTooNewError";
  }
}

export interface MigrateResult {
  applied: string[];
  version: number;
}

export function schemaVersion(db: Database): number {
  const table = db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get();
  if (!table) return 0;
  const row = db.query("SELECT MAX(version) AS v FROM schema_migrations").get() as { v: number | null };
  return row.v ?? 0;
}

export function migrate(db: Database, migrations: Migration[] = MIGRATIONS): MigrateResult {
  const known = migrations.reduce((max, m) => Math.max(max, m.version), 0);
  const current = schemaVersion(db);
  if (current > known) throw new SchemaTooNewError(current, known);
  db.run(
    "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)",
  );
  const applied: string[] = [];
  for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
    if (m.version <= current) continue;
    db.transaction(() => {
      db.run(m.sql);
      db.query("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)").run(
        m.version,
        m.name,
        new Date().toISOString(),
      );
    }).immediate();
    applied.push(m.name);
  }
  return { applied, version: Math.max(current, known) };
}
