// Calls to Signet's own tools that made no API request (refused, or failed on their arguments):
// signet-mcp reports each one (POST /api/mcp/invocations) before it answers the call, so nothing
// waits in this process for an exit the harness may cut short. Every other call the daemon records
// itself as it answers the call's request (src/server/own-tool-calls.ts).
import type { SignetClient } from "../client/client";
import type { Logger } from "../logger";
import type { OwnToolCall } from "./server";

const MAX_ERROR_TEXT = 2000;
/** The longest session key a report carries (the report's contract). */
const MAX_SESSION_KEY = 256;
/** A report must not hold the answer long when the daemon is slow. */
const REPORT_TIMEOUT_MS = 2000;

/** What createMcpServer calls for such a call; a report that fails costs that row, never the call. */
export function localCallReporter(client: SignetClient, log: Pick<Logger, "warn">): (call: OwnToolCall) => Promise<void> {
  return async ({ errorText, sessionKey, ...call }) => {
    const row = {
      server: "signet",
      ...call,
      ...(errorText ? { errorText: errorText.slice(0, MAX_ERROR_TEXT) } : {}),
      ...(sessionKey && sessionKey.length <= MAX_SESSION_KEY ? { sessionKey } : {}),
    };
    try {
      await client.analytics.report({ invocations: [row] }, { timeoutMs: REPORT_TIMEOUT_MS });
    } catch (err) {
      log.warn(`the call of ${call.tool} was not recorded: ${(err as Error).message}`);
    }
  };
}
