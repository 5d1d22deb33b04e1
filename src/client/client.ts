// The one typed client for the daemon's API, used by the CLI, signet-mcp and hooks alike: base URL
// validation, agent and provenance headers, the owner's credentials, a check that the daemon is the
// owner's own before anything is sent (docs/security.md), timeouts, and errors mapped back to codes.
import type { HookEvent } from "../contracts/hook-events";
import { isLoopbackHost, loopbackCandidates, parseDaemonUrl } from "../config/daemon-url";
import {
  CHALLENGE_PARAM,
  INSTANCE_KEY_HEADER,
  challengeProof,
  proofEndpoint,
  readOwnerFile,
} from "../config/owner-files";
import { daemonFiles } from "../config/paths";
import type {
  AlertsQueryParams,
  AlertsResponse,
  AnalyticsQueryParams,
  AnalyticsResponse,
  FeaturesQueryParams,
  FeaturesResponse,
  InvocationReportRequest,
  InvocationReportResponse,
  SessionToolsQueryParams,
  SessionToolsResponse,
  UnusedQueryParams,
  UnusedResponse,
} from "../contracts/analytics";
import { STATUS_OF, type ErrorBody, type ErrorCode } from "../contracts/errors";
import type {
  HistoryResponse,
  ListResponse,
  Memory,
  MemoryWithHistory,
  RememberResponse,
} from "../contracts/memory";
import type { RecallResponse } from "../contracts/recall";
import type { BackupResponse, ImportResponse } from "../contracts/transfer";
import type { EmbedStatusResponse, ReindexResponse } from "../contracts/embed";
import type {
  SourceAddRequest,
  SourceAddResponse,
  SourceListResponse,
  SourceRemoveResponse,
  SourceSearchResponse,
  SourceStreamLine,
  SourceSyncResponse,
} from "../contracts/sources";
import type {
  CallStreamLine,
  CallUpdate,
  InstalledServer,
  ServerListResponse,
  ServerToolsResponse,
} from "../contracts/bridge";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { HealthResponse } from "../contracts/health";
import type { TokenCreateResponse, TokenInfo, TokenListResponse } from "../contracts/auth";
import type {
  ExecAccepted,
  ExecJob,
  RemoveSecretResponse,
  SecretListResponse,
  SetSecretResponse,
} from "../contracts/secrets";
import type {
  AckResponse,
  AgentMessage,
  InboxResponse,
  MessageSendResponse,
  PresenceDeleteResponse,
  PresenceEntry,
  PresenceListResponse,
} from "../contracts/agents";
import type { BypassResponse, FeedbackResponse, HookRequest, HookResponse, SessionDetail, SessionListResponse, SessionSearchResponse } from "../contracts/session";
import type {
  CodeBlastResponse,
  CodeBriefingResponse,
  CodeClearResponse,
  CodeConstantsResponse,
  CodeContextResponse,
  CodeDoctorResponse,
  CodeSearchResponse,
  CodeStatusResponse,
} from "../contracts/code";

const DEFAULT_TIMEOUT_MS = 10_000;
/** The daemon bounds bridged calls itself (`bridge.callTimeoutMs`); the client waits a little longer. */
const BRIDGE_DEFAULT_CALL_MS = 60_000;
const BRIDGE_MARGIN_MS = 5_000;
/** An import batch or a backup writes as much as it is given: a large database takes minutes to copy. */
const TRANSFER_TIMEOUT_MS = 10 * 60_000;
/**
 * Aggregate recall may wait for the configured llm (docs/api.md#aggregate): the daemon bounds that
 * call at 45 s and then answers extractively, so the client waits 60 s. Without an llm the daemon
 * answers at once, so the longer wait costs nothing there.
 */
const AGGREGATE_TIMEOUT_MS = 60_000;

export class DaemonUnreachableError extends Error {
  /** The message says more than "not running" (a daemon that hangs, or runs elsewhere): show it as it is. */
  readonly explained: boolean;

  constructor(
    readonly url: string,
    detail: string,
    message?: string,
  ) {
    super(message ?? `daemon not running at ${url} (${detail}): start it with \`signet daemon start\``);
    this.name = "DaemonUnreachableError";
    this.explained = message !== undefined;
  }
}

