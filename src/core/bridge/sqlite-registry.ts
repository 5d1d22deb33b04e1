// The installed MCP servers' rows in the daemon's SQLite file, which no other daemon changes.
import type { Database } from "bun:sqlite";
import type { ServerRow, ServerRows } from "./registry";

const COLUMNS = "name, transport, command, args, env, cwd, url, headers, enabled, description, created_at, updated_at";

export class SqliteServerRows implements ServerRows {
  constructor(private readonly db: Database) {}

  async list(enabled?: boolean): Promise<ServerRow[]> {
    return enabled === undefined
      ? this.db.query<ServerRow, []>(`SELECT ${COLUMNS} FROM mcp_servers ORDER BY name`).all()
      : this.db.query<ServerRow, [number]>(`SELECT ${COLUMNS} FROM mcp_servers WHERE enabled = ? ORDER BY name`).all(enabled ? 1 : 0);
  }

  async find(name: string): Promise<ServerRow | null> {
    return this.db.query<ServerRow, [string]>(`SELECT ${COLUMNS} FROM mcp_servers WHERE name = ?`).get(name);
  }

  async insert(r: ServerRow): Promise<boolean> {
    const { changes } = this.db
      .query(`INSERT INTO mcp_servers (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (name) DO NOTHING`)
      .run(r.name, r.transport, r.command, r.args, r.env, r.cwd, r.url, r.headers, r.enabled, r.description, r.created_at, r.updated_at);
    return changes === 1;
  }

  async update(r: ServerRow): Promise<void> {
    this.db
      .query(
        `UPDATE mcp_servers SET transport = ?, command = ?, args = ?, env = ?, cwd = ?, url = ?, headers = ?, enabled = ?,
         description = ?, updated_at = ? WHERE name = ?`,
      )
      .run(r.transport, r.command, r.args, r.env, r.cwd, r.url, r.headers, r.enabled, r.description, r.updated_at, r.name);
  }

  async remove(name: string): Promise<void> {
    this.db.query("DELETE FROM mcp_servers WHERE name = ?").run(name);
  }

  async watchOthers(): Promise<() => Promise<void>> {
    return async () => {};
  }
}
