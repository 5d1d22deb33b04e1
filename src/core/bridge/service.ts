// The MCP bridge: the registry of installed servers, the pool that runs them, and a record of every
// call made through it (docs/api.md#bridge, #analytics). Routes, MCP tools and the CLI are thin adapters over this.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type {
  BridgeTool,
  CallRequest,
  CallUpdate,
  InstallServerRequest,
  InstalledServer,
  UpdateServerRequest,
} from "../../contracts/bridge";
import type { InvocationSink } from "../analytics/types";
import { ParamError, parseParams, toolNamed } from "../../contracts/bridge-params";
import { SignetError } from "../../contracts/errors";
import { CLOSED_BECAUSE, NoSuchToolError, ServerPool, type LiveServerInfo, type PoolOptions } from "./pool";
import { ServerRegistry, type ServerRows } from "./registry";

export interface BridgeOptions extends PoolOptions {
  callTimeoutMs: number;
  /** Records every call; it decides which sources it keeps (analytics.trackAgentCalls). */
  invocations: InvocationSink;
  /** The set of installed, enabled servers changed (install, remove, enable, disable, update). */
  onServersChanged?(): void;
}

export interface BridgeCaller {
  agentId: string;
  sessionKey?: string;
}

const ERROR_TEXT_MAX = 2000;

export class BridgeService {
  readonly registry: ServerRegistry;
  private readonly pool: ServerPool;
  private unwatch: (() => Promise<void>) | null = null;
  private stopped = false;
  /** The other daemons' changes, handled one at a time in the order they were heard. */
  private following: Promise<void> = Promise.resolve();

  constructor(
    servers: ServerRows,
    private readonly options: BridgeOptions,
  ) {
    this.registry = new ServerRegistry(servers);
    this.pool = new ServerPool(options);
  }

  /**
   * Follows the changes other daemons sharing the store make (none on SQLite): this daemon's
   * process of a server removed or disabled elsewhere is closed, and one whose definition changed
   * is closed to start again under it at the next call.
   */
  async start(): Promise<void> {
    const unwatch = await this.registry.watchOthers((name) => this.followOthers(name));
    // A stop that came while the listening was set up has nothing left to end it.
    if (this.stopped) await unwatch();
    else this.unwatch = unwatch;
    // What listening began with (a look at every process, as after a reconnect) is done.
    await this.following;
  }

  list(filter: { enabled?: boolean } = {}): Promise<InstalledServer[]> {
    return this.registry.list(filter);
  }

  /** Live processes and connections, for status views. */
  live(): LiveServerInfo[] {
    return this.pool.status();
  }

  async install(req: InstallServerRequest): Promise<InstalledServer> {
    const server = await this.registry.install(req);
    this.options.onServersChanged?.();
    return server;
  }

  async update(name: string, req: UpdateServerRequest): Promise<InstalledServer> {
    const server = await this.registry.update(name, req);
    // The running process belongs to the old definition (or to a server now disabled); stop()
    // still waits for its exit, the answer does not.
    void this.pool.close(name, req.enabled === false ? CLOSED_BECAUSE.disabled : CLOSED_BECAUSE.changed);
    this.options.onServersChanged?.();
    return server;
  }

  async remove(name: string): Promise<InstalledServer> {
    const server = await this.registry.remove(name);
    void this.pool.close(name, CLOSED_BECAUSE.removed);
    this.options.onServersChanged?.();
    return server;
  }

  /** `timeoutMs` bounds this caller's wait; a start it begins has its own budget (bridge.callTimeoutMs, or longer for a caller that waits longer). */
  async tools(name: string, timeoutMs = this.options.callTimeoutMs): Promise<BridgeTool[]> {
    return this.pool.tools(await this.enabled(name), { waitMs: timeoutMs, startMs: this.options.callTimeoutMs });
  }

  /** The tools a server last listed, without starting it (undefined: not listed since the daemon started). */
  async knownTools(name: string): Promise<BridgeTool[] | undefined> {
    return this.pool.knownTools(await this.registry.get(name));
  }

