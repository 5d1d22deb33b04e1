-- Installed MCP servers (the bridge registry). args, env and headers are JSON; env and header
-- values may be `secret:NAME` references, resolved only when the server starts.
CREATE TABLE mcp_servers (
  name TEXT PRIMARY KEY,
  transport TEXT NOT NULL CHECK (transport IN ('stdio', 'http')),
  command TEXT,
  args TEXT NOT NULL DEFAULT '[]',
  env TEXT NOT NULL DEFAULT '{}',
  cwd TEXT,
  url TEXT,
  headers TEXT NOT NULL DEFAULT '{}',
  enabled INTEGER NOT NULL DEFAULT 1,
  description TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  CHECK ((transport = 'stdio' AND command IS NOT NULL) OR (transport = 'http' AND url IS NOT NULL))
);

-- Every MCP tool call, exactly as the bridge design document defines it.
CREATE TABLE mcp_invocations (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  server TEXT NOT NULL,
  tool TEXT NOT NULL,
  agent_id TEXT NOT NULL DEFAULT 'default',
  source TEXT NOT NULL CHECK(source IN ('cli', 'agent', 'mcp')),
  latency_ms INTEGER NOT NULL,
  success INTEGER NOT NULL DEFAULT 1,
  error_text TEXT,
  created_at TEXT NOT NULL DEFAULT (datetime('now'))
);
CREATE INDEX idx_mcp_inv_server ON mcp_invocations(server, created_at);
CREATE INDEX idx_mcp_inv_agent ON mcp_invocations(agent_id, created_at);
