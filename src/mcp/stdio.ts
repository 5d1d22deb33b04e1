// `signet-mcp`: the MCP server over stdio. Only protocol messages go to stdout; logs go to stderr.
// On stdin EOF it finishes what is in flight, then exits.
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { SignetClient } from "../client/client";
import { loadConfig } from "../config/load";
import { autostarter } from "../control/autostart";
import { projectOfDirectory } from "../harness/hook-io";
import { lazyLogger } from "../logger";
import { harnessProcess } from "../os/harness-process";
import { isTerminal } from "../os/terminal";
import { sessionKeyProblem } from "../contracts/vocabulary";
import { VERSION } from "../version";
import { type Id, isNotification } from "./early-answer";
import { initializeAnswer } from "./initialize-answer";
import { localCallReporter } from "./invocation-reporter";
import { StdinFeed } from "./stdin-feed";
import { toolsListAnswer } from "./tools-list-answer";

const USAGE = `signet-mcp: Signet's MCP server over stdio.

An MCP client (Claude Code, Codex, OpenCode, ...) starts it and speaks JSON-RPC
on its stdin and stdout. Typed at a terminal, it prints this and exits.

  signet setup --harness <name>   register it with claude-code, codex, opencode
  signet doctor                   check the daemon, the harnesses, PATH
  signet mcp serve                the same server, under the name signet

Environment: SIGNET_PATH (the data directory), SIGNET_DAEMON_URL,
SIGNET_TOKEN_FILE (a 0600 file holding the API token; signet setup writes
one in team mode), SIGNET_TOKEN, SIGNET_AGENT_ID, SIGNET_SESSION_KEY (else
the session the hooks reported for the harness that started it),
SIGNET_AUTOSTART (start a missing local daemon; default on).

Options: --help, --version
`;

/**
 * Asked for --help, or typed at a terminal (stdin is one), signet-mcp explains itself instead of
 * waiting for JSON-RPC no one will send; with stdin a pipe it is the server. True when it explained.
 */
function explainedInstead(args: readonly string[]): boolean {
  const help = args.includes("--help") || args.includes("-h");
  if (!help && !isTerminal(0)) return false;
  // Help asked for is the output; unasked, stdout stays the protocol's.
  (help ? process.stdout : process.stderr).write(USAGE);
  return true;
}

