// The daemon's live connections to installed MCP servers: connected on first use, kept warm,
// closed when idle, capped in number, dropped after a crash (the next call starts the server
// again), and every child reaped on stop.
import { isAbsolute } from "node:path";
import { existsSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { answeringFetch } from "./http-answers";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  ErrorCode as McpErrorCode,
  McpError,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type Task,
} from "@modelcontextprotocol/sdk/types.js";
import { MAX_CALL_TIMEOUT_MS, type BridgeTool, type CallUpdate, type InstalledServer } from "../../contracts/bridge";
import type { Logger } from "../../logger";
import { VERSION } from "../../version";
import { noSuchTool } from "../../contracts/bridge-params";
import { SignetError } from "../../contracts/errors";
import { defined } from "../../contracts/parse";
import type { ChildLedger } from "./child-ledger";
import { resolveSecretRefs, secretScrubber, type SecretLookup } from "./secret-refs";
import { ServerProcesses } from "./server-processes";
import { ProcessGroupStdioTransport, invalidAnswer } from "./stdio-transport";

export interface PoolOptions {
  /** Close a server no call has used for this long; 0 keeps servers warm until stop. */
  idleCloseMs: number;
  /** Live servers at most; the least recently used idle one makes room for a new one. */
  maxServers: number;
  secrets: SecretLookup;
  log: Pick<Logger, "info" | "warn">;
  /** A server announced that its tool list changed. */
  onToolsChanged?(server: string): void;
  /** Where running servers' processes are noted, for the sweep after a crash of the daemon. */
  ledger?: ChildLedger;
  /** The largest message a stdio server may send (bridge.maxMessageBytes); a larger one closes it. */
  maxMessageBytes?: number;
}

export interface LiveServerInfo {
  name: string;
  pid?: number;
  startedAt: string;
  inFlight: number;
  lastUsedAt: string;
}

interface Live {
  server: InstalledServer;
  client: Client;
  transport: ProcessGroupStdioTransport | StreamableHTTPClientTransport;
  /** Settles when the start does: it has answered the handshake and listed its tools, or failed. */
  ready: Promise<void>;
  /** The start's own limit, which a caller that waits longer pushes back (waitForStart). */
  startTimer: StartTimer;
  /** Its start succeeded: only now may it be closed to make room, or for being idle. */
  started: boolean;
  /** Its tools as listed, already scrubbed: what is told of them never carries a secret value. */
  tools: BridgeTool[];
  inFlight: number;
  startedAt: number;
  lastUsed: number;
  idleTimer?: ReturnType<typeof setTimeout>;
  closing: boolean;
  /** Why the daemon closed it itself, when it did: its going away is then not the server's failure. */
  closedBy?: string;
  /** Redacts the secret values the server was given from what is told of it (secret-refs.ts). */
  scrub: <T>(value: T) => T;
}

/** How long a caller waits for a server's start, and the start's own budget (bridge.callTimeoutMs). */
export interface StartWait {
  waitMs: number;
  startMs: number;
  cancel?: AbortSignal;
}

/** Why the daemon closes a server (the end of "was closed by the daemon during the call: ..."). */
export const CLOSED_BECAUSE = {
  disabled: "it was disabled",
  removed: "it was removed",
  changed: "its definition was changed",
  stopping: "the daemon is stopping",
  idle: "it was idle for bridge.idleCloseMs",
  room: "it made room for another server (bridge.maxServers)",
  failed: "its start failed",
} as const;

/** The tool named in a call that the server does not list: the caller's mistake, not a call that reached a tool. */
export class NoSuchToolError extends SignetError {
  constructor(message: string) {
    super("not_found", message);
  }
}

const STDERR_IN_MESSAGE = 600;
/** How long after a call's (or start's) own limit the SDK's per-request timeout would fire. */
const SDK_TIMEOUT_BACKSTOP_MS = 5_000;

