// What signet-mcp reads of a line before the MCP SDK has loaded (src/mcp/stdio.ts), and what the
// answers it sends then share (initialize-answer.ts, tools-list-answer.ts): the request as the SDK's
// schema would take it, and the answer line as its stdio transport writes it.

export type Id = string | number;

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** `line` as a JSON object, or undefined when it is not one. */
function objectOf(line: string): Record<string, unknown> | undefined {
  try {
    const message: unknown = JSON.parse(line);
    return isObject(message) ? message : undefined;
  } catch {
    return undefined;
  }
}

/** Whether `line` is a JSON-RPC notification (a method, no id): nothing is owed for it. */
export function isNotification(line: string): boolean {
  const message = objectOf(line);
  return message !== undefined && "method" in message && !("id" in message);
}

/** `line`'s id and params when it is a JSON-RPC request for `method` with a string or integer id; undefined otherwise. */
export function requestFor(line: string, method: string): { id: Id; params: unknown } | undefined {
  const message = objectOf(line);
  if (message === undefined || message.jsonrpc !== "2.0" || message.method !== method) return undefined;
  const { id, params } = message;
  if (!(typeof id === "string" || (typeof id === "number" && Number.isInteger(id)))) return undefined;
  return { id, params };
}

/** The answer line to request `id`, its result already JSON (the SDK writes `{result, jsonrpc, id}` and a newline). */
export function answerLine(id: Id, resultJson: string): string {
  return `{"result":${resultJson},"jsonrpc":"2.0","id":${JSON.stringify(id)}}\n`;
}
