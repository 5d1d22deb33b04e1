// CLI exit codes (docs/api.md#errors): 0 ok, 1 failed, 2 usage/validation, 3 daemon unreachable, 4 auth.
import { ApiError, DaemonUnreachableError } from "../client/client";
import { ConfigError } from "../config/load";
import { DaemonUrlError } from "../config/daemon-url";
import { SignetError } from "../contracts/errors";

export const EXIT = { ok: 0, failed: 1, usage: 2, unreachable: 3, auth: 4 } as const;

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** A failure the command already explained; carries only the exit code. */
export class ExitError extends Error {
  constructor(
    readonly exitCode: number,
    message = "",
  ) {
    super(message);
    this.name = "ExitError";
  }
}

export function exitCodeOf(err: unknown): number {
  if (err instanceof ExitError) return err.exitCode;
  if (err instanceof UsageError || err instanceof ConfigError || err instanceof DaemonUrlError) return EXIT.usage;
  if (err instanceof DaemonUnreachableError) return EXIT.unreachable;
  if (err instanceof SignetError) return err.code === "invalid_input" ? EXIT.usage : EXIT.failed;
  if (err instanceof ApiError) {
    if (err.status === 401 || err.status === 403) return EXIT.auth;
    // A bridged server that failed to start is as unreachable as a daemon that is down.
    if (err.code === "server_unavailable") return EXIT.unreachable;
    if (err.status === 400 || err.status === 413) return EXIT.usage;
    return EXIT.failed;
  }
  if ((err as { name?: string })?.name === "CLIError") return EXIT.usage;
  return EXIT.failed;
}
