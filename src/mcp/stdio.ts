// `signet-mcp`: the MCP server over stdio. Only protocol messages go to stdout; logs go to stderr.
// On stdin EOF it finishes what is in flight, then exits.
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { SignetClient } from "../client/client";
import { isLoopbackHost } from "../config/daemon-url";
import { loadConfig } from "../config/load";
import type { Config } from "../config/schema";
import { createLogger, type Logger } from "../logger";
import { InvocationReporter } from "./invocation-reporter";
import { MCP_PROVENANCE, createMcpServer } from "./server";

/** With a local daemon URL and `daemon.autostart` on, a daemon that is not running is started. */
function autostarter(config: Config, log: Logger): (() => Promise<boolean>) | undefined {
  const url = new URL(config.daemon.url);
  if (!config.daemon.autostart || !isLoopbackHost(url.hostname)) return undefined;
  return async () => {
    const { startBackground, DaemonControlError } = await import("../control/daemon-process");
    try {
      const info = await startBackground(config, { port: url.port || undefined }, log);
      log.info(`started the daemon at ${info.url} (pid ${info.pid})`);
      return true;
    } catch (err) {
      // Another client may have started it a moment ago: then the retry simply works.
      log.warn(`could not start the daemon: ${(err as Error).message}`);
      return err instanceof DaemonControlError && /already running/.test((err as Error).message);
    }
  };
}

export async function runStdioServer(): Promise<number> {
  const log = createLogger("signet-mcp");
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    log.error((err as Error).message);
    return 2;
  }
  const client = new SignetClient({
    baseUrl: config.daemon.url,
    agentId: config.agent.id,
    token: config.auth.token,
    ...MCP_PROVENANCE,
    bridgeCallTimeoutMs: config.bridge.callTimeoutMs,
    autostart: autostarter(config, log),
    dataDir: config.dataDir,
  });
  const sessionKey = process.env.SIGNET_SESSION_KEY?.trim() || undefined;
  // Agent tracking (analytics.trackAgentCalls) covers calls to Signet's own tools too.
  const reporter = config.analytics.trackAgentCalls
    ? new InvocationReporter(client, { flushMs: config.analytics.flushMs, sessionKey, log })
    : undefined;
  const server = createMcpServer(client, { sessionKey }, reporter?.record);
  const transport = new StdioServerTransport();
  let inFlight = 0;
  let idle: (() => void) | undefined;
  await server.connect(transport);
  // Count requests between arrival and response so EOF can wait for the answers still owed.
  const deliver = transport.onmessage;
  transport.onmessage = (message: JSONRPCMessage) => {
    if ("id" in message && "method" in message) inFlight++;
    deliver?.(message);
  };
  const send = transport.send.bind(transport);
  transport.send = async (message: JSONRPCMessage) => {
    await send(message);
    if ("id" in message && !("method" in message) && --inFlight === 0) idle?.();
  };
  await new Promise<void>((resolve) => process.stdin.once("end", resolve));
  if (inFlight > 0) await new Promise<void>((resolve) => (idle = resolve));
  await server.close();
  await reporter?.flush();
  return 0;
}