export class ServerPool {
  private readonly live = new Map<string, Live>();
  /** The last tool list of each server, kept after its process idles out (knownTools). */
  private readonly known = new Map<string, { updatedAt: string; tools: BridgeTool[] }>();
  private readonly closing = new Set<Promise<void>>();
  private readonly processes: ServerProcesses;
  private stopped = false;

  constructor(private readonly options: PoolOptions) {
    this.processes = new ServerProcesses(options.ledger);
  }

  /** The server's tools (scrubbed), starting it if needed. */
  async tools(server: InstalledServer, wait: StartWait): Promise<BridgeTool[]> {
    const entry = await this.acquire(server, wait);
    return entry.tools;
  }

  /**
   * Calls one tool. A tool's own failure comes back as an `isError` result, as the server sent it.
   * Starting a cold server has its own budget (`startTimeoutMs`): a short call timeout bounds the
   * call, not the server's start. With `onUpdate` the server is asked for progress, and each
   * progress notification (or change of a task's status) gives the call its timeout afresh, up to
   * MAX_CALL_TIMEOUT_MS in all; without it the timeout is a hard bound, as the caller's own wait is.
   */
  async call(
    server: InstalledServer,
    tool: string,
    args: Record<string, unknown>,
    timeouts: { callMs: number; startMs: number; cancel?: AbortSignal },
    onUpdate?: (update: CallUpdate) => void,
  ): Promise<CallToolResult> {
    const entry = await this.acquire(server, { waitMs: timeouts.startMs, startMs: timeouts.startMs, cancel: timeouts.cancel });
    const timer = new CallTimer(timeouts.callMs, onUpdate !== undefined, timeouts.cancel);
    entry.inFlight++;
    this.touch(entry);
    try {
      let listed = entry.tools.find((t) => t.name === tool);
      if (!listed) {
        // The list may have changed since it was read: look once more before refusing.
        this.noteTools(entry, await listTools(entry.client, { signal: timer.signal, timeout: timer.sdkTimeoutMs }));
        listed = entry.tools.find((t) => t.name === tool);
        if (!listed) throw new NoSuchToolError(noSuchTool(server.name, entry.tools, tool));
      }
      const options: RequestOptions = {
        signal: timer.signal,
        timeout: timer.sdkTimeoutMs,
        onprogress: onUpdate && ((p) => {
          timer.renew();
          onUpdate(entry.scrub({ progress: p.progress, ...defined({ total: p.total, message: p.message }) }));
        }),
      };
      const update = onUpdate && ((u: CallUpdate) => onUpdate(entry.scrub(u)));
      if (requiresTask(listed)) return entry.scrub(await callAsTask(entry.client, tool, args, options, timer, update));
      return entry.scrub((await entry.client.callTool({ name: tool, arguments: args }, undefined, options)) as CallToolResult);
    } catch (err) {
      throw scrubbed(entry, this.callFailure(entry, err, timer));
    } finally {
      timer.stop();
      entry.inFlight--;
      this.touch(entry);
    }
  }

  /**
   * The tools a server listed when last started (or since), without starting it; undefined when it
   * has not listed them under its current definition since the daemon started.
   */
  knownTools(server: InstalledServer): BridgeTool[] | undefined {
    const known = this.known.get(server.name);
    return known?.updatedAt === server.updatedAt ? known.tools : undefined;
  }

  /** Keeps the tools the server listed, scrubbed: tool lists reach callers and agents as they are. */
  private noteTools(entry: Live, tools: BridgeTool[]): void {
    entry.tools = entry.scrub(tools);
    this.known.set(entry.server.name, { updatedAt: entry.server.updatedAt, tools: entry.tools });
  }

  /** Closes a server's connection (after it is removed, disabled or changed, `why`); waits for its exit. */
  async close(name: string, why: string): Promise<void> {
    const entry = this.live.get(name);
    if (entry) await this.retire(entry, why);
  }

