// Secret exec jobs (docs/api.md#secret-exec): a command queued with secrets to inject, run by the
// daemon with `/bin/sh -c` in a minimal environment, its output redacted as it streams, bounded in
// time, output, concurrency and queue length. Jobs are rows of the store (job-store.ts): accepted
// means stored, and each is its agent's alone.
// Where bubblewrap works, a job runs in a sandbox (os/sandbox.ts) that cannot see the data
// directory, the daemon's /proc entry or its environment, and whose PID namespace ends everything
// the job started when its shell exits. Each job leads its own process group and session; a timeout
// ends the group, and what left it (setsid, unsandboxed) is found by its marker and ended when the
// shell exits (core/bridge/server-processes.ts), after a crash by the next start's sweep
// (child-ledger.ts). No process outlives its job.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import type { Readable } from "node:stream";
import { inspect } from "node:util";
import { SignetError, notFound } from "../../contracts/errors";
import { DEFAULT_EXEC_TIMEOUT_SECONDS, type ExecAccepted, type ExecJob, type ExecRequest, type ExecStatus } from "../../contracts/secrets";
import type { Logger } from "../../logger";
import { INFO_FD, sandboxArgv, sandboxChildPid, type Sandbox } from "../../os/sandbox";
import { MARKER_ENV, ServerProcesses, type ProcessLedger } from "../bridge/server-processes";
import type { JobOutcome, SecretJobStore } from "./job-store";
import { Redactor, redactText } from "./redactor";
import { parseReference, type Reference, type ReferenceResolver } from "./references";

export const EXEC_LIMITS = {
  /** Jobs running at once; more wait in the queue. */
  maxConcurrent: 4,
  /** Jobs waiting; one more is refused with 503 queue_full. */
  maxQueued: 32,
  /** Redacted output kept per stream; the rest is read and dropped (outputTruncated). */
  maxOutputBytes: 1024 * 1024,
};
/** Between SIGTERM to a timed-out job's group and SIGKILL. */
const TERM_GRACE_MS = 2000;
/** How long the pipes may stay open after the shell exited (held by something that left the group). */
const PIPE_GRACE_MS = 1000;

export interface SecretExecOptions {
  jobs: SecretJobStore;
  resolver: ReferenceResolver;
  log: Logger;
  ledger?: ProcessLedger;
  limits?: Partial<typeof EXEC_LIMITS>;
  /** The sandbox jobs run in, asked for at each job; null where none works here: jobs then run as the account, seeing what it sees. */
  sandbox: () => Sandbox | null;
  /** Kept out of a sandboxed job's sight (the data directory). */
  hide: string[];
  /** Directories a sandboxed job may write besides its private /tmp (`secrets.execWritable`). */
  writable: string[];
  /** `secrets.execUnsandboxed`: callers that need a sandbox may run jobs without one. */
  allowUnsandboxed: boolean;
}

/** Who queues a job: its agent, and whether the caller may run a job only in a sandbox (an API token in team or hybrid mode). */
export interface ExecCaller {
  agentId: string;
  needsSandbox: boolean;
}

interface Queued {
  id: string;
  command: string;
  /** The references as given, to name one in an error. */
  given: Record<string, string>;
  refs: Record<string, Reference>;
  timeoutMs: number;
}

/** A job taken from the queue: `stopping` set by the daemon's stop, `kill` ends its process group once it has one. */
interface Running {
  stopping: boolean;
  kill(): void;
  done: Promise<void>;
}

/** PATH, HOME and LANG, and nothing else of the daemon's environment. */
export function minimalEnv(): { PATH: string; HOME: string; LANG: string } {
  return {
    PATH: process.env.PATH || "/usr/local/bin:/usr/bin:/bin",
    HOME: homedir(),
    LANG: process.env.LANG || "C.UTF-8",
  };
}

const now = () => new Date().toISOString();

/**
 * Why the resolved values cannot be injected, or null when they can. An environment variable is a C
 * string: a value with a NUL byte (which a store from before such values were refused may hold, or a
 * password manager may return) would make spawning fail with an error that quotes the value.
 */
