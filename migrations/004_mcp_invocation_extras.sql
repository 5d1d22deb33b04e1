-- Columns beyond the design document's table: the caller's session, and which client made a `cli`
-- call (the terminal bridge or the dashboard).
ALTER TABLE mcp_invocations ADD COLUMN session_key TEXT;
ALTER TABLE mcp_invocations ADD COLUMN client TEXT;
-- Retention prunes by age.
CREATE INDEX idx_mcp_inv_created ON mcp_invocations(created_at);

-- Daily rollups, written with the raw rows and kept after those are pruned, so "no call in 30
-- days" stays answerable. day is YYYY-MM-DD (UTC); last_at the newest call's created_at.
CREATE TABLE mcp_invocation_daily (
  day TEXT NOT NULL,
  server TEXT NOT NULL,
  tool TEXT NOT NULL,
  agent_id TEXT NOT NULL,
  source TEXT NOT NULL,
  calls INTEGER NOT NULL,
  failures INTEGER NOT NULL,
  latency_ms_total INTEGER NOT NULL,
  last_at TEXT NOT NULL,
  PRIMARY KEY (day, server, tool, agent_id, source)
) WITHOUT ROWID;
CREATE INDEX idx_mcp_daily_server ON mcp_invocation_daily(server, tool, day);