export async function runStdioServer(): Promise<number> {
  if (explainedInstead(process.argv.slice(2))) return 0;
  const log = lazyLogger("signet-mcp");
  let config;
  try {
    // The last validation of the same input (src/config/cache.ts), as the CLI and the hook do.
    config = loadConfig({ cached: true });
  } catch (err) {
    log.error((err as Error).message);
    return 2;
  }
  // A harness starts its MCP servers with the session and waits for their initialize and tools/list
  // answers: those are sent from here, before the SDK and the tool table (a few hundred zod schemas)
  // load. The SDK's server handles the same requests once it is up, and its answers (the same) are
  // not sent again.
  // A line past MAX_MESSAGE_BYTES is dropped as it comes and answered once the SDK is up.
  const oversized: (string | number | null)[] = [];
  let answerOversized = (id: string | number | null) => void oversized.push(id);
  const stdin = new StdinFeed(MAX_MESSAGE_BYTES, (id) => answerOversized(id));
  const sentEarly = new Map<Id, string>();
  let writing = Promise.resolve();
  // The SDK loads when there is something only it can answer, once a tools/list was answered (the
  // harness's start is done), at stdin's end, or a moment after the initialize answer: its modules
  // evaluate in one piece, and a line that comes meanwhile waits for them.
  let loadNow!: () => void;
  const loading = new Promise<void>((resolve) => (loadNow = resolve));
  let idleLoad: ReturnType<typeof setTimeout> | undefined;
  stdin.watch((line) => {
    const initialize = initializeAnswer(line, VERSION);
    const early = initialize ?? toolsListAnswer(line);
    if (early === undefined) {
      if (isNotification(line)) return;
      // A request only the SDK answers: it answers that one and every one after it, in order.
      stdin.stopWatching();
      loadNow();
      return;
    }
    sentEarly.set(early.id, early.line);
    writing = writing.then(async () => void (await Bun.write(Bun.stdout, early.line)));
    if (initialize !== undefined) idleLoad ??= setTimeout(loadNow, SDK_LOAD_AFTER_MS);
    else loadNow();
  }, loadNow);
  await loading;
  clearTimeout(idleLoad);
  await writing;
  const [{ StdioServerTransport }, { MCP_PROVENANCE, createMcpServer, toolCallHeaders }, { cancelledIdOf, requestIdOf }] = await Promise.all([
    import("@modelcontextprotocol/sdk/server/stdio.js"),
    import("./server"),
    import("./cancellation"),
  ]);
  const start = autostarter(config, log);
  // A refusal goes to stderr too: the harness's MCP log is where a person looks for it.
  const autostart =
    start &&
    (async () => {
      try {
        return await start();
      } catch (err) {
        log.warn((err as Error).message);
        throw err;
      }
    });
  const client = new SignetClient({
    baseUrl: config.daemon.url,
    agentId: config.agent.id,
    token: config.auth.token,
    ...MCP_PROVENANCE,
    timeoutMs: config.daemon.requestTimeoutMs,
    bridgeCallTimeoutMs: config.bridge.callTimeoutMs,
    autostart,
    // A tool error that says the daemon runs but hangs, not that it is not running.
    explainNoAnswer: async (url, detail, silent) => (await import("../control/daemon-process")).explainNoAnswer(config, url, detail, silent),
    dataDir: config.dataDir,
    callHeaders: toolCallHeaders,
  });
  const sessionKey = process.env.SIGNET_SESSION_KEY?.trim() || undefined;
  const keyProblem = sessionKey === undefined ? null : sessionKeyProblem(sessionKey);
  if (keyProblem) {
    // Every tool call would fail sending it (a header cannot carry a control character).
    log.error(`SIGNET_SESSION_KEY ${JSON.stringify(sessionKey!.slice(0, 100))} is not a session key: it ${keyProblem}`);
    return 2;
  }
  const harness = sessionKey === undefined ? harnessProcess() : null;
  // The harness starts signet-mcp in the session's working directory: the project its hooks report.
  const server = createMcpServer(
    client,
    { sessionKey, project: projectOfDirectory(process.cwd()) },
    {
      // Never longer than a request may wait (daemon.requestTimeoutMs).
      sessionKey: harness === null ? undefined : () => sessionOfHarness(client, harness, Math.min(SESSION_LOOKUP_TIMEOUT_MS, config.daemon.requestTimeoutMs)),
      // Agent tracking (analytics.trackAgentCalls) covers calls to Signet's own tools too.
      onLocalCall: config.analytics.trackAgentCalls ? localCallReporter(client, log) : undefined,
    },
  );
  // The feed hands the transport one whole line at a time, never one past MAX_MESSAGE_BYTES.
  const transport = new StdioServerTransport(stdin.asStdin(), process.stdout, { maxBufferSize: MAX_MESSAGE_BYTES + 2 });
  // The requests still owed an answer, by id (a count, should a client reuse an id meanwhile), so
  // end of input waits for those answers and no longer.
  const owed = new Map<Id, number>();
  let idle: (() => void) | undefined;
  const done = (id: Id) => {
    const n = owed.get(id);
    if (n === undefined) return;
    if (n > 1) owed.set(id, n - 1);
    else owed.delete(id);
    if (owed.size === 0) idle?.();
  };
  // From here the SDK answers; what was sent before it is out first (one writer at a time on stdout).
  stdin.stopWatching();
  await writing;
  await server.connect(transport);
  const refuse = (id: string | number | null, error: { code: number; message: string }) =>
    void transport.send({ jsonrpc: "2.0", id, error } as unknown as JSONRPCMessage).catch(() => {});
  // A line the SDK cannot read is dropped there without a word: JSON-RPC answers it.
  const onerror = transport.onerror;
  transport.onerror = (err: Error) => {
    onerror?.(err);
    const problem = unreadable(err);
    if (problem) refuse(null, problem);
  };
  const tooLarge = { code: -32600, message: `Invalid Request: a message of more than ${MAX_MESSAGE_BYTES} bytes; it was not read` };
  answerOversized = (id) => refuse(id, tooLarge);
  for (const id of oversized.splice(0)) answerOversized(id);
  const deliver = transport.onmessage;
  transport.onmessage = (message: JSONRPCMessage) => {
    const id = requestIdOf(message);
    if (id !== undefined) owed.set(id, (owed.get(id) ?? 0) + 1);
    deliver?.(message);
    // A cancelled request is never answered (the SDK drops its handler's result): it is done. The
    // SDK acts on the cancellation a microtask later, so this does too: a request that came in the
    // same read as its cancellation, even after it, is then dropped by both.
    const cancelled = cancelledIdOf(message);
    if (cancelled !== undefined) queueMicrotask(() => done(cancelled));
  };
  const send = transport.send.bind(transport);
  transport.send = async (message: JSONRPCMessage) => {
    const isAnswer = "id" in message && !("method" in message);
    const id = isAnswer ? message.id : undefined;
    const early = id === undefined ? undefined : sentEarly.get(id);
    if (id !== undefined && early !== undefined) {
      // Sent already, before the SDK loaded. Were the SDK's own answer ever different (a request it
      // refuses that looked well-formed, a tool table changed without its listing), the log says so.
      sentEarly.delete(id);
      if (`${JSON.stringify(message)}\n` !== early) log.warn(`the SDK's answer to request ${JSON.stringify(id)} differs from the one sent before it loaded: ${JSON.stringify(message).slice(0, 500)}`);
    } else await send(message);
    if (id !== undefined) done(id);
  };
  await stdin.ended;
  if (owed.size > 0) {
    // With stdin at its end and nothing else pending, Bun's event loop spins (a core at 60-100%)
    // instead of sleeping; a pending timer makes it sleep while the last answers are awaited.
    const awake = setInterval(() => {}, AWAKE_MS);
    await new Promise<void>((resolve) => (idle = resolve));
    clearInterval(awake);
  }
  await server.close();
  return 0;
}

