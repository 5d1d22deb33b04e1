// What signet-mcp's answers sent before the MCP SDK has loaded share (initialize-answer.ts,
// tools-list-answer.ts): the request as the SDK's schema would take it, and the answer line as its
// stdio transport writes it.

export type Id = string | number;

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** `line`'s id and params when it is a JSON-RPC request for `method` with a string or integer id; undefined otherwise. */
export function requestFor(line: string, method: string): { id: Id; params: unknown } | undefined {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!isObject(message) || message.jsonrpc !== "2.0" || message.method !== method) return undefined;
  const { id, params } = message;
  if (!(typeof id === "string" || (typeof id === "number" && Number.isInteger(id)))) return undefined;
  return { id, params };
}

/** The answer line to request `id`, its result already JSON (the SDK writes `{result, jsonrpc, id}` and a newline). */
export function answerLine(id: Id, resultJson: string): string {
  return `{"result":${resultJson},"jsonrpc":"2.0","id":${JSON.stringify(id)}}\n`;
}
