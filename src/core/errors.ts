// Domain errors carry a machine code; the adapters (HTTP, MCP, CLI) map it to their own terms.
export type ErrorCode =
  | "invalid_input"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "version_conflict"
  | "deleted"
  | "pinned"
  | "too_large"
  | "unsupported_media_type"
  | "rate_limited"
  | "unavailable"
  | "queue_full"
  // The bridge: an installed server already has that name, is disabled, failed to start (or lost
  // its connection), or did not answer a call in time.
  | "exists"
  | "disabled"
  | "server_unavailable"
  | "timeout";

export class SignetError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "SignetError";
  }
}

export const notFound = (what: string) => new SignetError("not_found", `${what} not found`);
export const invalidInput = (message: string) => new SignetError("invalid_input", message);
