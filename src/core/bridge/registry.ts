// The installed MCP servers: one row each, transports stored as written (references included), so
// what the API shows is exactly what the operator gave. The rules (a name installed once, a change
// always a later updatedAt) are here; the rows live in either store (sqlite-registry.ts,
// postgres-registry.ts). Daemons sharing a store share the list; each runs the servers it is asked
// for, and hears of the changes the others make (watchOthers), so it closes what they removed,
// disabled or changed.
import type { InstallServerRequest, InstalledServer, Transport, UpdateServerRequest } from "../../contracts/bridge";
import { SignetError } from "../../contracts/errors";

export interface ServerRow {
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

function transportColumns(t: Transport): Pick<ServerRow, "transport" | "command" | "args" | "env" | "cwd" | "url" | "headers"> {
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

/** The mcp_servers rows, in one store. */
export interface ServerRows {
  list(enabled?: boolean): Promise<ServerRow[]>;
  find(name: string): Promise<ServerRow | null>;
  /** False when a server of that name is there already (another daemon may have installed it). */
  insert(row: ServerRow): Promise<boolean>;
  update(row: ServerRow): Promise<void>;
  remove(name: string): Promise<void>;
  /**
   * Tells `changed` the name of each server another daemon sharing the store installs, changes or
   * removes, and null when some may have gone unheard (at the start, and each time the listening
   * connection comes back). This daemon's own changes are not told. Resolves, once listening, with
   * how to stop; a store of one daemon tells nothing.
   */
  watchOthers(changed: (name: string | null) => void): Promise<() => Promise<void>>;
}

export class ServerRegistry {
  constructor(private readonly rows: ServerRows) {}

  async list(filter: { enabled?: boolean } = {}): Promise<InstalledServer[]> {
    return (await this.rows.list(filter.enabled)).map(toServer);
  }

  async find(name: string): Promise<InstalledServer | undefined> {
    const row = await this.rows.find(name);
    return row ? toServer(row) : undefined;
  }

  async get(name: string): Promise<InstalledServer> {
    const server = await this.find(name);
    if (!server) throw new SignetError("not_found", `no MCP server named "${name}" is installed (see \`signet mcp list\`)`);
    return server;
  }

  async install(req: InstallServerRequest): Promise<InstalledServer> {
    const at = stamp();
    const row: ServerRow = {
      name: req.name,
      ...transportColumns(req.transport),
      enabled: req.enabled ? 1 : 0,
      description: req.description ?? null,
      created_at: at,
      updated_at: at,
    };
    if (!(await this.rows.insert(row))) {
      throw new SignetError("exists", `an MCP server named "${req.name}" is already installed: remove it first or update it`);
    }
    return toServer(row);
  }

  async update(name: string, req: UpdateServerRequest): Promise<InstalledServer> {
    const current = await this.get(name);
    const row: ServerRow = {
      name,
      ...transportColumns(req.transport ?? current.transport),
      enabled: (req.enabled ?? current.enabled) ? 1 : 0,
      description: req.description === undefined ? current.description : req.description,
      created_at: current.createdAt,
      updated_at: stamp(current.updatedAt),
    };
    await this.rows.update(row);
    return this.get(name);
  }

  async remove(name: string): Promise<InstalledServer> {
    const server = await this.get(name);
    await this.rows.remove(name);
    return server;
  }

  /** The changes other daemons sharing the store make (ServerRows.watchOthers). */
  watchOthers(changed: (name: string | null) => void): Promise<() => Promise<void>> {
    return this.rows.watchOthers(changed);
  }
}
