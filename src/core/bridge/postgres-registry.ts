// The installed MCP servers' rows in a PostgreSQL store shared by several daemons: every daemon
// lists the same servers, and a name is installed once however many daemons are asked at once.
import type { ServerRow, ServerRows } from "./registry";

const COLUMNS = "name, transport, command, args, env, cwd, url, headers, enabled, description, created_at, updated_at";

export class PostgresServerRows implements ServerRows {
  constructor(private readonly sql: Bun.SQL) {}

  list(enabled?: boolean): Promise<ServerRow[]> {
    return enabled === undefined
      ? this.sql.unsafe(`SELECT ${COLUMNS} FROM mcp_servers ORDER BY name`)
      : this.sql.unsafe(`SELECT ${COLUMNS} FROM mcp_servers WHERE enabled = $1 ORDER BY name`, [enabled ? 1 : 0]);
  }

  async find(name: string): Promise<ServerRow | null> {
    const rows: ServerRow[] = await this.sql.unsafe(`SELECT ${COLUMNS} FROM mcp_servers WHERE name = $1`, [name]);
    return rows[0] ?? null;
  }

  async insert(r: ServerRow): Promise<boolean> {
    const rows = await this.sql`INSERT INTO mcp_servers ${this.sql(r)} ON CONFLICT (name) DO NOTHING RETURNING name`;
    return rows.length === 1;
  }

  async update(r: ServerRow): Promise<void> {
    await this.sql`
      UPDATE mcp_servers SET transport = ${r.transport}, command = ${r.command}, args = ${r.args}, env = ${r.env}, cwd = ${r.cwd},
        url = ${r.url}, headers = ${r.headers}, enabled = ${r.enabled}, description = ${r.description}, updated_at = ${r.updated_at}
      WHERE name = ${r.name}`;
  }

  async remove(name: string): Promise<void> {
    await this.sql`DELETE FROM mcp_servers WHERE name = ${name}`;
  }
}
