// What client commands share: flags for the daemon URL and agent, the loaded config and the client
// (which starts a missing daemon, src/control/autostart.ts).
import { SignetClient } from "../client/client";
import { loadConfig } from "../config/load";
import type { Config } from "../config/schema";
import { autostarter } from "../control/autostart";
import { lazyLogger } from "../logger";
import { UsageError } from "./errors";
import { outputArgs } from "./output";

export const clientArgs = {
  ...outputArgs,
  url: { type: "string", description: "Daemon URL (origin only); default from SIGNET_DAEMON_URL or config" },
  agent: { type: "string", description: "Agent id to act as; default from SIGNET_AGENT_ID or agent.id" },
} as const;

export interface ClientFlags {
  url?: string;
  agent?: string;
}

/** `running: false`: the configured daemon URL, not where the data directory's daemon runs now (src/config/load.ts). */
export function configFromFlags(flags: ClientFlags & { port?: string; bind?: string }, options: { running?: boolean } = {}): Config {
  const daemon: Record<string, unknown> = {};
  if (flags.url !== undefined) daemon.url = flags.url;
  if (flags.port !== undefined) {
    if (!/^\d+$/.test(flags.port)) throw new UsageError(`--port ${JSON.stringify(flags.port)} is not a port number`);
    daemon.port = Number(flags.port);
  }
  if (flags.bind !== undefined) daemon.bind = flags.bind;
  // cached: the last validation of the same input (src/config/cache.ts); building the schema and
  // validating cost a short command more than the rest of its start.
  return loadConfig({ flags: { daemon, agent: flags.agent === undefined ? undefined : { id: flags.agent } }, cached: true, ...options });
}

/** A client of the daemon `config` names; `autostart: false` never starts one (daemon.autostart aside). */
export function clientFor(config: Config, actor = "cli", { autostart = true } = {}): SignetClient {
  return new SignetClient({
    baseUrl: config.daemon.url,
    agentId: config.agent.id,
    token: config.auth.token,
    actor,
    actorType: "operator",
    runtimePath: "cli",
    timeoutMs: config.daemon.requestTimeoutMs,
    bridgeCallTimeoutMs: config.bridge.callTimeoutMs,
    dataDir: config.dataDir,
    asOwner: true,
    // Like signet-mcp, a command that finds no daemon starts one (daemon.autostart), under the same rules.
    autostart: autostart ? autostarter(config, lazyLogger("signet")) : undefined,
    // Loaded only when nothing answers: a daemon that runs but hangs is not "not running".
    explainNoAnswer: async (url, detail, silent) => (await import("../control/daemon-process")).explainNoAnswer(config, url, detail, silent),
  });
}