/** Something answers on the daemon's port, but it cannot prove it is the owner's daemon for this data directory. */
export class DaemonIdentityError extends DaemonUnreachableError {
  constructor(url: string, message: string) {
    super(url, "not the owner's daemon", message);
    this.name = "DaemonIdentityError";
  }
}

/** Nothing answers, and autostart did not start a daemon; the message says why and what to do. */
export class DaemonNotStartedError extends DaemonUnreachableError {
  constructor(url: string, message: string) {
    super(url, "not started", message);
    this.name = "DaemonNotStartedError";
  }
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode | string,
    message: string,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export interface ClientOptions {
  baseUrl: string;
  agentId?: string;
  token?: string;
  /** Provenance: who is calling (`cli`, `hook`, `mcp-server`), recorded in version history. */
  actor?: string;
  actorType?: string;
  runtimePath?: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
  /** `bridge.callTimeoutMs`: how long a bridged call may take when the call names no timeout. */
  bridgeCallTimeoutMs?: number;
  /** Called once when the daemon refuses connections; true means "started, try again". */
  autostart?: () => Promise<boolean>;
  /**
   * Called when no daemon answers (`silent`: it accepted the connection but said nothing in time),
   * after autostart: a message that says more than "not running", such as that the data directory's
   * daemon runs but hangs, or runs on another port. Undefined keeps the usual message.
   */
  explainNoAnswer?: (url: string, detail: string, silent: boolean) => Promise<string | undefined>;
  /**
   * The data directory whose owner this client acts for (the CLI's and signet-mcp's). With a loopback
   * daemon URL, the daemon must prove it holds this directory's instance key before anything is
   * sent; admin requests carry its admin token and reports its instance key.
   */
  dataDir?: string;
  /** Headers added to each request as it is sent (signet-mcp: the tool call it serves, src/mcp/server.ts). */
  callHeaders?: () => Record<string, string> | undefined;
  /**
   * The owner's own CLI on the daemon's machine: with no `token`, every request carries the admin
   * token of `dataDir` (once the daemon proved it holds that directory), so the owner is not refused
   * in team mode. signet-mcp and hooks never set it: an agent gets a token of its own.
   */
  asOwner?: boolean;
}

/** What a request proves about its sender beyond the agent id. */
type Credential = "admin" | "instance";

type Query = Record<string, string | number | boolean | string[] | undefined>;

export interface RequestOptions {
  body?: unknown;
  query?: Query;
  timeoutMs?: number;
  credential?: Credential;
  /** The answer's media type asked for; default application/json. */
  accept?: string;
  /** Ends the request in place of `timeoutMs` (aborted with a TimeoutError), for answers that stream. */
  signal?: AbortSignal;
}

interface BridgeCallBody {
  tool: string;
  arguments?: unknown;
  timeoutMs?: number;
  [k: string]: unknown;
}

function queryString(query: Query | undefined): string {
  if (!query) return "";
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined) continue;
    params.set(k, Array.isArray(v) ? v.join(",") : String(v));
  }
  const s = params.toString();
  return s ? `?${s}` : "";
}

/** The lines of an NDJSON body, in time linear in its length however it is cut into chunks. */
async function* lines(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let pending: string[] = [];
  for (let done = false; !done; ) {
    const read = await reader.read();
    done = read.done;
    const chunk = done ? decoder.decode() : decoder.decode(read.value, { stream: true });
    let start = 0;
    for (let end = chunk.indexOf("\n"); end !== -1; end = chunk.indexOf("\n", start)) {
      pending.push(chunk.slice(start, end));
      const line = pending.join("");
      pending = [];
      start = end + 1;
      if (line.trim() !== "") yield line;
    }
    pending.push(chunk.slice(start));
  }
  const last = pending.join("");
  if (last.trim() !== "") yield last;
}

type SourceProgress = (progress: { done: number; total: number; path?: string }) => void;

export class SignetClient {
  readonly baseUrl: string;
  private readonly candidates: string[];
  private readonly doFetch: typeof fetch;
  private autostartTried = false;
  /** Where the owner's credentials are, when this client checks the daemon it reaches. */
  private readonly owner?: ReturnType<typeof daemonFiles>;
  /** Origins that proved they are the owner's daemon. */
  private readonly proven = new Set<string>();

