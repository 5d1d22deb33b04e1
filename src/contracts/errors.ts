// Errors, as every surface sees them: a machine code the adapters (HTTP, MCP, CLI) map to their own
// terms, the HTTP status of each code (the server answers with it, the client maps it back), and the
// error body (docs/api.md#errors).
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

export const STATUS_OF: Record<ErrorCode, number> = {
  invalid_input: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  version_conflict: 409,
  deleted: 409,
  pinned: 409,
  too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  unavailable: 503,
  queue_full: 503,
  exists: 409,
  disabled: 409,
  server_unavailable: 503,
  timeout: 504,
};

export interface ErrorBody {
  error: string;
  code: ErrorCode;
}
