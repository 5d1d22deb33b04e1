// Daemon lifecycle: take the data directory's lock, migrate, serve, and shut down cleanly.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { isLoopbackHost, reachableHost } from "../config/daemon-url";
import type { Config } from "../config/schema";
import { ChildLedger } from "../core/bridge/child-ledger";
import { BridgeService } from "../core/bridge/service";
import { openSecrets } from "../core/secrets";
import { Analytics } from "../core/analytics";
import { AccessLog } from "../core/recall/access-log";
import { UsageBoost } from "../core/recall/usage-boost";
import { TokenService } from "../core/auth/tokens";
import { CodeIndexService } from "../core/code/service";
import { createEmbedder } from "../core/embed/factory";
import { EmbeddingWorker } from "../core/embed/worker";
import { Foreground } from "../core/foreground";
import { GraphService } from "../core/graph/service";
import { MemoryService } from "../core/memory/service";
import { RecallService } from "../core/recall/service";
import { SessionService } from "../core/sessions/service";
import { AgentsService } from "../core/agents/service";
import { createChatModel, LlmError, type ChatModel } from "../core/llm/chat";
import { SourceService } from "../core/sources/service";
import { takeFromEnvironment } from "../os/environ";
import { becomeChildSubreaper } from "../os/libc";
import { procInfo } from "../os/proc-stat";
import { codeProjectsPath, daemonFiles } from "../config/paths";
import { McpStreamHub } from "../mcp/http";
import { VERSION } from "../version";
import { errorResponse } from "./http-errors";
import { RECALLS_PER_COLLECTION, changesPacer, collectAsync, collectionPacer } from "./collect-pacer";
import { createHandler } from "./app";
import type { DaemonContext } from "./context";
import { lastingDaemonId, ownerCredentials } from "./credentials";
import { secureDataDir } from "../control/data-dir";
import { assertDataDir, DaemonLock } from "../control/lock";
import { createLogger, type Logger } from "../logger";
import { logUnhandledRejections } from "./rejection-guard";
import { type DaemonStores, openStores } from "./stores";

class DaemonStartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DaemonStartError";
  }
}

/**
 * Who holds a port this daemon could not bind, when it is a Signet daemon (its /health, asked as any
 * loopback caller may): most likely one of another data directory given the same port.
 */
async function signetDaemonAt(bind: string, port: number): Promise<string | null> {
  try {
    const res = await fetch(`http://${reachableHost(bind)}:${port}/health`, { redirect: "manual", signal: AbortSignal.timeout(1000) });
    const body = (await res.json()) as { status?: unknown; version?: unknown; db?: { memories?: unknown } };
    if ((body.status !== "ok" && body.status !== "degraded") || typeof body.version !== "string" || typeof body.db?.memories !== "number") return null;
    return ` by another Signet daemon (version ${body.version}, ${body.db.memories} memories), most likely one of another data directory`;
  } catch {
    return null;
  }
}

export interface RunningDaemon {
  url: string;
  port: number;
  context: DaemonContext;
  stop(): Promise<void>;
}

/** Local mode has no tokens, so it serves loopback only (SPEC §12); team and hybrid may bind anywhere. */
function checkAuthMode(config: Config): void {
  if (config.auth.mode === "local" && !isLoopbackHost(config.daemon.bind)) {
    throw new DaemonStartError(
      `daemon.bind ${config.daemon.bind} is not a loopback address; auth.mode "local" serves loopback only (127.0.0.1 or ::1): ` +
        'bind to loopback, or set auth.mode to "team" or "hybrid" (SIGNET_AUTH_MODE) and give callers tokens (signet token create)',
    );
  }
}

function sharedAgents(config: Config): string[] {
  return Object.entries(config.agents)
    .filter(([, a]) => a.readPolicy === "shared")
    .map(([id]) => id);
}

/**
 * The secret store's passphrase, from the file SIGNET_SECRETS_PASSPHRASE_FILE names (its first line)
 * or from SIGNET_SECRETS_PASSPHRASE, which is then taken out of the daemon's environment: a job or
 * another process of the account reading /proc/<pid>/environ must not find it there. An empty one
 * stops the start: it is a mistake (a variable set from nothing, a file not yet written), and going
 * on would keep the store under a key file instead, with nothing said.
 */