  /**
   * Closes the server's process when `current` (its definition as the registry has it now) no
   * longer asks for it: removed, disabled, or changed since the process started (the next call
   * starts it under the new definition). One started under a later definition than `current`
   * (read before a change this pool has already seen) is left.
   */
  closeStale(name: string, current: InstalledServer | undefined): void {
    const entry = this.live.get(name);
    if (!entry) return;
    const why = staleness(entry.server, current);
    if (why) void this.retire(entry, why);
  }

  /** Closes everything and refuses new connections; resolves when every child has exited. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all([...this.live.values()].map((e) => this.retire(e, CLOSED_BECAUSE.stopping)));
    await Promise.all([...this.closing]);
    await this.processes.stop();
  }

  status(): LiveServerInfo[] {
    return [...this.live.values()].map((e) => ({
      name: e.server.name,
      pid: e.transport instanceof ProcessGroupStdioTransport ? e.transport.pid : undefined,
      startedAt: new Date(e.startedAt).toISOString(),
      inFlight: e.inFlight,
      lastUsedAt: new Date(e.lastUsed).toISOString(),
    }));
  }

  private async acquire(server: InstalledServer, wait: StartWait): Promise<Live> {
    let entry = this.live.get(server.name);
    // A server whose definition changed since it started is started again under the new one.
    if (entry && entry.server.updatedAt !== server.updatedAt) {
      await this.retire(entry, CLOSED_BECAUSE.changed);
      entry = undefined;
    }
    if (!entry) entry = this.connect(server, wait.startMs);
    if (!entry.started) await this.waitForStart(entry, wait);
    return entry;
  }

  /**
   * Waits for a start up to this caller's own limit. The start has its own budget, pushed back by a
   * caller that waits longer; a caller that stops waiting (its limit passed, or it cancelled) fails
   * alone: the start goes on for the others and for the calls after it.
   */
  private waitForStart(entry: Live, wait: StartWait): Promise<void> {
    entry.startTimer.extendTo(Date.now() + wait.waitMs);
    const name = entry.server.name;
    return new Promise<void>((resolve, reject) => {
      const settle = (err?: unknown) => {
        clearTimeout(timer);
        wait.cancel?.removeEventListener("abort", cancelled);
        if (err === undefined) resolve();
        else reject(err);
      };
      const timer = setTimeout(
        () =>
          settle(
            new SignetError(
              "server_unavailable",
              `MCP server "${name}" did not answer the MCP handshake in time: not within the ${wait.waitMs} ms this caller waits (its start goes on for the calls that follow, within bridge.callTimeoutMs)`,
            ),
          ),
        wait.waitMs,
      );
      const cancelled = () => settle(new SignetError("unavailable", `the call to MCP server "${name}" was cancelled by its caller`));
      wait.cancel?.addEventListener("abort", cancelled, { once: true });
      if (wait.cancel?.aborted) cancelled();
      entry.ready.then(() => settle(), settle);
    });
  }

