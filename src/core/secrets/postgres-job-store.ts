// Secret exec jobs in a PostgreSQL store shared by several daemons. Each job records the daemon that
// accepted it and runs it (`daemon_id`, PostgreSQL migration 005): a daemon starting again
// interrupts only what it left, never a job another daemon is running.
import type { ExecStatus } from "../../contracts/secrets";
import { type JobOutcome, type JobRow, type NewJob, outcomeColumns, type SecretJobStore } from "./job-store";

export class PostgresSecretJobStore implements SecretJobStore {
  /** `daemonId`: this daemon's lasting id (the same after a restart on the same data directory). */
  constructor(
    private readonly sql: Bun.SQL,
    private readonly daemonId: string,
  ) {}

  async interruptLeftover(before: string, error: string, at: string): Promise<number> {
    const result = await this.sql`
      UPDATE secret_exec_jobs SET status = 'interrupted', finished_at = ${at}, error = ${error}
      WHERE status IN ('queued', 'running') AND daemon_id = ${this.daemonId} AND created_at < ${before}`;
    return result.count;
  }

  async insert(job: NewJob): Promise<void> {
    await this.sql`
      INSERT INTO secret_exec_jobs (id, agent_id, command, secrets, status, timeout_ms, created_at, daemon_id)
      VALUES (${job.id}, ${job.agentId}, ${job.command}, ${job.secrets}, 'queued', ${job.timeoutMs}, ${job.at}, ${this.daemonId})`;
  }

  async get(id: string, agentId: string): Promise<JobRow | null> {
    const [row] = await this.sql<JobRow[]>`SELECT * FROM secret_exec_jobs WHERE id = ${id} AND agent_id = ${agentId}`;
    return row ?? null;
  }

  async markRunning(id: string, at: string): Promise<void> {
    await this.sql`UPDATE secret_exec_jobs SET status = 'running', started_at = ${at} WHERE id = ${id}`;
  }

  async finish(id: string, status: ExecStatus, outcome: JobOutcome, at: string): Promise<void> {
    await this.sql.unsafe(
      `UPDATE secret_exec_jobs SET status = $1, finished_at = $2, exit_code = $3, timed_out = $4, output_truncated = $5, stdout = $6,
         stderr = $7, error = $8 WHERE id = $9`,
      [status, at, ...outcomeColumns(outcome), id],
    );
  }
}
