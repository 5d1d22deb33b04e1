-- Secret exec jobs (docs/api.md#secret-exec). Output is stored redacted, never as the process wrote
-- it; `secrets` holds the env names and their references (never values). A job still queued or
-- running when its daemon stopped is marked interrupted at the next start.
CREATE TABLE secret_exec_jobs (
  id TEXT PRIMARY KEY,
  agent_id TEXT NOT NULL,
  command TEXT NOT NULL,
  secrets TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'failed', 'interrupted')),
  timeout_ms INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  started_at TEXT,
  finished_at TEXT,
  exit_code INTEGER,
  timed_out INTEGER,
  output_truncated INTEGER,
  stdout TEXT,
  stderr TEXT,
  error TEXT
);
CREATE INDEX idx_secret_exec_jobs_status ON secret_exec_jobs(status);
CREATE INDEX idx_secret_exec_jobs_created ON secret_exec_jobs(created_at);