function uninjectable(values: Record<string, string>, given: Record<string, string>): string | null {
  const env = Object.keys(values).find((k) => values[k]!.includes("\0"));
  if (env === undefined) return null;
  return `the secret ${given[env]} (for ${env}) contains a NUL byte, which an environment variable cannot carry: set it again without one (binary data goes in as base64)`;
}

/**
 * Text about a job that failed while its values were in the environment, fit to keep and log: the
 * values redacted, as written and as error messages quote them (escaped, as inspect writes them).
 */
function redactedError(text: string, values: Record<string, string>): string {
  const quoted = (v: string) => [inspect(v, { maxStringLength: Infinity }).slice(1, -1), JSON.stringify(v).slice(1, -1)];
  const forms = Object.values(values).flatMap((v) => [v, ...quoted(v)]);
  return redactText(text, forms);
}

/** Everything a pipe carries until it closes ("" when it fails). */
function readAll(stream: Readable): Promise<string> {
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    stream.on("data", (d: Buffer) => parts.push(d));
    stream.once("error", () => resolve(""));
    stream.once("close", () => resolve(Buffer.concat(parts).toString("utf8")));
  });
}

/** One output stream of a job: decoded, redacted as it comes, kept up to the cap. */
class Capture {
  private readonly decoder = new TextDecoder();
  private readonly parts: string[] = [];
  private bytes = 0;
  truncated = false;

  constructor(
    private readonly redactor: Redactor,
    private readonly max: number,
  ) {}

  push(chunk: Buffer): void {
    // Past the cap the output is only drained: nothing of it is kept, so nothing needs redacting.
    if (this.truncated) return;
    this.keep(this.redactor.push(this.decoder.decode(chunk, { stream: true })));
  }

  text(): string {
    this.keep(this.redactor.push(this.decoder.decode()) + this.redactor.end());
    return this.parts.join("");
  }

  private keep(text: string): void {
    if (text === "" || this.truncated) return;
    const size = Buffer.byteLength(text);
    if (this.bytes + size <= this.max) {
      this.parts.push(text);
      this.bytes += size;
      return;
    }
    this.parts.push(Buffer.from(text).subarray(0, this.max - this.bytes).toString("utf8"));
    this.bytes = this.max;
    this.truncated = true;
  }
}

export class SecretExecService {
  private readonly limits: typeof EXEC_LIMITS;
  private readonly queue: Queued[] = [];
  private readonly running = new Map<string, Running>();
  private readonly processes: ServerProcesses;
  private stopped = false;
  /** Submits whose job is being stored: queued as soon as it is. */
  private storing = 0;
  private readonly startedAt = now();

  constructor(private readonly options: SecretExecOptions) {
    this.limits = { ...EXEC_LIMITS, ...options.limits };
    this.processes = new ServerProcesses(options.ledger);
  }

  /** Marks interrupted what this daemon left queued or running when it last stopped. */
  async start(): Promise<void> {
    const interrupted = await this.options.jobs.interruptLeftover(this.startedAt, "the daemon stopped before this job finished; run it again", now());
    if (interrupted > 0) this.options.log.warn(`${interrupted} secret exec job(s) were interrupted when the daemon last stopped`);
  }