  /**
   * Calls a tool and records the call; a server-side tool error is a result, not an exception.
   * `onUpdate` hears the call's progress as it comes (and lets progress renew the timeout: pool.ts).
   * A call is recorded the same way whether it comes as `arguments` or as `params`: from the moment
   * it is taken, the server's start (and the tool list that types `params`) included, and a start
   * that fails is a failed call with its reason.
   */
  /** `cancel`: the caller went away or cancelled; the call is cancelled at the server (and recorded so). */
  async call(name: string, req: CallRequest, caller: BridgeCaller, onUpdate?: (update: CallUpdate) => void, cancel?: AbortSignal): Promise<CallToolResult> {
    const server = await this.enabled(name);
    const started = performance.now();
    let result: CallToolResult | undefined;
    let failure: unknown;
    // `params` that do not fit the tool's schema, or name no tool of the server: never called.
    let refused = false;
    try {
      let args = req.arguments;
      if (req.params !== undefined) {
        const typed = await this.typed(server, req.tool, req.params);
        if (typed instanceof SignetError) {
          refused = true;
          throw typed;
        }
        args = typed;
      }
      result = await this.pool.call(server, req.tool, args, {
        callMs: req.timeoutMs ?? this.options.callTimeoutMs,
        startMs: this.options.callTimeoutMs,
        cancel,
      }, onUpdate);
      return result;
    } catch (err) {
      failure = err;
      throw err;
    } finally {
      // A tool the server does not list, or arguments refused before the call, never reached a tool:
      // nothing to record. A tool it lists that it then calls unknown (-32601) is its failure, recorded.
      const unknownTool = failure instanceof NoSuchToolError;
      if (!unknownTool && !refused) {
        this.options.invocations.record({
          server: name,
          tool: req.tool,
          agentId: caller.agentId,
          source: req.source,
          latencyMs: Math.round(performance.now() - started),
          success: failure === undefined && result?.isError !== true,
          errorText: errorText(result, failure),
          sessionKey: req.sessionKey ?? caller.sessionKey,
          client: req.source === "cli" ? (req.client ?? "cli") : undefined,
        });
      }
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.unwatch?.();
    this.unwatch = null;
    await this.following;
    await this.pool.stop();
  }

  /** Another daemon changed the server `name` (null: any server may have changed). */
  private followOthers(name: string | null): void {
    this.following = this.following
      .then(() => this.closeStale(name))
      .catch((err: unknown) =>
        this.options.log.warn(`bridge: could not read the MCP servers another daemon changed, so this daemon's processes of them were not checked: ${(err as Error).message}`),
      );
  }

  /** Closes this daemon's processes the registry no longer asks for, as it is now; tells open streams to re-list. */
  private async closeStale(name: string | null): Promise<void> {
    if (this.stopped) return;
    const names = name === null ? this.pool.status().map((s) => s.name) : [name];
    for (const n of names) this.pool.closeStale(n, await this.registry.find(n));
    this.options.onServersChanged?.();
  }

  /**
   * A call's `params` (`k=v` words, as `signet mcp <server> <tool> --param` takes them) typed by the
   * tool's schema: the command line's call in one request. The tool list comes from the server,
   * started if need be (within the call's start budget, as a call with `arguments` starts it); a start
   * that fails throws. What does not fit, or a tool the server does not have, is the caller's input
   * to correct: returned as the error to answer with.
   */
  private async typed(server: InstalledServer, toolName: string, params: string[]): Promise<Record<string, unknown> | SignetError> {
    const tools = await this.pool.tools(server, { waitMs: this.options.callTimeoutMs, startMs: this.options.callTimeoutMs });
    try {
      return parseParams(toolNamed(server.name, tools, toolName), params);
    } catch (err) {
      if (err instanceof ParamError) return new SignetError("invalid_input", err.message);
      throw err;
    }
  }

  private async enabled(name: string): Promise<InstalledServer> {
    const server = await this.registry.get(name);
    if (!server.enabled) {
      throw new SignetError("disabled", `MCP server "${name}" is disabled: enable it with \`signet mcp enable ${name}\``);
    }
    return server;
  }
}

function errorText(result: CallToolResult | undefined, failure: unknown): string | undefined {
  if (failure !== undefined) return ((failure as Error)?.message ?? String(failure)).slice(0, ERROR_TEXT_MAX);
  if (!result?.isError) return undefined;
  const text = result.content
    .filter((c) => c.type === "text")
    .map((c) => (c as { text: string }).text)
    .join("\n");
  return (text || "the tool reported an error").slice(0, ERROR_TEXT_MAX);
}
