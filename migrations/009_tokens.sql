-- API tokens for team and hybrid modes (docs/security.md#tokens). Only the SHA-256 of a token is
-- stored: the token itself is shown once, when it is created. An agent token names its agent.
-- Times are ISO-8601 UTC; expires_at NULL never expires; revoked_at set means refused from then on.
CREATE TABLE api_tokens (
  id TEXT PRIMARY KEY,
  hash TEXT NOT NULL UNIQUE,
  role TEXT NOT NULL CHECK (role IN ('admin', 'operator', 'agent', 'readonly')),
  agent_id TEXT,
  name TEXT,
  created_at TEXT NOT NULL,
  expires_at TEXT,
  revoked_at TEXT,
  CHECK ((role = 'agent') = (agent_id IS NOT NULL))
);