  private connect(server: InstalledServer, startMs: number): Live {
    if (this.stopped) throw new SignetError("unavailable", "the daemon is stopping");
    this.makeRoom();
    const secrets: string[] = [];
    const transport = this.transportFor(server, secrets);
    const client = new Client({ name: "signet-bridge", version: VERSION }, { capabilities: {} });
    const now = Date.now();
    const entry: Live = {
      server,
      client,
      transport,
      ready: Promise.resolve(),
      startTimer: new StartTimer(startMs),
      started: false,
      tools: [],
      inFlight: 0,
      startedAt: now,
      lastUsed: now,
      closing: false,
      scrub: secretScrubber(secrets),
    };
    client.onclose = () => {
      if (this.live.get(server.name) === entry) this.live.delete(server.name);
      if (!entry.closing) this.options.log.warn(`MCP server "${server.name}" exited${exitDetail(transport)}`);
      entry.closing = true;
    };
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      const tools = await listTools(client, { timeout: 30_000 }).catch(() => undefined);
      if (tools) this.noteTools(entry, tools);
      this.options.onToolsChanged?.(server.name);
    });
    entry.ready = (async () => {
      // The start's own limit: its firing is what makes a failure "not in time".
      const timer = entry.startTimer;
      const options = { signal: timer.signal, timeout: timer.sdkTimeoutMs };
      try {
        await client.connect(transport, options);
        this.noteTools(entry, await listTools(client, options));
        entry.started = true;
        this.touch(entry);
      } catch (err) {
        // The daemon closed it itself (stopping, disabled, ...): that is why the start ended, not the server.
        const closedBy = entry.closedBy;
        // An error the server sent while its connection was open is its answer, whatever follows.
        const answered = err instanceof McpError && !entry.closing && !timer.fired;
        await this.retire(entry, CLOSED_BECAUSE.failed);
        const failure = closedBy
          ? new SignetError("server_unavailable", `MCP server "${server.name}" was closed by the daemon during its start: ${closedBy}`)
          : this.startFailure(entry, err, timer, answered);
        throw scrubbed(entry, failure);
      } finally {
        timer.stop();
      }
    })();
    // Nobody may be waiting when the start fails (each caller's wait is its own): not an unhandled rejection.
    entry.ready.catch(() => {});
    this.live.set(server.name, entry);
    return entry;
  }

  /** The server's transport, its `secret:` references resolved (their values pushed on `secrets`). */
  private transportFor(server: InstalledServer, secrets: string[]): Live["transport"] {
    const t = server.transport;
    if (t.type === "stdio") {
      // Installed before paths had to be absolute: the daemon cannot tell what they were relative to
      // (docs/security.md#bridged-servers), so it starts nothing and says how to mend the entry.
      const relative = [t.cwd !== undefined && !isAbsolute(t.cwd) ? `cwd ${t.cwd}` : "", /[/\\]/.test(t.command) && !isAbsolute(t.command) ? `command ${t.command}` : ""].filter(Boolean);
      if (relative.length > 0) {
        throw new SignetError(
          "server_unavailable",
          `MCP server "${server.name}" has a relative ${relative.join(" and a relative ")}; install it again with absolute paths (\`signet mcp remove ${server.name}\`, then \`signet mcp add\` from the directory it belongs to)`,
        );
      }
      return new ProcessGroupStdioTransport({
        command: t.command,
        args: t.args,
        env: resolveSecretRefs(t.env, this.options.secrets, secrets),
        cwd: t.cwd,
        maxMessageBytes: this.options.maxMessageBytes,
        processes: this.processes,
        secrets,
      });
    }
    return new StreamableHTTPClientTransport(new URL(t.url), {
      requestInit: { headers: resolveSecretRefs(t.headers, this.options.secrets, secrets) },
      fetch: answeringFetch(),
    });
  }

  /**
   * At the cap, the least recently used idle server is closed; if all are busy the call is refused.
   * A server still starting is busy: someone is waiting for it, though no call has begun.
   */
  private makeRoom(): void {
    if (this.live.size < this.options.maxServers) return;
    const idle = [...this.live.values()].filter((e) => e.started && e.inFlight === 0).sort((a, b) => a.lastUsed - b.lastUsed)[0];
    if (!idle) {
      throw new SignetError(
        "server_unavailable",
        `all ${this.options.maxServers} live MCP servers are busy (bridge.maxServers): in a call or starting; retry when one is idle`,
      );
    }
    this.options.log.info(`closing MCP server "${idle.server.name}" to stay within bridge.maxServers`);
    void this.retire(idle, CLOSED_BECAUSE.room);
  }

  private touch(entry: Live): void {
    entry.lastUsed = Date.now();
    if (entry.idleTimer) clearTimeout(entry.idleTimer);
    entry.idleTimer = undefined;
    if (entry.inFlight > 0 || this.options.idleCloseMs <= 0 || entry.closing) return;
    entry.idleTimer = setTimeout(() => {
      if (entry.inFlight === 0) void this.retire(entry, CLOSED_BECAUSE.idle);
    }, this.options.idleCloseMs);
    entry.idleTimer.unref?.();
  }

  /** Closes the server; `why` is told to a call or start it cuts short, unless it had gone already. */
  private retire(entry: Live, why: string): Promise<void> {
    if (this.live.get(entry.server.name) === entry) this.live.delete(entry.server.name);
    if (entry.idleTimer) clearTimeout(entry.idleTimer);
    if (!entry.closing) entry.closedBy = why;
    entry.closing = true;
    const done = entry.client
      .close()
      .catch(() => entry.transport.close())
      .catch(() => {})
      .finally(() => this.closing.delete(done));
    this.closing.add(done);
    return done;
  }

  /**
   * Why a start failed. Only the pool knows whether its own limit passed (`timer`); an error the
   * server `answered` carries its own code, -32001 (the SDK's RequestTimeout) included, and its own
   * words, even though its process has exited by now (the daemon closed it).
   */
  private startFailure(entry: Live, err: unknown, timer: StartTimer, answered: boolean): SignetError {
    if (err instanceof SignetError) return err;
    const name = entry.server.name;
    const invalid = invalidAnswer(err);
    let reason: string;
    if (timer.fired) {
      reason = "it did not answer the MCP handshake in time";
    } else if (invalid !== undefined) {
      reason = `it answered with an invalid message: ${invalid}`;
    } else if (answered) {
      reason = (err as Error).message;
    } else if ((err as { code?: string }).code === "ENOENT") {
      // The runtime says ENOENT for a missing cwd too, naming the command.
      const t = entry.server.transport;
      if (t.type === "stdio" && t.cwd && !existsSync(t.cwd)) reason = `its cwd does not exist: ${t.cwd}`;
      else reason = `command not found: ${t.type === "stdio" ? t.command : "?"}`;
    } else if (entry.transport instanceof ProcessGroupStdioTransport && entry.transport.exit) {
      reason = `it exited at start${exitDetail(entry.transport)}`;
    } else {
      reason = (err as Error)?.message ?? String(err);
    }
    return new SignetError("server_unavailable", `MCP server "${name}" failed to start: ${reason}${stderrDetail(entry)}`);
  }

  /**
   * What a failed call tells its caller. The SDK's own conditions are told by what the pool itself
   * saw, never by an error's code: a server may answer with any code, -32000 (ConnectionClosed)
   * and -32001 (RequestTimeout) included, and that answer is its failure, in its own words. The
   * call timed out when its timer fired (every request of the call carries the timer's signal, and
   * the SDK's own timeout is set past it); the server went away when its connection closed (the
   * client's onclose runs before the SDK fails the pending requests).
   */
  private callFailure(entry: Live, err: unknown, timer: CallTimer): Error {
    if (err instanceof SignetError) return err;
    const name = entry.server.name;
    if (timer.cancelled) return new SignetError("unavailable", `the call to MCP server "${name}" was cancelled by its caller`);
    if (timer.fired) return new SignetError("timeout", `MCP server "${name}" ${timer.expiry()}`);
    if (entry.closedBy) return new SignetError("server_unavailable", `MCP server "${name}" was closed by the daemon during the call: ${entry.closedBy}`);
    if (entry.closing) {
      return new SignetError(
        "server_unavailable",
        `MCP server "${name}" exited during the call${exitDetail(entry.transport)}${stderrDetail(entry)}; the next call starts it again`,
      );
    }
    const invalid = invalidAnswer(err);
    if (invalid !== undefined) return new SignetError("server_unavailable", `MCP server "${name}" answered with an invalid message: ${invalid}`);
    const code = err instanceof McpError ? err.code : undefined;
    if (code === McpErrorCode.InvalidParams) return new SignetError("invalid_input", `${name}: ${(err as Error).message}`);
    if (code === McpErrorCode.MethodNotFound) return new SignetError("not_found", `${name}: ${(err as Error).message}`);
    return new SignetError("server_unavailable", `MCP server "${name}" failed: ${(err as Error)?.message ?? String(err)}`);
  }

}