function secretsPassphrase(): string | undefined {
  const inEnv = takeFromEnvironment("SIGNET_SECRETS_PASSPHRASE");
  const file = process.env.SIGNET_SECRETS_PASSPHRASE_FILE;
  const empty = (variable: string, where: string, fix: string) =>
    new DaemonStartError(`the secret store's passphrase is empty: ${where}. ${fix}, or unset ${variable} to keep the store under a key file`);
  if (file === undefined) {
    if (inEnv === "") throw empty("SIGNET_SECRETS_PASSPHRASE", "SIGNET_SECRETS_PASSPHRASE is set to nothing", "Set it to the passphrase");
    return inEnv;
  }
  const variable = "SIGNET_SECRETS_PASSPHRASE_FILE";
  if (file === "") throw empty(variable, `${variable} is set to nothing`, "Set it to the file holding the passphrase");
  let passphrase: string;
  try {
    passphrase = readFileSync(file, "utf8").split(/\r?\n/, 1)[0]!;
  } catch (err) {
    throw new DaemonStartError(`cannot read the secret store's passphrase from ${variable} (${file}): ${(err as Error).message}`);
  }
  if (passphrase === "") throw empty(variable, `the first line of ${file} (${variable}) is empty`, "Write the passphrase on that line");
  return passphrase;
}

/**
 * The configured llm (or undefined), each of its calls aborted once `stopping` is: a request waiting
 * for the model (a rerank, an aggregate, a Dreaming pass, an extraction) then goes on at once with
 * its fallback, rather than holding the stop for its own timeout (up to 120 s, past the 10 s
 * `signet daemon stop` waits before it kills the daemon).
 */
function stoppableChatModel(config: Config["llm"], stopping: AbortSignal): ChatModel | undefined {
  const model = createChatModel(config);
  if (!model) return undefined;
  return {
    label: model.label,
    async complete(messages, options) {
      const signal = options.signal ? AbortSignal.any([options.signal, stopping]) : stopping;
      try {
        return await model.complete(messages, { ...options, signal });
      } catch (err) {
        if (stopping.aborted && err instanceof LlmError) throw new LlmError(err.reason, "the daemon is stopping: the call to the llm was cancelled");
        throw err;
      }
    },
  };
}

