-- The daemon that accepted a secret exec job and runs it: the secrets a job injects never leave that
-- daemon, and a daemon starting again interrupts only the jobs it left. A lone daemon on SQLite owns
-- every job, so this column has no SQLite twin.
ALTER TABLE secret_exec_jobs ADD COLUMN daemon_id TEXT;
CREATE INDEX idx_secret_exec_jobs_daemon ON secret_exec_jobs(daemon_id, status);