/**
 * A tool that declares `execution.taskSupport: "required"` is called through the SDK's tasks API: it
 * creates the task (when the server announces tasks for tools/call; otherwise the spec says to call
 * it plainly, which the SDK then does), polls `tasks/get` until it ends and fetches `tasks/result`.
 * A task that fails or is cancelled is the tool's failure: an `isError` result with the server's
 * status message, as a tool's own error would be.
 */
async function callAsTask(
  client: Client,
  tool: string,
  args: Record<string, unknown>,
  options: RequestOptions,
  timer: CallTimer,
  onUpdate: ((update: CallUpdate) => void) | undefined,
): Promise<CallToolResult> {
  let last: Task | undefined;
  for await (const message of client.experimental.tasks.callToolStream({ name: tool, arguments: args }, undefined, options)) {
    if (message.type === "result") return message.result as CallToolResult;
    if (message.type === "error") {
      if (last?.status === "failed" || last?.status === "cancelled") {
        const why = last.statusMessage ? `: ${last.statusMessage}` : "";
        return { isError: true, content: [{ type: "text", text: `task ${last.taskId} of ${tool} ${last.status}${why}` }] };
      }
      throw message.error;
    }
    const { taskId, status, statusMessage } = message.task;
    // Every poll reports the task; only a change is news.
    if (status !== last?.status || statusMessage !== last?.statusMessage) {
      timer.renew();
      onUpdate?.({ task: { taskId, status, ...defined({ statusMessage }) } });
    }
    last = message.task;
  }
  throw new McpError(McpErrorCode.InternalError, `the task of ${tool} ended without a result`);
}