/** `options.log`: where the daemon logs; by default its own lines on stderr. */
export async function startDaemon(config: Config, options: { log?: Logger } = {}): Promise<RunningDaemon> {
  checkAuthMode(config);
  const log = options.log ?? createLogger("daemon");
  // A file where the data directory should be is named as such, before secureDataDir's mkdir meets it.
  assertDataDir(config.dataDir);
  secureDataDir(config.dataDir, log);
  const lock = DaemonLock.acquire(config.dataDir);
  let stores: DaemonStores | undefined;
  try {
    const daemonId = lastingDaemonId(config.dataDir);
    stores = await openStores(config, log, daemonId);
    const store = stores;
    if (store.migrated.applied.length > 0) log.info(`applied migrations: ${store.migrated.applied.join(", ")}`);
    // Aborted first thing at stop: every llm call in flight then, and any made after.
    const llmStopping = new AbortController();
    const llm = stoppableChatModel(config.llm, llmStopping.signal);
    // One worker and one provider embed memories and document chunks (the sources serve it a queue).
    const paceCollections = changesPacer();
    const embeddings = new EmbeddingWorker(store.embeddings, config.embedding.provider, () => createEmbedder(config.embedding), { afterStore: paceCollections, log });
    const accessLog = new AccessLog(store.access, log);
    let recall: RecallService | undefined;
    // Writes come first: the graph's extraction and passes, and keyword indexing, wait for them to pause.
    const foreground = new Foreground();
    const graph = new GraphService(store.graph, {
      dreamAfterMemories: config.graph.dreamAfterMemories,
      dreamIdleMs: config.graph.dreamIdleS * 1000,
      onError: (message) => log.error(message),
      afterWork: paceCollections,
      llm,
      llmApply: config.graph.llmApply,
      pause: () => foreground.pause(),
    });
    const memory = new MemoryService(store.memory, {
      sharedAgents: sharedAgents(config),
      onChange: (c) => {
        foreground.touch();
        embeddings.onChange(c);
        recall?.onChange(c);
        graph.onChange(c);
        paceCollections(1);
      },
    });
    const analytics = new Analytics(store.invocations, config.analytics, log, store.invocationFollower);
    const usageBoost = new UsageBoost(async () => (await analytics.features()).servers);
    // The data directory is never read as a source, nor as part of one (docs/security.md).
    const sources = new SourceService(store.sources, embeddings, log, undefined, config.dataDir);
    recall = new RecallService(store.recall, memory, embeddings, accessLog, {
      llm,
      usage: usageBoost,
      graph,
      pause: () => foreground.pause(),
      afterRank: collectionPacer(RECALLS_PER_COLLECTION, collectAsync),
    });
    // Presence and messages: the agents' routes and the session hooks share one store.
    const sessions = new SessionService(store.sessions, memory, recall, {
      dataDir: config.dataDir,
      sessionStartBudgetTokens: config.hooks.sessionStartBudgetTokens,
      llm,
      log,
      graph,
      agents: store.agents,
    });
    const agents = new AgentsService(store.agents, {
      presenceTtlS: config.crossAgent.presenceTtlS,
      acpAllowedOrigins: config.acp.allowedOrigins,
      onError: (message) => log.warn(message),
    });
    void agents.start();
    const mcpStreams = new McpStreamHub();
    const ledger = new ChildLedger(daemonFiles(config.dataDir).bridgeChildren);
    const swept = ledger.sweep();
    if (swept > 0) log.warn(`ended ${swept} MCP server process group(s) left by a daemon that did not stop cleanly`);
    const secrets = openSecrets({
      dataDir: config.dataDir,
      jobStore: store.secretJobs,
      provider: config.secrets.provider,
      passphrase: secretsPassphrase(),
      jobs: config.secrets,
      log,
    });
    const bridge = new BridgeService(store.servers, {
      ...config.bridge,
      invocations: analytics,
      secrets: secrets.lookup,
      ledger,
      log,
      // Agents see installed servers through mcp_server_list: tell open /mcp streams to re-list.
      onServersChanged: () => void mcpStreams.toolsChanged(),
      onToolsChanged: () => void mcpStreams.toolsChanged(),
    });
    const tokens = new TokenService(store.tokens, { onError: (message) => log.warn(message) });
    void tokens.start();
    const context: DaemonContext = {
      config,
      credentials: ownerCredentials(config.dataDir),
      tokens,
      rateLimits: store.rateLimits,
      stores: store,
      memory,
      recall,
      sessions,
      agents,
      embeddings,
      graph,
      sources,
      startedAt: Date.now(),
      port: config.daemon.port,
      mcpStreams,
      bridge,
      analytics,
      secrets,
      code: new CodeIndexService(codeProjectsPath(config.dataDir), config.dataDir),
      llm,
      log,
    };
    const handle = createHandler(context);
    const limit = config.daemon.maxBodyBytes;
    let server: ReturnType<typeof Bun.serve>;
    try {
      server = Bun.serve({
        hostname: config.daemon.bind,
        port: config.daemon.port,
        // Streams and long calls lift it for their own request (context.setIdleTimeout).
        idleTimeout: config.daemon.idleTimeoutS,
        // The app streams bodies and answers over-limit ones with a JSON 413 without buffering
        // them; this is only the transport's backstop against absurd sizes.
        maxRequestBodySize: Math.max(limit * 64, 1024 * 1024 * 1024),
        // Production mode: Bun's development error page would show a malformed request our source.
        development: false,
        // Said outright: with development off, Bun sets SO_REUSEPORT, and a second daemon of this
        // account (another data directory on the same port) would share the port, the kernel
        // handing each new connection to either, so clients' writes would land in the other store.
        reusePort: false,
        fetch: handle,
        // The last resort: a failure that escaped every answer of the handler's own is the API's
        // retryable 503, never Bun's plain-text 500 page.
        error: (err) => {
          log.error("a request failed outside the routes' own error handling", err);
          return errorResponse("unavailable", `the daemon could not complete the request: ${err.message}`);
        },
      });
    } catch (err) {
      if ((err as { code?: string }).code === "EADDRINUSE") {
        const holder = (await signetDaemonAt(config.daemon.bind, config.daemon.port)) ?? "";
        throw new DaemonStartError(
          `port ${config.daemon.port} on ${config.daemon.bind} is already in use${holder}: stop whatever holds it, or choose another port with daemon.port / SIGNET_PORT`,
        );
      }
      throw err;
    }
    const port = server.port ?? config.daemon.port;
    context.port = port;
    const listening = server;
    context.peerAddress = (request) => listening.requestIP(request)?.address ?? null;
    context.setIdleTimeout = (request, seconds) => {
      try {
        listening.timeout(request, seconds);
      } catch {
        // not a request this server received (e.g. rebuilt by routable()): the default applies
      }
    };
    const host = config.daemon.bind.includes(":") ? `[${config.daemon.bind}]` : config.daemon.bind;
    const url = `http://${host}:${port}`;
    embeddings.start();
    sources.start().catch((err) => log.error(`sources: loading the keyword index failed, search stays on FTS5: ${(err as Error).message}`));
    analytics.start();
    const indexing = performance.now();
    recall
      .start()
      .then(
        (n) => n > 0 && log.info(`keyword index: ${n} memories loaded in ${Math.round(performance.now() - indexing)} ms`),
        (err) => log.error(`keyword index: loading failed, keyword recall finds only what it read and what was written since: ${(err as Error).message}`),
      )
      // Recalls wait for the keyword index; what extraction has not read can wait for it in turn.
      .then(() => graph.start())
      .catch((err) => log.error(`graph: reading what extraction has not read failed: ${(err as Error).message}`));
    // On a shared store, what other daemons write reaches this one's indexes through the change feeds.
    const feedError = (message: string) => log.error(message);
    await store.followMemories?.((c) => {
      recall.onChange(c);
      embeddings.followStored(c);
    }, feedError);
    await store.followSources?.((c) => sources.followStored(c), feedError);
    // On a shared store: what other daemons remove, disable or change in the MCP servers closes this daemon's processes of them.
    await bridge.start();
    // On a shared store: this daemon's row among those sharing it (signet doctor lists them).
    const roster = store.enrol?.({ id: daemonId, url, version: VERSION, startedAt: new Date(context.startedAt).toISOString() }, (m) => log.warn(m));
    await roster?.start();
    context.roster = roster;
    const processStart = procInfo(process.pid)?.started;
    lock.writePid({ pid: process.pid, port, url, startedAt: new Date(context.startedAt).toISOString(), version: VERSION, ...(processStart ? { processStart } : {}) });
    let stopping: Promise<void> | undefined;
    return {
      url,
      port,
      context,
      stop() {
        stopping ??= (async () => {
          lock.markStopping();
          // Requests waiting for the llm answer with their fallbacks now, so the server's stop below need not wait for them.
          llmStopping.abort();
          // Open /mcp notification streams never end on their own: end them so stop() can finish.
          await context.mcpStreams.closeAll();
          // So do message streams (GET /api/cross-agent/stream).
          await agents.closeAll();
          await tokens.stop();
          // Bridged servers go first: calls in flight fail at once instead of holding the HTTP
          // server's stop, and every child exits before the daemon does.
          await bridge.stop();
          // Secret exec jobs end with their process groups, and are marked interrupted.
          await secrets.stop();
          // An add or sync in progress ends after its current file, so its request answers and the server can stop.
          sources.halt();
          await server.stop();
          // Extractions write memories: they end (their llm calls aborted) before the database closes.
          await sessions.stop();
          recall.stop();
          // Before the embedding worker, which closes the provider both use.
          await sources.stop();
          await embeddings.stop();
          await graph.stop();
          await accessLog.flush();
          // After the bridge and the server: the last calls they record are written too.
          await analytics.stop();
          context.code.close();
          await roster?.stop();
          await store.close();
          lock.release();
        })();
        return stopping;
      },
    };
  } catch (err) {
    await stores?.close().catch(() => {});
    lock.release();
    throw err;
  }
}

