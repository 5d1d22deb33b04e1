-- The harness process a session runs in, as `<pid>:<start time>` (the start time tells a reused pid
-- apart): the hooks report it, and signet-mcp, a child of the same process, finds its session by it
-- (GET /api/sessions?harness_process=).
ALTER TABLE sessions ADD COLUMN harness_process TEXT;
CREATE INDEX idx_sessions_harness_process ON sessions(agent_id, harness_process) WHERE harness_process IS NOT NULL;

-- Which session of the receiving agent a message was injected into by the prompt hook
-- (docs/api.md#messages-at-the-prompt). Each session gets a message once; a message to the agent
-- reaches the agent's sessions that had started when it first reached one of them.
CREATE TABLE agent_message_deliveries (
  message_id INTEGER NOT NULL,
  agent_id TEXT NOT NULL,
  session_key TEXT NOT NULL,
  delivered_at TEXT NOT NULL,
  PRIMARY KEY (message_id, agent_id, session_key)
) WITHOUT ROWID;
