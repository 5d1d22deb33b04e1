// What Signet's MCP server answers to `tools/list`, without the MCP SDK or zod: signet-mcp sends it
// when the request comes while the SDK and the tool table are still loading (src/mcp/stdio.ts), as
// it does the initialize answer; a harness waits for both before its session starts. Every caller
// over stdio gets the same table, so its listing is written once, from the SDK server itself, into
// tools-list-result.txt (scripts/gen-mcp-tools-list.ts); test/unit/mcp-tools-list-answer.test.ts
// holds the answer to the SDK server's own, byte for byte.
import RESULT from "./tools-list-result.txt" with { type: "text" };
import { answerLine, type Id, isObject, requestFor } from "./early-answer";

/**
 * The answer to `line` when it is a tools/list request for the first page (no cursor): its id and
 * the answer line. Undefined for anything else, which the SDK's server then answers itself.
 */
export function toolsListAnswer(line: string): { id: Id; line: string } | undefined {
  const request = requestFor(line, "tools/list");
  if (!request) return undefined;
  const { id, params } = request;
  if (params !== undefined && (!isObject(params) || params.cursor !== undefined)) return undefined;
  return { id, line: answerLine(id, RESULT.trimEnd()) };
}
