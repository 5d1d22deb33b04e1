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
import { ErrorCode, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { Redactor } from "../secrets/redactor";
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
  /** Secret values the server was given: redacted from its stderr as it comes, before the tail is cut. */
  secrets?: readonly string[];
}

export class ProcessGroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child?: ChildProcess;
  private readonly framer: LineFramer;
  private readonly stderrTail: RedactedTail;
  private exited?: Promise<void>;
  /** Exit status once the child is gone, for error messages. */
  exit?: { code: number | null; signal: NodeJS.Signals | null };
  /** Why the daemon closed the server itself, for error messages. */
  failure?: string;

  constructor(private readonly params: StdioServerParams) {
    this.framer = new LineFramer(this.maxMessageBytes);
    this.stderrTail = new RedactedTail(params.secrets ?? [], STDERR_TAIL_BYTES);
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** The last few KiB the server wrote to stderr, its secret values redacted: what explains a failed start. */
  get stderr(): string {
    return this.stderrTail.text().trim();
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
          const text = line.toString("utf8");
          let message: JSONRPCMessage;
          try {
            message = deserializeMessage(text);
          } catch (err) {
            // A line that is not JSON-RPC (a server logging to stdout): report it and read on.
            this.onerror?.(err as Error);
            // An answer the SDK cannot take would leave its request waiting out its timeout: fail it now.
            const invalid = invalidResponse(text);
            if (invalid) this.onmessage?.(invalidAnswerError(invalid.id, invalid.why));
            continue;
          }
          this.onmessage?.(message);
        }
      });
      child.stderr!.on("data", (chunk: Buffer) => this.stderrTail.push(chunk));
      child.stderr!.once("close", () => this.stderrTail.end());
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
 * The end of a stream, its secret values redacted as the text comes, before anything is cut: a cut
 * through a value would leave a piece the redaction no longer recognises. The last characters are
 * held back until the next chunk or the stream's end (a value may be split across chunks).
 */
class RedactedTail {
  private readonly decoder = new TextDecoder();
  private readonly redactor?: Redactor;
  private kept = "";

  constructor(
    secrets: readonly string[],
    private readonly max: number,
  ) {
    if (secrets.length > 0) this.redactor = new Redactor(secrets);
  }

  push(chunk: Buffer): void {
    this.keep(this.decoder.decode(chunk, { stream: true }));
  }

  end(): void {
    this.keep(this.decoder.decode());
    if (this.redactor) this.kept = (this.kept + this.redactor.end()).slice(-this.max);
  }

  text(): string {
    return this.kept;
  }

  private keep(text: string): void {
    this.kept = (this.kept + (this.redactor ? this.redactor.push(text) : text)).slice(-this.max);
  }
}

/** `data` of the error a request gets when the server answered it with a message that is not valid JSON-RPC. */
const INVALID_ANSWER = "signetInvalidAnswer";

/** What was wrong with the server's answer, when `err` is the error invalidAnswerError made. */
export function invalidAnswer(err: unknown): string | undefined {
  const data = (err as { data?: unknown } | null)?.data;
  const why = data !== null && typeof data === "object" ? (data as Record<string, unknown>)[INVALID_ANSWER] : undefined;
  return typeof why === "string" ? why : undefined;
}

function invalidAnswerError(id: string | number, why: string): JSONRPCMessage {
  return { jsonrpc: "2.0", id, error: { code: ErrorCode.InternalError, message: `invalid answer: ${why}`, data: { [INVALID_ANSWER]: why } } };
}

/**
 * A line that answers a request (an id, no method) but is not valid JSON-RPC: its id and what is
 * wrong with it. Undefined for anything else (not JSON, a request or notification): no request waits on it.
 */
function invalidResponse(line: string): { id: string | number; why: string } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== "object" || Array.isArray(value) || "method" in value) return undefined;
  const message = value as Record<string, unknown>;
  if (typeof message.id !== "number" && typeof message.id !== "string") return undefined;
  return { id: message.id, why: whyInvalid(message) };
}

function whyInvalid(message: Record<string, unknown>): string {
  const isObject = (v: unknown) => v !== null && typeof v === "object" && !Array.isArray(v);
  if (message.jsonrpc !== "2.0") return 'its "jsonrpc" is not "2.0"';
  if ("result" in message && "error" in message) return "it has both a result and an error";
  if ("result" in message) return isObject(message.result) ? "its result is malformed" : "its result is not an object";
  if ("error" in message) return "its error is not an object with a numeric code and a message";
  return "it has neither a result nor an error";
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
