// The installed MCP servers' rows in a PostgreSQL store shared by several daemons: every daemon
// lists the same servers, and a name is installed once however many daemons are asked at once.
// Each change is announced on SERVER_CHANNEL by the statement that makes it (sent when it commits),
// so the other daemons close the processes it leaves without a definition (BridgeService.start).
import { randomUUID } from "node:crypto";
import type { ServerRow, ServerRows } from "./registry";

const COLUMNS = "name, transport, command, args, env, cwd, url, headers, enabled, description, created_at, updated_at";

/** The channel a change is announced on; its payload is `{"by", "name"}`: whose rows made it, and the server's name. */
const SERVER_CHANNEL = "signet_mcp_server_changes";

export class PostgresServerRows implements ServerRows {
  /** Marks this daemon's own announcements, which it does not hear as another's. */
  private readonly origin = randomUUID();

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

  // Each write announces itself only when it changed a row.
  async insert(r: ServerRow): Promise<boolean> {
    const rows = await this.sql`
      WITH stored AS (INSERT INTO mcp_servers ${this.sql(r)} ON CONFLICT (name) DO NOTHING RETURNING name)
      SELECT pg_notify(${SERVER_CHANNEL}, ${this.announcement(r.name)}) FROM stored`;
    return rows.length === 1;
  }

  async update(r: ServerRow): Promise<void> {
    await this.sql`
      WITH changed AS (
        UPDATE mcp_servers SET transport = ${r.transport}, command = ${r.command}, args = ${r.args}, env = ${r.env}, cwd = ${r.cwd},
          url = ${r.url}, headers = ${r.headers}, enabled = ${r.enabled}, description = ${r.description}, updated_at = ${r.updated_at}
        WHERE name = ${r.name} RETURNING name)
      SELECT pg_notify(${SERVER_CHANNEL}, ${this.announcement(r.name)}) FROM changed`;
  }

  async remove(name: string): Promise<void> {
    await this.sql`
      WITH removed AS (DELETE FROM mcp_servers WHERE name = ${name} RETURNING name)
      SELECT pg_notify(${SERVER_CHANNEL}, ${this.announcement(name)}) FROM removed`;
  }

  async watchOthers(changed: (name: string | null) => void): Promise<() => Promise<void>> {
    const subscription = await this.sql.listen(
      SERVER_CHANNEL,
      (payload) => {
        const name = this.othersChange(payload);
        if (name !== undefined) changed(name);
      },
      // Listening again after the connection dropped: what was announced meanwhile went unheard.
      () => changed(null),
    );
    return () => subscription.unlisten();
  }

  private announcement(name: string): string {
    return JSON.stringify({ by: this.origin, name });
  }

  /** The server another daemon's announcement names; undefined for this daemon's own; null for one that cannot be read. */
  private othersChange(payload: string): string | null | undefined {
    try {
      const { by, name } = JSON.parse(payload) as { by?: unknown; name?: unknown };
      if (by === this.origin) return undefined;
      return typeof name === "string" ? name : null;
    } catch {
      return null;
    }
  }
}
