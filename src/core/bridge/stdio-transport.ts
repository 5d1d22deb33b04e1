// An MCP client transport over a child's stdio that owns the whole process tree it starts.
// The SDK's StdioClientTransport signals only its direct child, so a server launched through a
// wrapper (`npx`, `uvx`, a shell script) leaves grandchildren behind. Here the child leads its own
// process group and shutdown signals the group: no orphan survives a close.
import { spawn, type ChildProcess } from "node:child_process";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** What a server inherits from the daemon: enough to run, nothing of the daemon's own secrets. */
const INHERITED_ENV = ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LC_ALL", "TMPDIR"];
const STDERR_TAIL_BYTES = 4096;
/** The largest message a server may send (a tool result with a big image or file). */
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

export interface StdioServerParams {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  /** How long a close waits for a polite exit (stdin closed) before SIGTERM, then SIGKILL. */
  graceMs?: number;
  /** The largest message the server may send (default 64 MiB). */
  maxMessageBytes?: number;
  /** Told of the process group while it lives, so a daemon killed outright can end it next start. */
  ledger?: { add(pid: number): void; remove(pid: number): void };
}

export class ProcessGroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child?: ChildProcess;
  private readonly buffer: ReadBuffer;
  private stderrTail = "";
  private exited?: Promise<void>;
  /** Exit status once the child is gone, for error messages. */
  exit?: { code: number | null; signal: NodeJS.Signals | null };

  constructor(private readonly params: StdioServerParams) {
    this.buffer = new ReadBuffer({ maxBufferSize: params.maxMessageBytes ?? MAX_MESSAGE_BYTES });
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** The last few KiB the server wrote to stderr: what explains a failed start. */
  get stderr(): string {
    return this.stderrTail.trim();
  }

  start(): Promise<void> {
    if (this.child) throw new Error("transport already started");
    const env: Record<string, string> = {};
    for (const key of INHERITED_ENV) {
      const value = process.env[key];
      if (value !== undefined && !value.startsWith("()")) env[key] = value;
    }
    Object.assign(env, this.params.env);
    return new Promise((resolve, reject) => {
      const child = spawn(this.params.command, this.params.args, {
        cwd: this.params.cwd,
        env,
        stdio: ["pipe", "pipe", "pipe"],
        detached: true,
      });
      this.child = child;
      child.once("exit", (code, signal) => {
        this.exit = { code, signal };
        // Helpers the server started share its group: they go with it, even after a crash (and
        // only then do the pipes they inherited close).
        this.signalGroup("SIGKILL");
      });
      this.exited = new Promise((done) =>
        child.once("close", () => {
          if (child.pid !== undefined) this.params.ledger?.remove(child.pid);
          done();
          this.onclose?.();
        }),
      );
      child.once("error", (err) => {
        reject(err);
        this.onerror?.(err);
      });
      child.once("spawn", () => {
        if (child.pid !== undefined) this.params.ledger?.add(child.pid);
        resolve();
      });
      child.stdout!.on("data", (chunk: Buffer) => {
        try {
          this.buffer.append(chunk);
        } catch (err) {
          // One message larger than the cap (or output with no newline at all): the server is
          // unusable, and a throw here would escape into the daemon.
          this.onerror?.(err as Error);
          void this.close();
          return;
        }
        for (;;) {
          let message: JSONRPCMessage | null;
          try {
            message = this.buffer.readMessage();
          } catch (err) {
            // A line that is not JSON-RPC (a server logging to stdout): report it and read on.
            this.onerror?.(err as Error);
            continue;
          }
          if (message === null) break;
          this.onmessage?.(message);
        }
      });
      child.stderr!.on("data", (chunk: Buffer) => {
        this.stderrTail = (this.stderrTail + chunk.toString("utf8")).slice(-STDERR_TAIL_BYTES);
      });
      // A stream error with no listener would be thrown into the daemon.
      for (const stream of [child.stdin!, child.stdout!, child.stderr!]) stream.on("error", (err) => this.onerror?.(err));
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || stdin.destroyed || this.exit) return Promise.reject(new Error("the server process is not running"));
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once("drain", resolve);
    });
  }

  /** Closes stdin, then signals the whole process group until it is gone. */
  async close(): Promise<void> {
    const child = this.child;
    if (!child || !this.exited) return;
    const grace = this.params.graceMs ?? 1000;
    const gone = (ms: number) =>
      Promise.race([this.exited!.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref())]);
    try {
      child.stdin?.end();
    } catch {
      // already closed
    }
    if (!this.exit && !(await gone(grace))) {
      this.signalGroup("SIGTERM");
      if (!(await gone(grace))) this.signalGroup("SIGKILL");
    }
    await gone(grace);
    this.buffer.clear();
  }

  private signalGroup(signal: NodeJS.Signals): void {
    const pid = this.child?.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // the group is gone already
    }
  }
}