/**
 * `signet daemon run`: serve in the foreground until SIGTERM, SIGINT or SIGHUP (its terminal
 * closed), then stop gracefully.
 */
export async function runDaemonForeground(config: Config): Promise<void> {
  const log = createLogger("daemon");
  // Here, not in startDaemon: a test process running a daemon must not adopt its other children's orphans.
  const noSubreaper = becomeChildSubreaper();
  if (noSubreaper) log.info(noSubreaper);
  // Here too, not in startDaemon: a test process keeps its runner's own handling of rejections.
  logUnhandledRejections(log);
  // Listened for before the start: a signal while the daemon starts (its record already written, a
  // terminal closed) stops it once it has started, rather than ending it with its record left behind.
  let received: string | undefined;
  let stopOn: ((signal: string) => void) | undefined;
  const signalled = (signal: string) => {
    if (received) return;
    received = signal;
    // A terminal that hung up takes the daemon's stderr with it: a log line that cannot be written
    // there (EIO, EPIPE) must not end the shutdown that follows.
    if (signal === "SIGHUP") process.stderr.on("error", () => {});
    stopOn?.(signal);
  };
  process.once("SIGTERM", () => signalled("SIGTERM"));
  process.once("SIGINT", () => signalled("SIGINT"));
  // A closing terminal may hang up more than once (the kernel, then the shell to its jobs): each
  // later SIGHUP is ignored, never left to its default, which would end the process mid-stop.
  process.on("SIGHUP", () => signalled("SIGHUP"));
  const daemon = await startDaemon(config, { log });
  // A fixed working directory: one autostarted inside a repository must not let that repository's
  // files (node_modules, .env) decide what anything the daemon starts resolves to.
  process.chdir(config.dataDir);
  log.info(`signet ${VERSION} listening on ${daemon.url} (pid ${process.pid}, data ${config.dataDir}, store ${daemon.context.stores.location}, auth.mode ${config.auth.mode})`);
  await new Promise<void>((resolve) => {
    stopOn = (signal) => {
      log.info(`${signal} received: shutting down`);
      daemon.stop().then(resolve, (err) => {
        log.error("shutdown failed", err);
        resolve();
      });
    };
    if (received) stopOn(received);
  });
  log.info("stopped");
}
