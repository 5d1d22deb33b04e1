// What the daemon's routes need of its store beyond the services: a snapshot for an export, and
// the SQLite file itself for what only it has (backup). The services take their own stores (each
// area's store.ts), so the routes never read the database directly.
import type { Database } from "bun:sqlite";
import { type ExportReader, sqliteExportReader } from "../core/transfer/export";

export interface DaemonStores {
  /** The SQLite file itself, for what only it has (backup). */
  sqlite: Database;
  /** A snapshot of the memories, on a connection of its own, for an export. */
  exportReader(): Promise<ExportReader>;
}

/** The daemon's SQLite file at `path`, open as `db`. */
export function sqliteStores(db: Database, path: string): DaemonStores {
  return { sqlite: db, exportReader: async () => sqliteExportReader(path) };
}