/** Why a process started under `started` must close, now that the registry has `current`; undefined: it may run on. */
function staleness(started: InstalledServer, current: InstalledServer | undefined): string | undefined {
  if (!current) return CLOSED_BECAUSE.removed;
  const then = Date.parse(started.updatedAt);
  const now = Date.parse(current.updatedAt);
  if (now < then) return undefined;
  if (!current.enabled) return CLOSED_BECAUSE.disabled;
  return now > then ? CLOSED_BECAUSE.changed : undefined;
}

function requiresTask(tool: BridgeTool): boolean {
  return (tool.execution as { taskSupport?: unknown } | undefined)?.taskSupport === "required";
}

/**
 * A start's time limit as an abort signal: its own budget, which extendTo() pushes back for a caller
 * that waits longer, never past MAX_CALL_TIMEOUT_MS from the start (the longest any caller waits).
 */
class StartTimer {
  private readonly controller = new AbortController();
  private readonly latest: number;
  private deadline: number;
  private timer: ReturnType<typeof setTimeout>;
  private stopped = false;

  /** The SDK's own per-request timeout, a backstop past any deadline the timer can reach. */
  readonly sdkTimeoutMs = MAX_CALL_TIMEOUT_MS + SDK_TIMEOUT_BACKSTOP_MS;

