// What Signet's MCP server answers to `initialize`, without the MCP SDK or zod: signet-mcp sends it
// as soon as the request arrives, while the SDK and the tool table (a few hundred zod schemas built
// at import) are still loading (src/mcp/stdio.ts). The SDK's server still handles the same request
// once it is up, so its state is what it would have been; test/unit/mcp-initialize-answer.test.ts
// holds this answer to the SDK server's own, byte for byte, for every protocol version.
import { answerLine, type Id, isObject, requestFor } from "./early-answer";

/** The protocol versions the SDK's server negotiates, newest first (its SUPPORTED_PROTOCOL_VERSIONS). */
export const SUPPORTED_PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07"] as const;

/** What createMcpServer declares: logging, and the tools its tool table registers. */
const SERVER_CAPABILITIES = { logging: {}, tools: { listChanged: true } } as const;

/**
 * Sent with the initialize answer: when to reach for the memory tools. Harnesses put it into the
 * model's context, so it is short (docs/mcp.md#instructions).
 */
export const INSTRUCTIONS = `Signet is your long-term memory: what you store here is available in later sessions.

Search (memory_search) at the start of a task, and before answering questions about the user's preferences, past decisions or facts about this project; do not guess what may already be stored.

Store (memory_store) durable facts, preferences and decisions as they come up: one self-contained statement per memory, with a type (fact, preference, decision, rule, learning, ...), tags, and hints: two or three questions or requests a developer might later make that the memory answers, in other words than its own (for "Use pnpm, never npm": "how do I add a package", "install a dependency"), so it is found when it is needed. Do not store transient chatter, intermediate steps, or what only matters for the current task. Storing the same content twice is harmless (deduped).

When a stored memory turns out wrong or outdated, correct it with memory_modify (a reason is required; the earlier version stays in the history) instead of storing a contradicting one. Use memory_forget, with a reason, for what should no longer be remembered. Pinned memories are not forgotten until unpinned (memory_modify with pinned: false); unpin only when the user wants it.

Other agents may message you. Their messages arrive with your prompts, each once, marked as a message from its sender (not a memory); agent_message_inbox reads your inbox, agent_message_send answers, agent_peers lists who is working now.`;

export function initializeAnswer(line: string, version: string): { id: Id; line: string } | undefined {
  const request = requestFor(line, "initialize");
  if (!request) return undefined;
  const { id, params } = request;
  if (!isObject(params) || typeof params.protocolVersion !== "string" || !isObject(params.capabilities)) return undefined;
  const info = params.clientInfo;
  if (!isObject(info) || typeof info.name !== "string" || typeof info.version !== "string") return undefined;
  const requested = params.protocolVersion;
  const protocolVersion = (SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(requested) ? requested : SUPPORTED_PROTOCOL_VERSIONS[0];
  const result = { protocolVersion, capabilities: SERVER_CAPABILITIES, serverInfo: { name: "signet", version }, instructions: INSTRUCTIONS };
  return { id, line: answerLine(id, JSON.stringify(result)) };
}
