// Starting a missing daemon on a client's first request (`daemon.autostart`), for signet-mcp and
// the CLI alike (docs/mcp.md#autostart). A daemon is started only where it can answer the client's
// URL (plain http on the loopback address it binds) and only for a store the user chose: one that
// exists, or an explicit SIGNET_PATH (`signet setup` writes it into each harness's entry). Anything
// else is refused with what to do, never started somewhere the client would not find it.
import { existsSync } from "node:fs";
import { DaemonNotStartedError } from "../client/client";
import { isLoopbackHost } from "../config/daemon-url";
import { configPath, databasePath } from "../config/paths";
import type { Config } from "../config/schema";
import type { Logger } from "../logger";

type Env = Record<string, string | undefined>;

const START_WAIT_MS = 15_000;

const bare = (host: string) => host.replace(/^\[|\]$/g, "").toLowerCase();
const LOCALHOST = ["localhost", "127.0.0.1", "::1"];

/** Why a daemon started here would not answer at `url`; undefined when it would. */
function unservable(url: URL, bind: string): string | undefined {
  const host = bare(url.hostname);
  if (!isLoopbackHost(host)) {
    return `${host} is not this machine, and a daemon is only started on this machine: start Signet on ${host}, or point SIGNET_DAEMON_URL (daemon.url, --url) at a local daemon`;
  }
  if (url.protocol !== "http:") return `the daemon serves plain http: use http://${url.host}`;
  const b = bare(bind);
  // A wildcard bind covers every loopback address (the daemon itself refuses it in local mode, and says so).
  const covered = b === "0.0.0.0" || b === "::" || host === b || (LOCALHOST.includes(host) && LOCALHOST.includes(b) && (host === "localhost" || b === "localhost"));
  if (covered) return undefined;
  const bindHost = b.includes(":") ? `[${b}]` : b;
  return `a daemon started here listens on ${bind} (daemon.bind, SIGNET_BIND), not on ${host}: set SIGNET_DAEMON_URL to http://${bindHost}:${url.port || 80}, or daemon.bind to ${host}`;
}

/** A store the user chose: SIGNET_PATH set (by them, or by `signet setup` in a harness entry), or one already there. */
function storeChosen(dataDir: string, env: Env): boolean {
  return Boolean(env.SIGNET_PATH?.trim()) || existsSync(configPath(dataDir)) || existsSync(databasePath(dataDir));
}

/**
 * The client's autostart hook (`ClientOptions.autostart`), or undefined when `daemon.autostart` is
 * off. Called once, when nothing answers: it starts the daemon and resolves true (retry), or throws
 * a DaemonNotStartedError that says why it did not.
 */
export function autostarter(config: Config, log: Logger, env: Env = process.env): (() => Promise<boolean>) | undefined {
  if (!config.daemon.autostart) return undefined;
  const url = new URL(config.daemon.url);
  const notStarted = (tail: string) => new DaemonNotStartedError(config.daemon.url, `no Signet daemon answers at ${config.daemon.url}, and ${tail}`);
  const refused = (why: string) => notStarted(`none was started: ${why}`);
  return async () => {
    const problem = unservable(url, config.daemon.bind);
    if (problem) throw refused(problem);
    if (!storeChosen(config.dataDir, env)) {
      throw refused(
        `there is no Signet store at ${config.dataDir} and SIGNET_PATH is not set, so starting one would create a store nobody chose. ` +
          "Run `signet daemon start` once to create it there, or set SIGNET_PATH to your data directory",
      );
    }
    const { answeringDaemon, explainNoAnswer, runningDaemon, startBackground } = await import("./daemon-process");
    // One look before starting anything: a daemon that runs began listening after the client looked
    // (retry), or runs at another address than the client's (say where; starting one would fail).
    const running = runningDaemon(config.dataDir);
    if (running) {
      const elsewhere = explainNoAnswer(config, config.daemon.url, "connection refused", false, running);
      if (elsewhere === undefined) return true;
      throw new DaemonNotStartedError(config.daemon.url, elsewhere);
    }
    const { isLockHeld } = await import("./lock");
    try {
      const info = await startBackground(config, { port: url.port || "80" }, log);
      log.info(`started the daemon for ${config.dataDir} at ${info.url} (pid ${info.pid})`);
      return true;
    } catch (err) {
      // Another client may have started it a moment ago: once it answers, the retry works.
      if (isLockHeld(config.dataDir)) return (await answeringDaemon(config.dataDir, START_WAIT_MS).catch(() => null)) !== null;
      throw notStarted(`starting one failed: ${(err as Error).message}`);
    }
  };
}