  /** Queues a job: stored before this resolves. Malformed references are a 400; a full queue is 503 queue_full. */
  async submit(req: ExecRequest, caller: ExecCaller): Promise<ExecAccepted> {
    if (this.stopped) throw new SignetError("unavailable", "the daemon is stopping; run the command again once it is back");
    if (caller.needsSandbox && !this.options.sandbox() && !this.options.allowUnsandboxed) {
      throw new SignetError(
        "forbidden",
        "secret exec from an API token runs only in a sandbox, and none works on this machine (signet doctor says why): install bubblewrap, or let the owner set secrets.execUnsandboxed: true",
      );
    }
    const refs: Record<string, Reference> = {};
    for (const [env, ref] of Object.entries(req.secrets)) refs[env] = parseReference(ref, env);
    // The queue holds jobs only while every slot is taken (pump fills free ones at once); jobs being
    // stored count as queued already, so submits at once cannot pass the cap together.
    if (this.running.size >= this.limits.maxConcurrent && this.queue.length + this.storing >= this.limits.maxQueued) {
      throw new SignetError(
        "queue_full",
        `${this.limits.maxConcurrent} secret exec jobs are running and ${this.limits.maxQueued} are waiting: try again when some have finished`,
      );
    }
    const job: Queued = {
      id: randomUUID(),
      command: req.command,
      given: req.secrets,
      refs,
      timeoutMs: Math.round((req.timeoutSeconds ?? DEFAULT_EXEC_TIMEOUT_SECONDS) * 1000),
    };
    this.storing++;
    try {
      await this.options.jobs.insert({ id: job.id, agentId: caller.agentId, command: job.command, secrets: JSON.stringify(req.secrets), timeoutMs: job.timeoutMs, at: now() });
    } finally {
      this.storing--;
    }
    // The daemon may have begun stopping while the job was stored: it is marked interrupted, not run.
    if (this.stopped) {
      await this.finish(job.id, "interrupted", { error: "the daemon stopped before this job ran" });
      return { id: job.id, status: "queued", timeoutMs: job.timeoutMs };
    }
    this.queue.push(job);
    this.pump();
    return { id: job.id, status: "queued", timeoutMs: job.timeoutMs };
  }

  /** Another agent's job is not found: its id says nothing to the caller. */
  async get(id: string, agentId: string): Promise<ExecJob> {
    const row = await this.options.jobs.get(id, agentId);
    if (!row) throw notFound(`secret exec job ${id}`);
    const job: ExecJob = {
      id: row.id,
      status: row.status,
      timeoutMs: row.timeout_ms,
      createdAt: row.created_at,
      startedAt: row.started_at,
      finishedAt: row.finished_at,
    };
    if (row.status === "queued" || row.status === "running") return job;
    if (row.stdout !== null) Object.assign(job, { stdout: row.stdout, stderr: row.stderr ?? "" });
    if (row.status === "completed") {
      Object.assign(job, { exitCode: row.exit_code, timedOut: row.timed_out === 1, outputTruncated: row.output_truncated === 1 });
    }
    if (row.error !== null) job.error = row.error;
    return job;
  }

  /** Ends every job: queued ones never run, running ones lose their process groups; all are marked interrupted. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.queue.splice(0).map((job) => this.finish(job.id, "interrupted", { error: "the daemon stopped before this job ran" })));
    const running = [...this.running.values()];
    for (const r of running) {
      r.stopping = true;
      r.kill();
    }
    await Promise.all(running.map((r) => r.done));
    await this.processes.stop();
  }

  private pump(): void {
    while (!this.stopped && this.running.size < this.limits.maxConcurrent && this.queue.length > 0) {
      const job = this.queue.shift()!;
      const running: Running = { stopping: false, kill: () => {}, done: Promise.resolve() };
      this.running.set(job.id, running);
      running.done = this.options.jobs
        .markRunning(job.id, now())
        .then(() => this.run(job, running))
        .catch(async (err) => {
          this.options.log.error(`secret exec job ${job.id} failed unexpectedly`, err);
          await this.finish(job.id, "failed", { error: `the job could not run: ${(err as Error).message}` }).catch(() => {});
        })
        .finally(() => {
          this.running.delete(job.id);
          this.pump();
        });
    }
  }

  /** Resolves the references (nothing runs when one fails), then runs the command to its end. */
  private async run(job: Queued, running: Running): Promise<void> {
    let values: Record<string, string>;
    try {
      values = await this.options.resolver.resolve(job.refs);
    } catch (err) {
      if (!(err instanceof SignetError)) throw err;
      await this.finish(job.id, "failed", { error: `nothing was run: ${err.message}` });
      return;
    }
    const unfit = uninjectable(values, job.given);
    if (unfit !== null) {
      await this.finish(job.id, "failed", { error: `nothing was run: ${unfit}` });
      return;
    }
    if (running.stopping) {
      await this.finish(job.id, "interrupted", { error: "the daemon stopped before this job ran" });
      return;
    }
    try {
      await this.runCommand(job, running, values);
    } catch (err) {
      // Whatever failed had the values at hand: an error's text may quote them, so only redacted text is kept or logged.
      const [message, stack] = err instanceof Error ? [err.message, err.stack ?? err.message] : [String(err), String(err)];
      this.options.log.error(`secret exec job ${job.id} failed unexpectedly: ${redactedError(stack, values)}`);
      await this.finish(job.id, "failed", { error: `the job could not run: ${redactedError(message, values)}` });
    }
  }

