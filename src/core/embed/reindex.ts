// The re-embedding job (table embed_reindex, docs/api.md#re-embedding): which model everything is
// being re-embedded with, since when, and whether it is done. The work itself is the embedding
// worker's (its queue holds every memory without a vector of the current model); this row is what
// survives a restart, so the count of memories done is recounted from the vectors themselves.
import type { Database } from "bun:sqlite";

export interface ReindexJob {
  model: string;
  /** With `--all`: vectors written before this are redone even when they are of `model`. */
  redoBefore: string | null;
  startedAt: string;
  finishedAt: string | null;
}

interface JobRow {
  model: string;
  redo_before: string | null;
  started_at: string;
  finished_at: string | null;
}

export class ReindexJobs {
  constructor(private readonly db: Database) {}

  current(): ReindexJob | null {
    const row = this.db.query<JobRow, []>("SELECT model, redo_before, started_at, finished_at FROM embed_reindex WHERE id = 1").get();
    return row && { model: row.model, redoBefore: row.redo_before, startedAt: row.started_at, finishedAt: row.finished_at };
  }

  /** Starts a job for `model`, replacing any earlier one. */
  open(model: string, redoBefore: string | null): ReindexJob {
    const job = { model, redoBefore, startedAt: new Date().toISOString(), finishedAt: null };
    this.db
      .query(
        `INSERT INTO embed_reindex (id, model, redo_before, started_at, finished_at) VALUES (1, ?, ?, ?, NULL)
         ON CONFLICT(id) DO UPDATE SET model = excluded.model, redo_before = excluded.redo_before,
           started_at = excluded.started_at, finished_at = NULL`,
      )
      .run(job.model, job.redoBefore, job.startedAt);
    return job;
  }

  finish(job: ReindexJob): void {
    job.finishedAt = new Date().toISOString();
    this.db.query("UPDATE embed_reindex SET finished_at = ? WHERE id = 1").run(job.finishedAt);
  }

  /** Live memories given a vector of the job's model since it started: its work done, across restarts. */
  countDone(job: ReindexJob): number {
    return this.db
      .query<{ n: number }, [string, string]>(
        `SELECT count(*) AS n FROM memory_vectors v JOIN memories m ON m.seq = v.seq
         WHERE v.model = ? AND v.created_at >= ? AND v.content_key = m.content_key AND m.deleted_at IS NULL`,
      )
      .get(job.model, job.startedAt)!.n;
  }
}