  constructor(private readonly options: ClientOptions) {
    this.baseUrl = parseDaemonUrl(options.baseUrl);
    this.candidates = loopbackCandidates(this.baseUrl);
    this.doFetch = options.fetch ?? fetch;
    // A remote daemon is reached with a token (team mode), not through files on this machine.
    if (options.dataDir !== undefined && isLoopbackHost(new URL(this.baseUrl).hostname)) this.owner = daemonFiles(options.dataDir);
  }

  private headers(hasBody: boolean, credential: Credential | undefined, accept = "application/json"): Record<string, string> {
    const h: Record<string, string> = { accept };
    if (hasBody) h["content-type"] = "application/json";
    const o = this.options;
    if (o.agentId) h["x-signet-agent-id"] = o.agentId;
    const asOwner = credential === "admin" || (o.asOwner === true && o.token === undefined);
    const admin = asOwner && this.owner ? readOwnerFile(this.owner.adminToken) : null;
    const bearer = admin ?? o.token;
    if (bearer) h.authorization = `Bearer ${bearer}`;
    const instanceKey = credential === "instance" && this.owner ? readOwnerFile(this.owner.instanceKey) : null;
    if (instanceKey) h[INSTANCE_KEY_HEADER] = instanceKey;
    if (o.actor) h["x-signet-actor"] = o.actor;
    if (o.actorType) h["x-signet-actor-type"] = o.actorType;
    if (o.runtimePath) h["x-signet-runtime-path"] = o.runtimePath;
    return Object.assign(h, o.callHeaders?.());
  }

