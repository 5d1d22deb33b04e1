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
import { recordVouchesFor, runningDaemonUrl } from "../config/daemon-record";
import { daemonFiles } from "../config/paths";
import { STATUS_OF, type ErrorBody, type ErrorCode } from "../contracts/errors";
import type { API } from "../contracts/api";
import { fillPath, paramCount, type Answer, type BodyOf, type InputArgs, type Operation, type PathParams, type QueryArgs } from "../contracts/operation";
import { DEFAULT_ACP_TIMEOUT_MS, type Route } from "../contracts/routes";
import { TYPED_ROUTES as R, type Typed } from "../contracts/typed-routes";
import { READ_NEEDS } from "../contracts/vocabulary";
import type { RecallAnswerOf } from "../contracts/recall";
import type { SourceStreamLine } from "../contracts/sources";
import type { CallStreamLine, CallUpdate } from "../contracts/bridge";
import type { HealthResponse } from "../contracts/health";

const DEFAULT_TIMEOUT_MS = 10_000;
/** The daemon bounds bridged calls itself (`bridge.callTimeoutMs`); the client waits a little longer. */
const BRIDGE_DEFAULT_CALL_MS = 60_000;
const BRIDGE_MARGIN_MS = 5_000;
/**
 * Aggregate recall may wait for the configured llm (docs/api.md#aggregate): the daemon bounds that
 * call at 45 s and then answers extractively, so the client waits 60 s. Without an llm the daemon
 * answers at once, so the longer wait costs nothing there.
 */
const AGGREGATE_TIMEOUT_MS = 60_000;

/** The detail of a DaemonUnreachableError when nothing listens at the daemon's address. */
export const CONNECTION_REFUSED = "connection refused";

export class DaemonUnreachableError extends Error {
  /** The message says more than "not running" (a daemon that hangs, or runs elsewhere): show it as it is. */
  readonly explained: boolean;

  constructor(
    readonly url: string,
    readonly detail: string,
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
  /** The caller's cancellation (an MCP client's notifications/cancelled): the request is dropped when it fires. */
  cancel?: AbortSignal;
  /** The request only reads (default: a GET): when it gets no answer in time, nothing is said of its effect. */
  reads?: boolean;
}

type BridgeCallBody = BodyOf<typeof API.bridge.call>;

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

/** What a call may set beyond its input. */
interface CallOptions {
  timeoutMs?: number;
  /** The caller's cancellation: the request is dropped, and the daemon stops the work, when it fires. */
  cancel?: AbortSignal;
  /** Sent in place of the operation's own credential: one the daemon does not require but answers more with. */
  credential?: Credential;
}

/** A lifecycle hook's body (docs/api.md#hooks). */
type HookBody = BodyOf<typeof API.hooks.fire>;

/** The client method of an operation: its path parameters, then its body or query, then options. */
type Method<O extends Operation> = (...args: [...PathParams<O["path"]>, ...InputArgs<O>, options?: CallOptions]) => Promise<Answer<O>>;

/** A method for each operation of an area that answers JSON; a streamed answer is read by a method of its own. */
type Bound<Area extends Record<string, Operation>> = {
  [K in keyof Area as Area[K] extends { stream: string } ? never : K]: Method<Area[K]>;
};
type TypedArea<Area extends Record<string, Operation>> = { [K in keyof Area]: Typed<Area[K]> };

type SourceProgress = (progress: { done: number; total: number; path?: string }) => void;

/**
 * What a request that changes something and got no answer in time may still do: it was sent, and a
 * daemon that was only slow (stopped, swapping) carries it out when it runs again.
 */
const SENT_UNANSWERED = "; the request was sent, so the daemon may still carry it out: check before sending it again";

export class SignetClient {
  readonly baseUrl: string;
  private readonly candidates: string[];
  private readonly doFetch: typeof fetch;
  private autostartTried = false;
  /** Where the owner's credentials are, when this client checks the daemon it reaches. */
  private readonly owner?: ReturnType<typeof daemonFiles>;
  /** Origins that proved they are the owner's daemon. */
  private readonly proven = new Set<string>();
  /**
   * Each area's methods, made when the area is first used: a command or a hook uses one or two of
   * the thirteen, and making them all cost a new process about a millisecond.
   */
  private readonly areas = new Map<string, object>();

