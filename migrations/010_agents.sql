-- Cross-agent messages (docs/api.md#cross-agent). `id` is the event id of the live stream
-- (GET /api/cross-agent/stream): AUTOINCREMENT so an id is never handed out twice and a client's
-- Last-Event-ID always means "everything after this". A message has one target: `to_agent_id`
-- (for a session target, the agent that holds the session, resolved when it is sent), or
-- `broadcast`; a relayed-only ACP message has neither. Presence lives in agent_presence (005).
CREATE TABLE agent_messages (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  created_at TEXT NOT NULL,
  type TEXT NOT NULL CHECK (type IN ('assist_request', 'decision_update', 'info', 'question')),
  content TEXT NOT NULL,
  from_agent_id TEXT NOT NULL,
  from_session_key TEXT,
  to_agent_id TEXT,
  to_session_key TEXT,
  broadcast INTEGER NOT NULL DEFAULT 0,
  via TEXT NOT NULL CHECK (via IN ('local', 'acp')),
  -- local: delivered when stored; acp: pending until the ACP server answers, then delivered or failed.
  delivery_status TEXT NOT NULL CHECK (delivery_status IN ('delivered', 'pending', 'failed')),
  delivery_error TEXT,
  acp_base_url TEXT,
  acp_target_agent_name TEXT,
  acp_run_id TEXT
);
CREATE INDEX idx_agent_messages_to ON agent_messages(to_agent_id, id);
CREATE INDEX idx_agent_messages_from ON agent_messages(from_agent_id, id);
CREATE INDEX idx_agent_messages_broadcast ON agent_messages(broadcast, id);

-- Acknowledgements, per reading agent: a broadcast is read by many.
CREATE TABLE agent_message_acks (
  message_id INTEGER NOT NULL,
  agent_id TEXT NOT NULL,
  acked_at TEXT NOT NULL,
  PRIMARY KEY (message_id, agent_id)
) WITHOUT ROWID;

CREATE INDEX idx_agent_presence_seen ON agent_presence(last_seen_at);
