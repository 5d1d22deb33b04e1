// The installed MCP servers, in SQLite: one row each, transports stored as written (references
// included), so what the API shows is exactly what the operator gave.
import type { Database } from "bun:sqlite";
import type { InstallServerRequest, InstalledServer, Transport, UpdateServerRequest } from "../../contracts/bridge";
import { SignetError } from "../../contracts/errors";

interface ServerRow {
  name: string;
  transport: "stdio" | "http";
  command: string | null;
  args: string;
  env: string;
  cwd: string | null;
  url: string | null;
  headers: string;
  enabled: number;
  description: string | null;
  created_at: string;
  updated_at: string;
}

function toServer(row: ServerRow): InstalledServer {
  const transport: Transport =
    row.transport === "stdio"
      ? {
          type: "stdio",
          command: row.command!,
          args: JSON.parse(row.args),
          env: JSON.parse(row.env),
          ...(row.cwd ? { cwd: row.cwd } : {}),
        }
      : { type: "http", url: row.url!, headers: JSON.parse(row.headers) };
  return {
    name: row.name,
    transport,
    enabled: row.enabled === 1,
    description: row.description,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function transportColumns(t: Transport) {
  return t.type === "stdio"
    ? { transport: "stdio", command: t.command, args: JSON.stringify(t.args), env: JSON.stringify(t.env), cwd: t.cwd ?? null, url: null, headers: "{}" }
    : { transport: "http", command: null, args: "[]", env: "{}", cwd: null, url: t.url, headers: JSON.stringify(t.headers) };
}

/** Strictly later than `previous`, so a change is always visible as a new updatedAt (the pool keys restarts on it). */
function stamp(previous?: string): string {
  const now = Date.now();
  const prev = previous ? Date.parse(previous) : 0;
  return new Date(Math.max(now, prev + 1)).toISOString();
}

export class ServerRegistry {
  constructor(private readonly db: Database) {}

  list(filter: { enabled?: boolean } = {}): InstalledServer[] {
    const rows =
      filter.enabled === undefined
        ? this.db.query<ServerRow, []>("SELECT * FROM mcp_servers ORDER BY name").all()
        : this.db.query<ServerRow, [number]>("SELECT * FROM mcp_servers WHERE enabled = ? ORDER BY name").all(filter.enabled ? 1 : 0);
    return rows.map(toServer);
  }

  find(name: string): InstalledServer | undefined {
    const row = this.db.query<ServerRow, [string]>("SELECT * FROM mcp_servers WHERE name = ?").get(name);
    return row ? toServer(row) : undefined;
  }

  get(name: string): InstalledServer {
    const server = this.find(name);
    if (!server) throw new SignetError("not_found", `no MCP server named "${name}" is installed (see \`signet mcp list\`)`);
    return server;
  }

  install(req: InstallServerRequest): InstalledServer {
    if (this.find(req.name)) {
      throw new SignetError("exists", `an MCP server named "${req.name}" is already installed: remove it first or update it`);
    }
    const at = stamp();
    const c = transportColumns(req.transport);
    this.db
      .query(
        `INSERT INTO mcp_servers (name, transport, command, args, env, cwd, url, headers, enabled, description, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(req.name, c.transport, c.command, c.args, c.env, c.cwd, c.url, c.headers, req.enabled ? 1 : 0, req.description ?? null, at, at);
    return this.get(req.name);
  }

  update(name: string, req: UpdateServerRequest): InstalledServer {
    const current = this.get(name);
    const c = transportColumns(req.transport ?? current.transport);
    const enabled = req.enabled ?? current.enabled;
    const description = req.description === undefined ? current.description : req.description;
    this.db
      .query(
        `UPDATE mcp_servers SET transport = ?, command = ?, args = ?, env = ?, cwd = ?, url = ?, headers = ?, enabled = ?,
         description = ?, updated_at = ? WHERE name = ?`,
      )
      .run(c.transport, c.command, c.args, c.env, c.cwd, c.url, c.headers, enabled ? 1 : 0, description, stamp(current.updatedAt), name);
    return this.get(name);
  }

  remove(name: string): InstalledServer {
    const server = this.get(name);
    this.db.query("DELETE FROM mcp_servers WHERE name = ?").run(name);
    return server;
  }
}
