// The one logger of the daemon, the CLI and signet-mcp, on consola. Plain lines to stderr only:
// the daemon's stderr is its log file when started in the background (operators and tests grep
// it), and signet-mcp's stdout carries the protocol. So no colors or boxes, whatever the terminal.
// A leaf: it imports nothing of ours, and nothing else imports consola (.dependency-cruiser.cjs).
// consola is loaded with the first logger made: a command that logs nothing does not run it.
import type { LogObject } from "consola/core";

/** What the daemon's parts and core code are given; core imports this type only. */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  /** With a `cause` (an unexpected failure), its stack follows the line. */
  error(message: string, cause?: unknown): void;
}

/**
 * `daemon`: `<ISO UTC time> <level padded to 5> <message>`, one line a record;
 * `signet` and `signet-mcp`: `<name>: <message>`.
 */
export type LogFormat = "daemon" | "signet" | "signet-mcp";

export function createLogger(format: LogFormat): Logger {
  const write = ({ date, type, args: [message, cause] }: LogObject) => {
    const head = format === "daemon" ? `${date.toISOString()} ${type.padEnd(5)} ` : `${format}: `;
    process.stderr.write(`${head}${message}${detail(cause)}\n`);
  };
  const { createConsola, LogLevels }: typeof import("consola/core") = require("consola/core");
  // throttle 0: consola would fold repeated records into one (held on a timer); every record counts.
  return createConsola({ level: LogLevels.info, throttle: 0, reporters: [{ log: write }] });
}

/**
 * A logger that builds its consola at its first record: a command or signet-mcp that logs nothing
 * does not pay for it (about half a millisecond of a new process).
 */
export function lazyLogger(format: LogFormat): Logger {
  let logger: Logger | undefined;
  const get = () => (logger ??= createLogger(format));
  return {
    info: (message) => get().info(message),
    warn: (message) => get().warn(message),
    error: (message, cause) => get().error(message, cause),
  };
}

function detail(cause: unknown): string {
  if (cause === undefined) return "";
  if (cause instanceof Error) return `\n${cause.stack ?? String(cause)}`;
  return `: ${String(cause)}`;
}
