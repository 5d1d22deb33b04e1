// The HTTP status of every error code, shared by the server (to answer) and the client (to map back).
import type { ErrorCode } from "../core/errors";

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
