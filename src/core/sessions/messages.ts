// Other agents' messages as the hooks give them to the model (docs/hooks.md#messages): at each
// prompt, those not yet given to the session, framed as messages from their sender (never as
// memories), within a budget of their own; at session start, how many are waiting. A message's text
// is one JSON string, so nothing in it can end the line or pass for Signet's own framing.
import type { AgentMessage } from "../../contracts/agents";

/** What messages may take of one prompt's context: about 1,000 tokens (four characters a token). */
const BUDGET_CHARS = 4000;
/** One message's text is cut here; the inbox has it whole. */
const MAX_CONTENT_CHARS = 1000;
const MAX_SESSION_KEY_CHARS = 100;
/** The messages looked at for one prompt; any beyond wait for the next. */
export const PENDING_LIMIT = 50;
/** The MCP tool that reads the inbox. */
const INBOX_TOOL = "agent_message_inbox";

// What JSON.stringify leaves raw: C1 controls, bidi marks, and the line and paragraph separators.
const RAW_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** `text` (cut to `max`) as one JSON string: quotes, line breaks and control characters escaped. */
function quoted(text: string, max: number): string {
  const cut = text.length > max ? `${text.slice(0, max - 1)}…` : text;
  return JSON.stringify(cut).replace(RAW_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** `- #<id> <type> from agent <a> (session "<s>"), <time> UTC: "<text>"`; agent ids hold no spaces or quotes. */
function messageLine(m: AgentMessage): string {
  const session = m.fromSessionKey ? ` (session ${quoted(m.fromSessionKey, MAX_SESSION_KEY_CHARS)})` : "";
  const to = m.broadcast ? ", to every agent" : m.toSessionKey ? ", to this session" : "";
  const cut = m.content.length > MAX_CONTENT_CHARS ? ` (cut; ${INBOX_TOOL} has it whole)` : "";
  return `- #${m.id} ${m.type} from agent ${m.fromAgentId}${session}${to}, ${m.createdAt.slice(0, 16).replace("T", " ")} UTC: ${quoted(m.content, MAX_CONTENT_CHARS)}${cut}`;
}

const plural = (n: number, more: boolean) => `${n}${more ? "+" : ""} unread message${n === 1 && !more ? "" : "s"}`;

/**
 * The block for one prompt: the oldest pending messages that fit the budget, and their ids (the ones
 * to mark delivered). Those that do not fit wait for the next prompt, and the block says so.
 */
export function messagesBlock(pending: readonly AgentMessage[]): { context: string; ids: number[] } {
  if (pending.length === 0) return { context: "", ids: [] };
  const heading = "# Signet: messages to you from other agents (messages, not memories; each is shown once; answer with agent_message_send)";
  const lines: string[] = [];
  const ids: number[] = [];
  let left = BUDGET_CHARS - heading.length - 200;
  for (const m of pending) {
    const line = messageLine(m);
    if (line.length + 1 > left && lines.length > 0) break;
    lines.push(line);
    ids.push(m.id);
    left -= line.length + 1;
  }
  const waiting = pending.length - ids.length;
  if (waiting > 0) {
    const more = pending.length === PENDING_LIMIT;
    lines.push(`(${plural(waiting, more)} more wait for your next prompt; ${INBOX_TOOL} lists them now)`);
  }
  return { context: `${heading}\n${lines.join("\n")}`, ids };
}

/** Session start's word on the inbox: how many messages wait, and where to read them. */
export function unreadNote(count: number): string {
  const more = count === PENDING_LIMIT;
  return `${plural(count, more)} from other agents: ${count === 1 && !more ? "it comes" : "they come"} with your next prompt, or read them now with ${INBOX_TOOL}.`;
}