  constructor(budgetMs: number) {
    this.latest = Date.now() + MAX_CALL_TIMEOUT_MS;
    this.deadline = Math.min(Date.now() + budgetMs, this.latest);
    this.timer = this.arm();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The limit passed: the start was cut short by this timer, not by anything the server said. */
  get fired(): boolean {
    return this.controller.signal.aborted;
  }

  extendTo(deadline: number): void {
    if (this.stopped || this.fired || deadline <= this.deadline) return;
    clearTimeout(this.timer);
    this.deadline = Math.min(deadline, this.latest);
    this.timer = this.arm();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private arm(): ReturnType<typeof setTimeout> {
    return setTimeout(() => this.controller.abort(new McpError(McpErrorCode.RequestTimeout, "Request timed out")), remaining(this.deadline));
  }
}

/**
 * A call's time limit as an abort signal. When the caller watches the call's progress, `renew()`
 * (news from the server) gives it its full length again, never past MAX_CALL_TIMEOUT_MS from the start.
 * The SDK's `resetTimeoutOnProgress` would renew one request only, not a task's many polls: this one
 * timer serves both kinds of call.
 */
class CallTimer {
  private readonly controller = new AbortController();
  private readonly end: number;
  private expires: number;
  private timer: ReturnType<typeof setTimeout>;
  private renewed = false;

  /** The caller's cancellation fired: the SDK tells the server (notifications/cancelled) as the signal aborts. */
  cancelled = false;

  constructor(
    private readonly ms: number,
    private readonly renewable: boolean,
    private readonly cancel?: AbortSignal,
  ) {
    this.end = Date.now() + (renewable ? MAX_CALL_TIMEOUT_MS : ms);
    this.expires = Date.now() + ms;
    this.timer = this.arm();
    cancel?.addEventListener("abort", this.onCancel, { once: true });
    if (cancel?.aborted) this.onCancel();
  }

  private readonly onCancel = () => {
    if (this.controller.signal.aborted) return;
    this.cancelled = true;
    clearTimeout(this.timer);
    this.controller.abort(new McpError(McpErrorCode.RequestTimeout, "cancelled by the caller"));
  };

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The limit passed: the call (or start) was cut short by this timer, not by anything the server said. */
  get fired(): boolean {
    return this.controller.signal.aborted;
  }

  /**
   * The SDK's own per-request timeout, a backstop past the timer's last possible end: the timer is
   * the limit, and only its firing makes a failure a timeout (a server may answer -32001 itself).
   */
  get sdkTimeoutMs(): number {
    return (this.renewable ? MAX_CALL_TIMEOUT_MS : this.ms) + SDK_TIMEOUT_BACKSTOP_MS;
  }

  private remaining(): number {
    return remaining(this.expires);
  }

  renew(): void {
    if (!this.renewable) return;
    clearTimeout(this.timer);
    this.expires = Math.min(this.end, Date.now() + this.ms);
    this.renewed = true;
    this.timer = this.arm();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.cancel?.removeEventListener("abort", this.onCancel);
  }

  /** What the server failed to do in time, for the error message. */
  expiry(): string {
    if (!this.renewed) return `did not answer within ${this.ms} ms`;
    if (this.expires >= this.end) return `did not finish within ${MAX_CALL_TIMEOUT_MS} ms, the most a call may take`;
    return `sent nothing for ${this.ms} ms after its last progress`;
  }

  private arm(): ReturnType<typeof setTimeout> {
    // An McpError passes through the SDK as it is, and reads as the request's own timeout.
    return setTimeout(() => this.controller.abort(new McpError(McpErrorCode.RequestTimeout, "Request timed out")), this.remaining());
  }
}

async function listTools(client: Client, options: RequestOptions): Promise<BridgeTool[]> {
  const tools: BridgeTool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined, options);
    tools.push(...(page.tools as BridgeTool[]));
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

function remaining(deadline: number): number {
  return Math.max(1, deadline - Date.now());
}

function exitDetail(transport: Live["transport"]): string {
  if (!(transport instanceof ProcessGroupStdioTransport)) return "";
  if (transport.failure) return ` (closed by the daemon: ${transport.failure})`;
  if (!transport.exit) return "";
  const { code, signal } = transport.exit;
  return signal ? ` (killed by ${signal})` : ` (exit code ${code})`;
}

/** `err` told without the server's secret values (the same error, its kind kept). */
function scrubbed(entry: Live, err: Error): Error {
  err.message = entry.scrub(err.message);
  return err;
}

/** The end of the server's stderr, already redacted by the transport: a cut here leaves no piece of a value. */
function stderrDetail(entry: Live): string {
  if (!(entry.transport instanceof ProcessGroupStdioTransport)) return "";
  const tail = entry.transport.stderr;
  return tail ? `; its stderr ends: ${tail.slice(-STDERR_IN_MESSAGE)}` : "";
}
