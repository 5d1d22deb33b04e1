// An MCP client transport over a child's stdio that owns the whole process tree it starts.
// The SDK's StdioClientTransport signals only its direct child, so a server launched through a
// wrapper (`npx`, `uvx`, a shell script) leaves grandchildren behind. Here the child leads its own
// process group and shutdown signals the group: no orphan survives a close. What leaves the group
// (setsid) is ended through server-processes.ts once the server has exited.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { deserializeMessage, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { LineFramer } from "./line-framer";
import { MARKER_ENV, type ServerProcesses } from "./server-processes";

/** What a server inherits from the daemon: enough to run, nothing of the daemon's own secrets. */
const INHERITED_ENV = ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LC_ALL", "TMPDIR"];
const STDERR_TAIL_BYTES = 4096;
/** bridge.maxMessageBytes's default: the largest message a server may send (a big image or file). */
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

export interface StdioServerParams {
  command: string;
  args: string[];
  env: Record<string, string>;
  /** Where the server runs; without it, a fixed directory (fixedCwd). */
  cwd?: string;
  /** How long a close waits for a polite exit (stdin closed) before SIGTERM, then SIGKILL. */
  graceMs?: number;
  /** The largest message the server may send (bridge.maxMessageBytes). */
  maxMessageBytes?: number;
  /** Marks the server's processes and ends those that leave its group; tells the crash ledger. */
  processes?: ServerProcesses;
}

export class ProcessGroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child?: ChildProcess;
  private readonly framer: LineFramer;
  private stderrTail = "";
  private exited?: Promise<void>;
  /** Exit status once the child is gone, for error messages. */
  exit?: { code: number | null; signal: NodeJS.Signals | null };
  /** Why the daemon closed the server itself, for error messages. */
  failure?: string;

  constructor(private readonly params: StdioServerParams) {
    this.framer = new LineFramer(this.maxMessageBytes);
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** The last few KiB the server wrote to stderr: what explains a failed start. */
  get stderr(): string {
    return this.stderrTail.trim();
  }

  private get maxMessageBytes(): number {
    return this.params.maxMessageBytes ?? MAX_MESSAGE_BYTES;
  }

  start(): Promise<void> {
    if (this.child) throw new Error("transport already started");
    const env: Record<string, string> = {};
    for (const key of INHERITED_ENV) {
      const value = process.env[key];
      if (value !== undefined && !value.startsWith("()")) env[key] = value;
    }
    Object.assign(env, this.params.env);
    const processes = this.params.processes;
    const marker = processes?.nextMarker();
    if (marker) env[MARKER_ENV] = marker;
    return new Promise((resolve, reject) => {
      const child = spawn(this.params.command, this.params.args, {
        cwd: this.params.cwd ?? fixedCwd(),
        env,
        stdio: ["pipe", "pipe", "pipe"],
        detached: true,
      });
      this.child = child;
      let leftovers: Promise<void> | undefined;
      child.once("exit", (code, signal) => {
        this.exit = { code, signal };
        // Helpers the server started share its group: they go with it, even after a crash (and
        // only then do the pipes they inherited close). So does what left the group.
        this.signalGroup("SIGKILL");
        leftovers = marker ? processes!.ended(marker) : undefined;
        // Something that left without our marker may still hold the pipes: stop waiting for it.
        void Promise.resolve(leftovers).then(() => {
          setTimeout(() => {
            child.stdout?.destroy();
            child.stderr?.destroy();
          }, this.params.graceMs ?? 1000).unref();
        });
      });
      this.exited = new Promise((done) =>
        child.once("close", async () => {
          await leftovers;
          done();
          this.onclose?.();
        }),
      );
      child.once("error", (err) => {
        reject(err);
        this.onerror?.(err);
      });
      child.once("spawn", () => {
        if (marker && child.pid !== undefined) processes!.started(marker, child.pid);
        resolve();
      });
      child.stdout!.on("data", (chunk: Buffer) => {
        if (this.failure) return;
        let lines: Buffer[];
        try {
          lines = this.framer.push(chunk);
        } catch {
          // The server is unusable (a throw here would escape into the daemon): close it, and say why.
          this.fail(`it sent a message larger than ${sizeText(this.maxMessageBytes)}, the limit set by bridge.maxMessageBytes`);
          return;
        }
        for (const line of lines) {
          let message: JSONRPCMessage;
          try {
            message = deserializeMessage(line.toString("utf8"));
          } catch (err) {
            // A line that is not JSON-RPC (a server logging to stdout): report it and read on.
            this.onerror?.(err as Error);
            continue;
          }
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
  }

  private fail(reason: string): void {
    this.failure = reason;
    this.onerror?.(new Error(`MCP server closed: ${reason}`));
    void this.close();
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

/**
 * Never the daemon's own working directory, which may be a repository whose node_modules would
 * decide what `npx some-server` runs: the user's home directory, or / when there is none.
 */
function fixedCwd(): string {
  const home = homedir();
  return existsSync(home) ? home : "/";
}

function sizeText(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}
