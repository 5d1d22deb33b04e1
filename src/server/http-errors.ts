// Every failure leaves the daemon as `{error, code}` with the status docs/api.md#errors assigns; nothing is a 500.
import { STATUS_OF, type ErrorBody, SignetError, type ErrorCode } from "../contracts/errors";
import type { Logger } from "../logger";

export function errorResponse(code: ErrorCode, message: string, headers: Record<string, string> = {}): Response {
  const body: ErrorBody = { error: message, code };
  return Response.json(body, { status: STATUS_OF[code], headers });
}

export function toErrorResponse(err: unknown, method: string, path: string, log: Logger): Response {
  if (err instanceof SignetError) return errorResponse(err.code, err.message);
  const message = err instanceof Error ? err.message : String(err);
  // Anything unexpected is logged with its stack and answered as a retryable 503, never a 500.
  log.error(`${method} ${path} failed unexpectedly`, err);
  return errorResponse("unavailable", `the daemon could not complete ${method} ${path}: ${message}`);
}