  constructor(private readonly options: ClientOptions) {
    this.baseUrl = parseDaemonUrl(options.baseUrl);
    this.candidates = loopbackCandidates(this.baseUrl);
    this.doFetch = options.fetch ?? fetch;
    // A remote daemon is reached with a token (team mode), not through files on this machine. This
    // machine's daemon may listen on one of its other addresses (daemon.bind): its record says so.
    if (options.dataDir !== undefined && (isLoopbackHost(new URL(this.baseUrl).hostname) || runningDaemonUrl(options.dataDir) === this.baseUrl)) {
      this.owner = daemonFiles(options.dataDir);
    }
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
    let lastError = CONNECTION_REFUSED;
    for (const origin of this.candidates) {
      let response: Response;
      try {
        if (this.owner && !this.proven.has(origin)) await this.prove(origin, timeoutMs);
        response = await this.doFetch(`${origin}${path}${queryString(opts.query)}`, {
          ...init,
          // A daemon never redirects. Followed, a redirect would carry the body (a memory, a secret
          // command) and the instance key to wherever it points: fetch drops only Authorization.
          redirect: "manual",
          signal: opts.signal ?? (opts.cancel ? AbortSignal.any([opts.cancel, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs)),
        });
      } catch (err) {
        if (err instanceof DaemonIdentityError) throw err;
        if (opts.cancel?.aborted) throw new Error("the call was cancelled");
        const e = err as Error;
        if (e.name === "TimeoutError" || e.name === "AbortError") throw await this.unreachable(`no answer within ${timeoutMs} ms${opts.reads ?? method === "GET" ? "" : SENT_UNANSWERED}`, true);
        lastError = (e as { code?: string }).code === "ECONNREFUSED" ? CONNECTION_REFUSED : e.message || String(err);
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
    // Something took the request and said nothing in time: "not running" would be wrong.
    const explained = (await this.options.explainNoAnswer?.(this.baseUrl, detail, silent)) ?? (silent ? `the daemon at ${this.baseUrl} did not answer (${detail})` : undefined);
    return new DaemonUnreachableError(this.baseUrl, detail, explained);
  }

  /**
   * Before anything is sent: the daemon on `origin` answers a fresh nonce with its HMAC under the
   * instance key of our data directory, over the address it listens on. Another account that took
   * the port first, a daemon of another data directory, or a relay from this port to the daemon on
   * another one cannot answer for `origin`, and is told nothing. On Linux the daemon's record in the
   * data directory can show the same without the round trip (config/daemon-record.ts).
   */
  private async prove(origin: string, timeoutMs: number): Promise<void> {
    const owner = this.owner!;
    const dataDir = this.options.dataDir!;
    // A round trip saved at every command: the daemon's own record can show it is the one listening.
    if (recordVouchesFor(dataDir, origin)) {
      this.proven.add(origin);
      return;
    }
    const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("hex");
    const response = await this.doFetch(`${origin}/health?${CHALLENGE_PARAM}=${nonce}`, {
      headers: { accept: "application/json" },
      redirect: "manual",
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
    if (response.status >= 300 && response.status < 400) {
      const to = response.headers.get("location");
      throw new ApiError(response.status, "redirect_refused", `the daemon answered ${response.status}${to ? ` to ${to}` : ""}; a Signet daemon never redirects, so nothing was sent on`);
    }
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
  private async streamCall(name: string, body: BridgeCallBody, onUpdate: (update: CallUpdate) => void): Promise<Answer<typeof API.bridge.call>> {
    for await (const text of this.streamOf(R.bridge.call, [name], body, { timeoutMs: this.bridgeWait(body.timeoutMs) })) {
      const line = JSON.parse(text) as CallStreamLine;
      if ("result" in line) return line.result;
      if ("error" in line) throw new ApiError(STATUS_OF[line.code] ?? 503, line.code, line.error);
      onUpdate(line);
    }
    throw new DaemonUnreachableError(this.baseUrl, "the answer ended before the call's result");
  }

  /** How `op` is sent with `input`: as its body or its query, with the credential and the wait it names. */
  private requestOptions(op: Route, input: unknown, options: CallOptions): RequestOptions {
    return {
      body: op.takes === "body" ? input : undefined,
      query: op.takes === "query" ? (input as Query | undefined) : undefined,
      credential: options.credential ?? op.credential,
      timeoutMs: options.timeoutMs ?? op.timeoutMs,
      cancel: options.cancel,
      reads: op.method === "GET" || READ_NEEDS.has(op.need),
    };
  }

  /** Calls `op` with its path parameters and its body or query, sending the credential it names. */
  call<O extends Operation>(op: Typed<O>, params: readonly string[], input?: unknown, options: CallOptions = {}): Promise<Answer<O>> {
    return this.request(op.method, fillPath(op.path, params), this.requestOptions(op, input, options));
  }

  /** The lines of `op`'s streamed answer (its progress, or its events), the request sent as call() sends it. */
  private streamOf(op: Route, params: readonly string[], input: unknown, options: CallOptions & { accept?: string } = {}): AsyncGenerator<string> {
    return this.streamLines(op.method, fillPath(op.path, params), { ...this.requestOptions(op, input, options), accept: options.accept });
  }

  /** The area `name`, made by `make` the first time it is asked for. */
  private area<T extends object>(name: string, make: () => T): T {
    let made = this.areas.get(name) as T | undefined;
    if (made === undefined) this.areas.set(name, (made = make()));
    return made;
  }

  private bind<Area extends Record<string, Operation>>(area: TypedArea<Area>): Bound<Area> {
    const methods = Object.entries<Route>(area)
      .filter(([, op]) => op.stream === undefined)
      .map(([name, op]) => {
        const n = paramCount(op.path);
        const takesInput = op.takes !== undefined;
        const method = (...args: unknown[]) =>
          this.call(op, args.slice(0, n) as string[], takesInput ? args[n] : undefined, args[takesInput ? n + 1 : n] as CallOptions | undefined);
        return [name, method] as const;
      });
    return Object.fromEntries(methods) as unknown as Bound<Area>;
  }

  /** With the instance key (once the daemon proved itself), the answer includes pid, port and data directory. */
  health(): Promise<HealthResponse> {
    return this.call(R.health.health, [], undefined, { credential: "instance" });
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
  private async *messageEvents(query: QueryArgs<typeof API.agents.watch.query>, stallMs: number): AsyncGenerator<Answer<typeof API.agents.watch>> {
    for await (const line of this.streamOf(R.agents.watch, [], query, { timeoutMs: stallMs, accept: "text/event-stream" })) {
      if (line.startsWith("data: ")) yield JSON.parse(line.slice("data: ".length)) as Answer<typeof API.agents.watch>;
    }
  }

  get memory() {
    return this.area("memory", () => ({
      ...this.bind(R.memory),
      /** Memories; with `sourceOnly: true`, document chunks in the same envelope. */
      recall: <B extends BodyOf<typeof API.recall.recall>>(body: B) =>
        this.call(R.recall.recall, [], body, { timeoutMs: body.aggregate === true ? AGGREGATE_TIMEOUT_MS : undefined }) as Promise<RecallAnswerOf<B>>,
    }));
  }

  /**
   * Lifecycle hooks (docs/api.md#hooks). `timeoutMs` lets `signet hook` give up quickly: a harness
   * must never wait on a daemon that is down.
   */
  get hooks() {
    return this.area("hooks", () => ({
      /** The derived method, with the event typed as one of HOOK_EVENTS. */
      fire: (event: HookEvent, body: HookBody, options: CallOptions = {}) => this.call(R.hooks.fire, [event], body, options),
      sessionStart: (body: HookBody, options: CallOptions = {}) => this.hooks.fire("session-start", body, options),
      userPromptSubmit: (body: HookBody, options: CallOptions = {}) => this.hooks.fire("user-prompt-submit", body, options),
      preCompaction: (body: HookBody, options: CallOptions = {}) => this.hooks.fire("pre-compaction", body, options),
      compactionComplete: (body: HookBody, options: CallOptions = {}) => this.hooks.fire("compaction-complete", body, options),
      sessionEnd: (body: HookBody, options: CallOptions = {}) => this.hooks.fire("session-end", body, options),
    }));
  }

  /** Cross-agent presence and messages (docs/api.md#cross-agent); the caller is this client's agent. */
  get agents() {
    return this.area("agents", () => ({
      ...this.bind(R.agents),
      /** An ACP relay may take its whole acpTimeoutMs (default 20 s): the client waits a little longer. */
      send: (body: BodyOf<typeof API.agents.send>) =>
        this.call(R.agents.send, [], body, { timeoutMs: (body.acpTimeoutMs ?? DEFAULT_ACP_TIMEOUT_MS) + BRIDGE_MARGIN_MS }),
      /**
       * The live stream's messages, each as it arrives (after those past `last_event_id`). The daemon
       * sends a keep-alive every crossAgent.keepAliveS; `stallMs` without even that ends it.
       */
      watch: (query: QueryArgs<typeof API.agents.watch.query> = {}, stallMs = 60_000) => this.messageEvents(query, stallMs),
    }));
  }

  /**
   * Sessions the hooks reported, and memory feedback (docs/api.md#sessions). Keys may be raw or
   * `session:<uuid>`; removing one needs the admin token.
   */
  get sessions() {
    return this.area("sessions", () => this.bind(R.sessions));
  }

  /** The owner's export, import and backup (docs/api.md#export-import-and-backup): each needs the admin token. */
  get transfer() {
    return this.area("transfer", () => ({
      ...this.bind(R.transfer),
      /** The export file's lines: its header, then one memory each. */
      export: (query: QueryArgs<typeof API.transfer.export.query> = {}) => this.streamOf(R.transfer.export, [], query),
    }));
  }

  /** Document sources (docs/api.md#sources): adding, syncing and removing need the admin token. */
  get sources() {
    return this.area("sources", () => ({
      ...this.bind(R.sources),
      /** With `onProgress`, the daemon streams how many files it has done. */
      add: (body: BodyOf<typeof API.sources.add>, onProgress?: SourceProgress) => this.ingest(R.sources.add, body, onProgress),
      sync: (body?: BodyOf<typeof API.sources.sync>, onProgress?: SourceProgress) => this.ingest(R.sources.sync, body, onProgress),
    }));
  }

  /** An add or sync: its JSON answer, or with `onProgress` its progress lines, each renewing the op's long wait, then that answer. */
  private async ingest<O extends typeof API.sources.add | typeof API.sources.sync>(op: Typed<O>, body: unknown, onProgress?: SourceProgress): Promise<Answer<O>> {
    if (!onProgress) return this.call(op, [], body);
    for await (const text of this.streamOf(op, [], body)) {
      const line = JSON.parse(text) as SourceStreamLine;
      if ("result" in line) return line.result as Answer<O>;
      if ("error" in line) throw new ApiError(STATUS_OF[line.code as ErrorCode] ?? 503, line.code, line.error);
      onProgress(line.progress);
    }
    throw new DaemonUnreachableError(this.baseUrl, "the answer ended before the result");
  }

  /** Re-embedding (docs/api.md#re-embedding): starting one rewrites every vector, so it needs the admin token. */
  get embed() {
    return this.area("embed", () => this.bind(R.embed));
  }

  /** The knowledge graph (docs/api.md#knowledge-graph): a Dreaming pass rewrites it, so it needs the admin token. */
  get graph() {
    return this.area("graph", () => this.bind(R.graph));
  }

  /** Invocation tracking (docs/api.md#analytics): signet-mcp's reports, and usage analytics. */
  get analytics() {
    return this.area("analytics", () => this.bind(R.analytics));
  }

  /**
   * Secrets (docs/api.md#secrets). Listing and running need the instance key (signet-mcp has it) or
   * the admin token; setting and removing need the admin token (the CLI reads both itself).
   */
  get secrets() {
    return this.area("secrets", () => this.bind(R.secrets));
  }

  /** API tokens (docs/api.md#tokens): managing them needs the owner's admin token. */
  get tokens() {
    return this.area("tokens", () => this.bind(R.tokens));
  }

  /** Installed MCP servers. Calls and tool listings may start a server: they wait as long as it may take. */
  get bridge() {
    return this.area("bridge", () => ({
      ...this.bind(R.bridge),
      tools: (name: string, timeoutMs?: number) =>
        this.call(R.bridge.tools, [name], { timeout_ms: timeoutMs }, { timeoutMs: this.bridgeWait(timeoutMs) }),
      /**
       * With `onUpdate`, the call's progress is streamed to it, and progress renews the call's timeout;
       * `cancel` drops the request when it fires, and the daemon cancels the call at the server.
       */
      call: (name: string, body: BridgeCallBody, options: { onUpdate?: (update: CallUpdate) => void; cancel?: AbortSignal } = {}) =>
        options.onUpdate
          ? this.streamCall(name, body, options.onUpdate)
          : this.call(R.bridge.call, [name], body, { timeoutMs: this.bridgeWait(body.timeoutMs), cancel: options.cancel }),
    }));
  }

  /** A project's code index (docs/api.md#code-index), `project` naming a folder in it; clearing it needs the admin token. */
  get code() {
    return this.area("code", () => this.bind(R.code));
  }
}