/**
 * The largest message signet-mcp reads (the SDK's stdio default, 10 MiB, closed the transport for
 * good): past the daemon's own body limit a tool answers too_large; a message past this one is
 * dropped and answered as an invalid request.
 */
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/** The JSON-RPC error for a line the SDK's transport could not read, or null for another failure. */
function unreadable(err: Error): { code: number; message: string } | null {
  if (err instanceof SyntaxError) return { code: -32700, message: `Parse error: ${err.message}` };
  if (err.name === "ZodError") {
    return { code: -32600, message: "Invalid Request: not a JSON-RPC 2.0 message (on stdio a batch is not taken: send each message on a line of its own)" };
  }
  return null;
}

/** The interval of the timer that keeps the event loop asleep while the last answers are awaited. */
const AWAKE_MS = 60_000;

/** How long after the initialize answer the SDK loads when no request came meanwhile. */
const SDK_LOAD_AFTER_MS = 100;

/** The time a session lookup may take before the call goes on without a session. */
const SESSION_LOOKUP_TIMEOUT_MS = 2000;

/**
 * The session the hooks last reported for `harness`, the process that started this one, asked at
 * each call: a harness starts a new session in the same process (Claude Code's /clear), and its
 * first hook may run after this server started. None when the hooks reported none (or none yet).
 */
async function sessionOfHarness(client: SignetClient, harness: string, timeoutMs: number): Promise<string | undefined> {
  try {
    const query = { harness_process: harness, active: true, limit: 1 };
    const found = await client.sessions.list(query, { timeoutMs });
    return found.sessions[0]?.key;
  } catch {
    return undefined;
  }
}
