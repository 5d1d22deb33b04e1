// Requests and their cancellation as the MCP SDK's Protocol takes them. A request it answers once;
// a request a valid `notifications/cancelled` names while its handler runs it never answers (the
// handler's result is dropped). Both transports count the requests they still owe an answer
// (signet-mcp, to end after end of input; /mcp, to end a POST and free its slot), so a cancelled
// request has to count as done there too, or they wait forever.
import { CancelledNotificationSchema, isJSONRPCRequest, type RequestId } from "@modelcontextprotocol/sdk/types.js";

/** The id of `message` when it is a JSON-RPC request the SDK handles (and answers, unless cancelled). */
export function requestIdOf(message: unknown): RequestId | undefined {
  return isJSONRPCRequest(message) ? message.id : undefined;
}

/**
 * The request `message` cancels, when it is a cancellation the SDK acts on: a well-formed
 * `notifications/cancelled` whose `requestId` the SDK does not skip (it ignores 0 and "").
 */
export function cancelledIdOf(message: unknown): RequestId | undefined {
  const parsed = CancelledNotificationSchema.safeParse(message);
  if (!parsed.success) return undefined;
  const id = parsed.data.params.requestId;
  return id === undefined || id === 0 || id === "" ? undefined : id;
}
