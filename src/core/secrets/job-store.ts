// What secret exec jobs need of a store, and the row both stores return: the SQLite one
// (sqlite-job-store.ts) and the PostgreSQL one (postgres-job-store.ts). A job runs on the daemon that
// accepted it (the secrets it injects never leave that daemon); any daemon sharing the store answers
// its status.
import type { ExecStatus } from "../../contracts/secrets";

export interface JobRow {
  id: string;
  status: ExecStatus;
  timeout_ms: number;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  exit_code: number | null;
  timed_out: number | null;
  output_truncated: number | null;
  stdout: string | null;
  stderr: string | null;
  error: string | null;
}

export interface NewJob {
  id: string;
  agentId: string;
  command: string;
  /** The references it injects (JSON), never their values. */
  secrets: string;
  timeoutMs: number;
  at: string;
}

export interface JobOutcome {
  stdout?: string;
  stderr?: string;
  truncated?: boolean;
  exitCode?: number | null;
  timedOut?: boolean;
  error?: string;
}

/** Secret exec jobs, in whichever store the daemon runs on. */
export interface SecretJobStore {
  /**
   * Marks interrupted the jobs this daemon left queued or running when it last stopped (created
   * before `before`, when it started); returns how many.
   */
  interruptLeftover(before: string, error: string, at: string): Promise<number>;
  /** Stores a queued job: accepted means stored. */
  insert(job: NewJob): Promise<void>;
  /** `agentId`'s job `id`; another agent's is none. */
  get(id: string, agentId: string): Promise<JobRow | null>;
  markRunning(id: string, at: string): Promise<void>;
  finish(id: string, status: ExecStatus, outcome: JobOutcome, at: string): Promise<void>;
}

/** A job's outcome as its columns. */
export function outcomeColumns(o: JobOutcome): (string | number | null)[] {
  return [
    o.exitCode ?? null,
    o.timedOut === undefined ? null : Number(o.timedOut),
    o.truncated === undefined ? null : Number(o.truncated),
    o.stdout ?? null,
    o.stderr ?? null,
    o.error ?? null,
  ];
}