  /** Runs the command with the values injected, to its end, and stores how it ended. */
  private async runCommand(job: Queued, running: Running, values: Record<string, string>): Promise<void> {
    const base = minimalEnv();
    const marker = this.processes.nextMarker();
    const env = { ...base, ...values, [MARKER_ENV]: marker };
    const secretValues = Object.values(values);
    const max = this.limits.maxOutputBytes;
    const stdout = new Capture(new Redactor(secretValues), max);
    const stderr = new Capture(new Redactor(secretValues), max);
    const cwd = existsSync(base.HOME) ? base.HOME : "/";
    const shell = ["/bin/sh", "-c", job.command];
    const { hide, writable } = this.options;
    const sandbox = this.options.sandbox();
    const [cmd, ...args] = sandbox ? sandboxArgv(sandbox, { hide, writable, cwd }, shell, true) : shell;
    const child = spawn(cmd!, args, { cwd, env, stdio: sandbox ? ["ignore", "pipe", "pipe", "pipe"] : ["ignore", "pipe", "pipe"], detached: true });
    const sandboxInfo = sandbox ? readAll(child.stdio[INFO_FD] as Readable) : Promise.resolve("");
    const signalGroup = (signal: NodeJS.Signals) => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, signal);
      } catch {
        // the group is gone already
      }
    };
    let timedOut = false;
    let killTimer: ReturnType<typeof setTimeout> | undefined;
    const timer = setTimeout(() => {
      timedOut = true;
      signalGroup("SIGTERM");
      killTimer = setTimeout(() => signalGroup("SIGKILL"), TERM_GRACE_MS);
    }, job.timeoutMs);
    running.kill = () => signalGroup("SIGKILL");
    child.stdout!.on("data", (d: Buffer) => stdout.push(d));
    child.stderr!.on("data", (d: Buffer) => stderr.push(d));
    for (const stream of [child.stdout!, child.stderr!]) stream.on("error", () => {});
    const exit = await new Promise<{ code: number | null; spawnError?: Error }>((resolve) => {
      child.once("error", (err) => resolve({ code: null, spawnError: err }));
      child.once("spawn", () => {
        if (child.pid === undefined) return;
        this.processes.started(marker, child.pid);
        // bubblewrap writes the pid as soon as its child exists, long before the job can end.
        void sandboxInfo.then((info) => {
          const pid = sandboxChildPid(info);
          if (pid !== null) this.processes.adopt(marker, pid);
        });
      });
      child.once("exit", (code) => resolve({ code }));
    });
    clearTimeout(timer);
    clearTimeout(killTimer);
    // What the shell left in its group goes with it, then what left the group; only then do the pipes close.
    signalGroup("SIGKILL");
    await sandboxInfo;
    await this.processes.ended(marker);
    await new Promise<void>((resolve) => {
      if (child.stdout!.closed && child.stderr!.closed) return resolve();
      const fallback = setTimeout(() => {
        child.stdout!.destroy();
        child.stderr!.destroy();
        resolve();
      }, PIPE_GRACE_MS);
      child.once("close", () => {
        clearTimeout(fallback);
        resolve();
      });
    });
    const output = { stdout: stdout.text(), stderr: stderr.text(), truncated: stdout.truncated || stderr.truncated };
    if (exit.spawnError) {
      await this.finish(job.id, "failed", { error: `nothing was run: ${cmd} could not be started: ${redactedError(exit.spawnError.message, values)}` });
    } else if (running.stopping) {
      await this.finish(job.id, "interrupted", { ...output, error: "the daemon stopped while this job ran; it was ended" });
    } else {
      await this.finish(job.id, "completed", { ...output, exitCode: exit.code, timedOut });
    }
  }

  private finish(id: string, status: ExecStatus, outcome: JobOutcome): Promise<void> {
    return this.options.jobs.finish(id, status, outcome, now());
  }

}