  async request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    return this.decode<T>(await this.send(method, path, opts));
  }

  /** The daemon's answer, its body unread: from the first loopback candidate that answers. */
  private async send(method: string, path: string, opts: RequestOptions): Promise<Response> {
    const timeoutMs = opts.timeoutMs ?? this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const hasBody = opts.body !== undefined;
    const init = {
      method,
      headers: this.headers(hasBody, opts.credential, opts.accept),
      body: hasBody ? JSON.stringify(opts.body) : undefined,
    };
    let lastError = "connection refused";
    for (const origin of this.candidates) {
      let response: Response;
      try {
        if (this.owner && !this.proven.has(origin)) await this.prove(origin, timeoutMs);
        response = await this.doFetch(`${origin}${path}${queryString(opts.query)}`, {
          ...init,
          signal: opts.signal ?? AbortSignal.timeout(timeoutMs),
        });
      } catch (err) {
        if (err instanceof DaemonIdentityError) throw err;
        const e = err as Error;
        if (e.name === "TimeoutError" || e.name === "AbortError") throw await this.unreachable(`no answer within ${timeoutMs} ms`, true);
        lastError = (e as { code?: string }).code === "ECONNREFUSED" ? "connection refused" : e.message || String(err);
        continue;
      }
      return response;
    }
    if (this.options.autostart && !this.autostartTried) {
      this.autostartTried = true;
      if (await this.options.autostart()) return this.send(method, path, opts);
    }
    throw await this.unreachable(lastError, false);
  }

  private async unreachable(detail: string, silent: boolean): Promise<DaemonUnreachableError> {
    const explained = await this.options.explainNoAnswer?.(this.baseUrl, detail, silent);
    return new DaemonUnreachableError(this.baseUrl, detail, explained);
  }

  /**
   * Before anything is sent: the daemon on `origin` answers a fresh nonce with its HMAC under the
   * instance key of our data directory, over the address it listens on. Another account that took
   * the port first, a daemon of another data directory, or a relay from this port to the daemon on
   * another one cannot answer for `origin`, and is told nothing.
   */
  private async prove(origin: string, timeoutMs: number): Promise<void> {
    const owner = this.owner!;
    const dataDir = this.options.dataDir!;
    const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("hex");
    const response = await this.doFetch(`${origin}/health?${CHALLENGE_PARAM}=${nonce}`, {
      headers: { accept: "application/json" },
      signal: AbortSignal.timeout(timeoutMs),
    });
    const body = (await response.json().catch(() => null)) as Partial<HealthResponse> | null;
    const key = readOwnerFile(owner.instanceKey);
    const url = new URL(origin);
    const port = Number(url.port) || (url.protocol === "https:" ? 443 : 80);
    if (key !== null && typeof body?.proof === "string" && body.proof === challengeProof(key, nonce, proofEndpoint(url.hostname, port))) {
      this.proven.add(origin);
      return;
    }
    const why =
      key === null
        ? `${owner.instanceKey} does not exist, so no daemon of yours was started for ${dataDir}`
        : `it cannot prove it holds ${owner.instanceKey} and listens on port ${port} itself`;
    throw new DaemonIdentityError(
      this.baseUrl,
      `refusing to talk to ${origin}: what answers on port ${port} is not your Signet daemon for ${dataDir}; ${why}. ` +
        "Another account's daemon, a daemon of another data directory, or a relay to your daemon on another port may hold the port: " +
        "stop it, or choose another port (SIGNET_PORT / daemon.port) or data directory (SIGNET_PATH).",
    );
  }

  private async decode<T>(response: Response): Promise<T> {
    const text = await response.text();
    let body: unknown = undefined;
    if (text) {
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
    }
    if (response.ok) return body as T;
    const err = body as Partial<ErrorBody> | undefined;
    throw new ApiError(
      response.status,
      err?.code ?? `http_${response.status}`,
      err?.error ?? `the daemon answered ${response.status} ${response.statusText || ""}`.trim(),
    );
  }

  /** A call may first wait for its server to start (bounded by bridge.callTimeoutMs), then run its own timeout. */
  private bridgeWait(callTimeoutMs: number | undefined): number {
    const configured = this.options.bridgeCallTimeoutMs ?? BRIDGE_DEFAULT_CALL_MS;
    return configured + (callTimeoutMs ?? configured) + BRIDGE_MARGIN_MS;
  }

  /**
   * A bridged call whose updates `onUpdate` hears as they come: the daemon answers NDJSON (updates,
   * then the result or the error). The daemon renews the call's timeout on progress, and each line
   * renews the wait here; a refusal before the call started comes as plain JSON with its status.
   */
  private async streamCall(name: string, body: BridgeCallBody, onUpdate: (update: CallUpdate) => void): Promise<CallToolResult> {
    const path = `/api/marketplace/servers/${encodeURIComponent(name)}/call`;
    for await (const text of this.streamLines("POST", path, { body, timeoutMs: this.bridgeWait(body.timeoutMs) })) {
      const line = JSON.parse(text) as CallStreamLine;
      if ("result" in line) return line.result;
      if ("error" in line) throw new ApiError(STATUS_OF[line.code] ?? 503, line.code, line.error);
      onUpdate(line);
    }
    throw new DaemonUnreachableError(this.baseUrl, "the answer ended before the call's result");
  }

  /** With the instance key (once the daemon proved itself), the answer includes pid, port and data directory. */
  health(): Promise<HealthResponse> {
    return this.request("GET", "/health", { timeoutMs: 2000, credential: "instance" });
  }

  /**
   * The lines of a streamed NDJSON answer. Each line renews the wait, so only a stalled answer times
   * out, never a long one.
   */
  private async *streamLines(method: string, path: string, opts: RequestOptions): AsyncGenerator<string> {
    const waitMs = opts.timeoutMs ?? this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const wait = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const renew = () => {
      clearTimeout(timer);
      timer = setTimeout(() => wait.abort(new DOMException(`no answer within ${waitMs} ms`, "TimeoutError")), waitMs);
    };
    renew();
    try {
      const response = await this.send(method, path, { ...opts, accept: opts.accept ?? "application/x-ndjson", signal: wait.signal });
      // A refusal comes as the usual JSON error: decode throws it.
      if (!response.ok) await this.decode(response);
      for await (const line of lines(response.body!)) {
        renew();
        yield line;
      }
    } catch (err) {
      // send() may have said why already (a daemon that runs but hangs).
      if (wait.signal.aborted && !(err instanceof DaemonUnreachableError)) throw new DaemonUnreachableError(this.baseUrl, `no answer within ${waitMs} ms`);
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  /** The data lines of the message stream (server-sent events), parsed; comments and ids skipped. */
  private async *messageEvents(query: Query, stallMs: number): AsyncGenerator<AgentMessage> {
    for await (const line of this.streamLines("GET", "/api/cross-agent/stream", { query, timeoutMs: stallMs, accept: "text/event-stream" })) {
      if (line.startsWith("data: ")) yield JSON.parse(line.slice("data: ".length)) as AgentMessage;
    }
  }

  readonly memory = {
    remember: (body: unknown) => this.request<RememberResponse>("POST", "/api/memory/remember", { body }),
    note: (body: unknown) => this.request<RememberResponse>("POST", "/api/memory/note", { body }),
    get: (id: string) => this.request<MemoryWithHistory>("GET", `/api/memory/${encodeURIComponent(id)}`),
    history: (id: string) => this.request<HistoryResponse>("GET", `/api/memory/${encodeURIComponent(id)}/history`),
    list: (query: Query) => this.request<ListResponse>("GET", "/api/memories", { query }),
    modify: (id: string, body: unknown) => this.request<Memory>("PATCH", `/api/memory/${encodeURIComponent(id)}`, { body }),
    forget: (id: string, body: unknown) => this.request<Memory>("DELETE", `/api/memory/${encodeURIComponent(id)}`, { body }),
    recover: (id: string, body: unknown) =>
      this.request<Memory>("POST", `/api/memory/${encodeURIComponent(id)}/recover`, { body }),
    recall: (body: unknown) =>
      this.request<RecallResponse>("POST", "/api/memory/recall", {
        body,
        timeoutMs: (body as { aggregate?: unknown } | null)?.aggregate === true ? AGGREGATE_TIMEOUT_MS : undefined,
      }),
    /** Rates memories injected or surfaced in a session (docs/api.md#memory-feedback). */
    feedback: (body: unknown) => this.request<FeedbackResponse>("POST", "/api/memory/feedback", { body }),
  };

  /**
   * Lifecycle hooks (docs/api.md#hooks). `timeoutMs` lets `signet hook` give up quickly: a harness
   * must never wait on a daemon that is down.
   */
  readonly hooks = {
    fire: (event: HookEvent, body: HookRequest | Record<string, unknown>, options: { timeoutMs?: number } = {}) =>
      this.request<HookResponse>("POST", `/api/hooks/${event}`, { body, timeoutMs: options.timeoutMs }),
    sessionStart: (body: HookRequest, options: { timeoutMs?: number } = {}) => this.hooks.fire("session-start", body, options),
    userPromptSubmit: (body: HookRequest, options: { timeoutMs?: number } = {}) => this.hooks.fire("user-prompt-submit", body, options),
    preCompaction: (body: HookRequest, options: { timeoutMs?: number } = {}) => this.hooks.fire("pre-compaction", body, options),
    compactionComplete: (body: HookRequest, options: { timeoutMs?: number } = {}) => this.hooks.fire("compaction-complete", body, options),
    sessionEnd: (body: HookRequest, options: { timeoutMs?: number } = {}) => this.hooks.fire("session-end", body, options),
  };

  /** Cross-agent presence and messages (docs/api.md#cross-agent); the caller is this client's agent. */
  readonly agents = {
    presence: (query: Query = {}) => this.request<PresenceListResponse>("GET", "/api/cross-agent/presence", { query }),
    heartbeat: (body: unknown) => this.request<PresenceEntry>("POST", "/api/cross-agent/presence", { body }),
    leave: (sessionKey: string) =>
      this.request<PresenceDeleteResponse>("DELETE", "/api/cross-agent/presence", { query: { session_key: sessionKey } }),
    /** An ACP relay may take its whole acpTimeoutMs (default 20 s): the client waits a little longer. */
    send: (body: { acpTimeoutMs?: number } & Record<string, unknown>) =>
      this.request<MessageSendResponse>("POST", "/api/cross-agent/messages", { body, timeoutMs: (body.acpTimeoutMs ?? 20_000) + BRIDGE_MARGIN_MS }),
    inbox: (query: Query = {}) => this.request<InboxResponse>("GET", "/api/cross-agent/messages", { query }),
    ack: (ids: number[]) => this.request<AckResponse>("POST", "/api/cross-agent/messages/ack", { body: { ids } }),
    /**
     * The live stream's messages, each as it arrives (after those past `last_event_id`). The daemon
     * sends a keep-alive every crossAgent.keepAliveS; `stallMs` without even that ends it.
     */
    watch: (query: Query = {}, stallMs = 60_000) => this.messageEvents(query, stallMs),
  };

  /** Sessions the hooks reported (docs/api.md#sessions). Keys may be raw or `session:<uuid>`. */
  readonly sessions = {
    list: (query: { active?: boolean; project?: string; limit?: number } = {}) =>
      this.request<SessionListResponse>("GET", "/api/sessions", { query }),
    get: (key: string) => this.request<SessionDetail>("GET", `/api/sessions/${encodeURIComponent(key)}`),
    search: (body: unknown) => this.request<SessionSearchResponse>("POST", "/api/sessions/search", { body }),
    bypass: (key: string, enabled: boolean) =>
      this.request<BypassResponse>("POST", `/api/sessions/${encodeURIComponent(key)}/bypass`, { body: { enabled } }),
  };

  /** The owner's export, import and backup (docs/api.md#export-import-and-backup): each needs the admin token. */
  readonly transfer = {
    /** The export file's lines: its header, then one memory each. */
    export: (query: { forgotten?: boolean } = {}) => this.streamLines("GET", "/api/export", { query, credential: "admin" }),
    import: (body: unknown) =>
      this.request<ImportResponse>("POST", "/api/import", { body, credential: "admin", timeoutMs: TRANSFER_TIMEOUT_MS }),
    backup: (body: { path: string }) =>
      this.request<BackupResponse>("POST", "/api/backup", { body, credential: "admin", timeoutMs: TRANSFER_TIMEOUT_MS }),
  };

  /** Document sources (docs/api.md#sources): adding, syncing and removing need the admin token. */
  readonly sources = {
    list: () => this.request<SourceListResponse>("GET", "/api/sources"),
    search: (body: unknown) => this.request<SourceSearchResponse>("POST", "/api/sources/search", { body }),
    /** With `onProgress`, the daemon streams how many files it has done. */
    add: (body: SourceAddRequest, onProgress?: SourceProgress) => this.ingest<SourceAddResponse>("/api/sources", body, onProgress),
    sync: (body: { id?: number }, onProgress?: SourceProgress) => this.ingest<SourceSyncResponse>("/api/sources/sync", body, onProgress),
    remove: (id: number) => this.request<SourceRemoveResponse>("DELETE", `/api/sources/${id}`, { credential: "admin" }),
  };

  /** An add or sync: a large tree takes minutes, so the wait is the transfers' (renewed by each progress line). */
  private async ingest<T>(path: string, body: unknown, onProgress?: SourceProgress): Promise<T> {
    const opts = { body, credential: "admin" as const, timeoutMs: TRANSFER_TIMEOUT_MS };
    if (!onProgress) return this.request<T>("POST", path, opts);
    for await (const text of this.streamLines("POST", path, opts)) {
      const line = JSON.parse(text) as SourceStreamLine;
      if ("result" in line) return line.result as T;
      if ("error" in line) throw new ApiError(STATUS_OF[line.code as ErrorCode] ?? 503, line.code, line.error);
      onProgress(line.progress);
    }
    throw new DaemonUnreachableError(this.baseUrl, "the answer ended before the result");
  }

  /** Re-embedding (docs/api.md#re-embedding): starting one rewrites every vector, so it needs the admin token. */
  readonly embed = {
    status: () => this.request<EmbedStatusResponse>("GET", "/api/embed/status"),
    reindex: (body: { all?: boolean }) => this.request<ReindexResponse>("POST", "/api/embed/reindex", { body, credential: "admin" }),
  };

  /** Invocation tracking (docs/api.md#analytics): signet-mcp's reports, and usage analytics. */
  readonly analytics = {
    report: (body: InvocationReportRequest, options: { timeoutMs?: number } = {}) =>
      this.request<InvocationReportResponse>("POST", "/api/mcp/invocations", {
        body,
        timeoutMs: options.timeoutMs,
        credential: "instance",
      }),
    summary: (query: AnalyticsQueryParams = {}) => this.request<AnalyticsResponse>("GET", "/api/mcp/analytics", { query: { ...query } }),
    server: (name: string, query: Omit<AnalyticsQueryParams, "server"> = {}) =>
      this.request<AnalyticsResponse>("GET", `/api/mcp/analytics/${encodeURIComponent(name)}`, { query: { ...query } }),
    alerts: (query: AlertsQueryParams = {}) => this.request<AlertsResponse>("GET", "/api/mcp/alerts", { query: { ...query } }),
    features: (query: FeaturesQueryParams = {}) => this.request<FeaturesResponse>("GET", "/api/mcp/features", { query: { ...query } }),
    unused: (query: UnusedQueryParams = {}) => this.request<UnusedResponse>("GET", "/api/mcp/unused", { query: { ...query } }),
    sessionTools: (key: string, query: SessionToolsQueryParams = {}) =>
      this.request<SessionToolsResponse>("GET", `/api/sessions/${encodeURIComponent(key)}/tools`, { query: { ...query } }),
  };

  /**
   * Secrets (docs/api.md#secrets). Listing and running need the instance key (signet-mcp has it) or
   * the admin token; setting and removing need the admin token (the CLI reads both itself).
   */
  readonly secrets = {
    list: () => this.request<SecretListResponse>("GET", "/api/secrets", { credential: "instance" }),
    set: (name: string, value: string) =>
      this.request<SetSecretResponse>("PUT", `/api/secrets/${encodeURIComponent(name)}`, { body: { value }, credential: "admin" }),
    remove: (name: string) => this.request<RemoveSecretResponse>("DELETE", `/api/secrets/${encodeURIComponent(name)}`, { credential: "admin" }),
    exec: (body: unknown) => this.request<ExecAccepted>("POST", "/api/secrets/exec", { body, credential: "instance" }),
    status: (jobId: string) => this.request<ExecJob>("GET", `/api/secrets/exec/${encodeURIComponent(jobId)}`, { credential: "instance" }),
  };

  /** API tokens (docs/api.md#tokens): managing them needs the owner's admin token. */
  readonly tokens = {
    create: (body: unknown) => this.request<TokenCreateResponse>("POST", "/api/tokens", { body, credential: "admin" }),
    list: () => this.request<TokenListResponse>("GET", "/api/tokens", { credential: "admin" }),
    revoke: (id: string) => this.request<TokenInfo>("DELETE", `/api/tokens/${encodeURIComponent(id)}`, { credential: "admin" }),
  };

  /** Installed MCP servers. Calls and tool listings may start a server: they wait as long as it may take. */
  readonly bridge = {
    list: (query: { enabled?: boolean } = {}) => this.request<ServerListResponse>("GET", "/api/marketplace/servers", { query }),
    get: (name: string) => this.request<InstalledServer>("GET", `/api/marketplace/servers/${encodeURIComponent(name)}`),
    // Installing, changing and removing servers need the owner's admin token.
    install: (body: unknown) => this.request<InstalledServer>("POST", "/api/marketplace/servers", { body, credential: "admin" }),
    update: (name: string, body: unknown) =>
      this.request<InstalledServer>("PATCH", `/api/marketplace/servers/${encodeURIComponent(name)}`, { body, credential: "admin" }),
    remove: (name: string) =>
      this.request<InstalledServer>("DELETE", `/api/marketplace/servers/${encodeURIComponent(name)}`, { credential: "admin" }),
    tools: (name: string, timeoutMs?: number) =>
      this.request<ServerToolsResponse>("GET", `/api/marketplace/servers/${encodeURIComponent(name)}/tools`, {
        query: { timeout_ms: timeoutMs },
        timeoutMs: this.bridgeWait(timeoutMs),
      }),
    /** With `onUpdate`, the call's progress is streamed to it, and progress renews the call's timeout. */
    call: (name: string, body: BridgeCallBody, options: { onUpdate?: (update: CallUpdate) => void } = {}) =>
      options.onUpdate
        ? this.streamCall(name, body, options.onUpdate)
        : this.request<CallToolResult>("POST", `/api/marketplace/servers/${encodeURIComponent(name)}/call`, {
            body,
            timeoutMs: this.bridgeWait(body.timeoutMs),
          }),
  };

  /** A project's code index (docs/api.md#code-index), `project` naming a folder in it; clearing it needs the admin token. */
  readonly code = {
    search: (body: unknown) => this.request<CodeSearchResponse>("POST", "/api/code/search", { body }),
    context: (body: unknown) => this.request<CodeContextResponse>("POST", "/api/code/context", { body }),
    blast: (body: unknown) => this.request<CodeBlastResponse>("POST", "/api/code/blast", { body }),
    status: (query: { project?: string } = {}) => this.request<CodeStatusResponse>("GET", "/api/code/status", { query }),
    doctor: (query: { project?: string } = {}) => this.request<CodeDoctorResponse>("GET", "/api/code/doctor", { query }),
    constants: (query: { limit?: number; min_files?: number; project?: string } = {}) =>
      this.request<CodeConstantsResponse>("GET", "/api/code/constants", { query }),
    briefing: (query: { compact?: boolean; project?: string } = {}) => this.request<CodeBriefingResponse>("GET", "/api/code/briefing", { query }),
    clear: (body: unknown) => this.request<CodeClearResponse>("POST", "/api/code/clear", { body, credential: "admin" }),
  };
}
