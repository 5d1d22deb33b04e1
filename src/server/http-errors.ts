// Every failure leaves the daemon as `{error, code}` with the status docs/api.md#errors assigns; nothing is a 500.
import { STATUS_OF, type ErrorBody, SignetError, type ErrorCode } from "../contracts/errors";
import type { Logger } from "../logger";

export function errorResponse(code: ErrorCode, message: string, headers: Record<string, string> = {}): Response {
  const body: ErrorBody = { error: message, code };
  return Response.json(body, { status: STATUS_OF[code], headers });
}

/**
 * A store's refusal of the input itself, which a retry cannot mend: PostgreSQL's text cannot hold
 * U+0000 (SQLSTATE 22021), which SQLite stores.
 */
function inputTheStoreRefuses(err: unknown): string | null {
  const e = err as { name?: unknown; errno?: unknown };
  if (e?.name === "PostgresError" && e.errno === "22021") return "a text holds a NUL character (U+0000), which the PostgreSQL store cannot hold: remove it";
  return null;
}

export function toErrorResponse(err: unknown, method: string, path: string, log: Logger): Response {
  if (err instanceof SignetError) return errorResponse(err.code, err.message);
  const refused = inputTheStoreRefuses(err);
  if (refused) return errorResponse("invalid_input", `${method} ${path}: ${refused}`);
  const message = err instanceof Error ? err.message : String(err);
  // Anything unexpected is logged with its stack and answered as a retryable 503, never a 500.
  log.error(`${method} ${path} failed unexpectedly`, err);
  return errorResponse("unavailable", `the daemon could not complete ${method} ${path}: ${message}`);
}
