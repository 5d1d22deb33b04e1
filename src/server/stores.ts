// What the daemon's routes need of its store beyond the services: where it is, a snapshot for an
// export, and the SQLite file itself for what only it has (backup). The services take their own
// stores (each area's store.ts), so the routes never read the database directly.
import type { Database } from "bun:sqlite";
import { type ExportReader, sqliteExportReader } from "../core/transfer/export";

export interface DaemonStores {
  kind: "sqlite" | "postgres";
  /** Where the data is, for messages: the file, or the database's URL without its password. */
  location: string;
  /** The SQLite file itself, for what only it has (backup); null on PostgreSQL. */
  sqlite: Database | null;
  /** A snapshot of the memories, on a connection of its own, for an export. */
  exportReader(): Promise<ExportReader>;
}

/** The daemon's SQLite file at `path`, open as `db`. */
export function sqliteStores(db: Database, path: string): DaemonStores {
  return { kind: "sqlite", location: path, sqlite: db, exportReader: async () => sqliteExportReader(path) };
}
