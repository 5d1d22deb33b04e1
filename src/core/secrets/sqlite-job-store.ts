// Secret exec jobs (secret_exec_jobs, migration 008) in the daemon's SQLite file, which no other
// daemon shares: every job left queued or running was this daemon's.
import type { Database } from "bun:sqlite";
import type { ExecStatus } from "../../contracts/secrets";
import { type JobOutcome, type JobRow, type NewJob, outcomeColumns, type SecretJobStore } from "./job-store";

export class SqliteSecretJobStore implements SecretJobStore {
  constructor(private readonly db: Database) {}

  async interruptLeftover(before: string, error: string, at: string): Promise<number> {
    return this.db
      .query("UPDATE secret_exec_jobs SET status = 'interrupted', finished_at = ?, error = ? WHERE status IN ('queued', 'running') AND created_at < ?")
      .run(at, error, before).changes;
  }

  async insert(job: NewJob): Promise<void> {
    this.db
      .query("INSERT INTO secret_exec_jobs (id, agent_id, command, secrets, status, timeout_ms, created_at) VALUES (?, ?, ?, ?, 'queued', ?, ?)")
      .run(job.id, job.agentId, job.command, job.secrets, job.timeoutMs, job.at);
  }

  async get(id: string, agentId: string): Promise<JobRow | null> {
    return this.db.query<JobRow, [string, string]>("SELECT * FROM secret_exec_jobs WHERE id = ? AND agent_id = ?").get(id, agentId);
  }

  async markRunning(id: string, at: string): Promise<void> {
    this.db.query("UPDATE secret_exec_jobs SET status = 'running', started_at = ? WHERE id = ?").run(at, id);
  }

  async finish(id: string, status: ExecStatus, outcome: JobOutcome, at: string): Promise<void> {
    this.db
      .query(
        "UPDATE secret_exec_jobs SET status = ?, finished_at = ?, exit_code = ?, timed_out = ?, output_truncated = ?, stdout = ?, stderr = ?, error = ? WHERE id = ?",
      )
      .run(status, at, ...outcomeColumns(outcome), id);
  }
}
