// The cross-agent tools (docs/mcp.md#agent-tools): agent_peers, agent_message_send and
// agent_message_inbox. Names and parameters as the MCP design document spells them; each maps onto
// the daemon's contracts (src/contracts/agents.ts). The agent is this connection's own: an agent_id
// naming another agent is refused by the daemon.
import { z } from "zod";
import { API } from "../contracts/api";
import type { AgentMessage, InboxResponse, MessageSendResponse, PresenceListResponse } from "../contracts/agents";
import { MESSAGE_TYPES } from "../contracts/vocabulary";
import { defined } from "../contracts/parse";
import { READS, defineTool, rendered, type Tool } from "./tool";

const minute = (iso: string) => iso.slice(0, 16).replace("T", " ");

function target(m: AgentMessage): string {
  if (m.broadcast) return "everyone";
  if (m.toSessionKey) return `${m.toAgentId} (session ${m.toSessionKey})`;
  if (m.toAgentId) return m.toAgentId;
  return `ACP agent ${m.acpTargetAgentName}`;
}

function peersText(r: PresenceListResponse): string {
  if (r.count === 0) return "No peer sessions are present now.";
  const lines = r.sessions.map((s) => `- ${s.agentId} · session ${s.sessionKey} · ${s.harness}${s.project ? ` · ${s.project}` : ""} · seen ${minute(s.lastSeenAt)}`);
  return `${r.count} peer session${r.count === 1 ? "" : "s"}:\n${lines.join("\n")}`;
}

function sentText(m: MessageSendResponse): string {
  const relay =
    m.via === "acp"
      ? m.deliveryStatus === "delivered"
        ? ` Relayed to ACP agent ${m.acpTargetAgentName} (run ${m.acpRunId}).`
        : ` ACP relay ${m.deliveryStatus}${m.deliveryError ? `: ${m.deliveryError}` : ""}.`
      : "";
  const unknown = m.meta.unknownRecipient
    ? ` Warning: agent ${m.toAgentId} has never been seen by Signet (no session, message or memory of it); check the name with agent_peers. The message waits for it.`
    : "";
  return `Message ${m.id} (${m.type}) sent to ${target(m)}.${relay}${unknown}`;
}

function inboxText(r: InboxResponse): string {
  if (r.count === 0) return "No messages.";
  const lines = r.items.map(
    (m) => `#${m.id} ${minute(m.createdAt)} ${m.type} from ${m.fromAgentId}${m.broadcast ? " (broadcast)" : ""}${m.acked ? "" : " [unread]"}:\n   ${m.content.replace(/\s+/g, " ")}`,
  );
  return `${r.count} message${r.count === 1 ? "" : "s"}:\n${lines.join("\n")}`;
}

export const AGENT_TOOLS: Tool[] = [
  defineTool({
    name: "agent_peers",
    title: "List peer sessions",
    description:
      "List currently active peer sessions (other agents' sessions seen within the presence TTL) for cross-agent coordination. include_self adds your own agent's other sessions; your own session is never listed.",
    input: {
      agent_id: z.string().optional().describe("Current agent id (default default)"),
      session_key: z.string().optional().describe("Current session key (used to exclude self session)"),
      include_self: z.boolean().optional().describe("Include this agent's sessions (default false)"),
      project: z.string().optional().describe("Optional project filter"),
      limit: z.number().int().optional().describe("Max sessions to return"),
    },
    output: API.agents.presence.response.shape,
    annotations: READS,
    calls: API.agents.presence,
    handler: async (a, client, ctx) =>
      rendered(
        await client.agents.presence(
          defined({ agent_id: a.agent_id, session_key: a.session_key ?? ctx.sessionKey, include_self: a.include_self, project: a.project, limit: a.limit }),
        ),
        peersText,
      ),
  }),
  defineTool({
    name: "agent_message_send",
    title: "Message another agent",
    description:
      "Send a message to another agent (to_agent_id), one of its sessions (to_session_key) or every agent (broadcast: true): exactly one target. Types: assist_request, decision_update, info (default), question. via=acp relays it as an ACP run to acp_base_url (an origin the owner allowed).",
    input: {
      content: z.string().describe("Message body"),
      from_agent_id: z.string().optional().describe("Sender agent id"),
      from_session_key: z.string().optional().describe("Sender session key"),
      to_agent_id: z.string().optional().describe("Target agent id"),
      to_session_key: z.string().optional().describe("Target session key"),
      broadcast: z.boolean().optional().describe("Broadcast to all sessions"),
      type: z.enum(MESSAGE_TYPES).optional().describe("Message type"),
      via: z.enum(["local", "acp"]).optional().describe("local (default) or acp"),
      acp_base_url: z.string().optional().describe("ACP server URL (required if via=acp)"),
      acp_target_agent_name: z.string().optional().describe("ACP target agent name (required if via=acp)"),
      acp_timeout_ms: z.number().optional().describe("ACP relay timeout in milliseconds (used when via=acp)"),
    },
    output: API.agents.send.response.shape,
    // Open world: an ACP relay reaches whatever server acp_base_url names.
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    calls: API.agents.send,
    handler: async (a, client, ctx) =>
      rendered(
        await client.agents.send(
          defined({
            content: a.content,
            fromAgentId: a.from_agent_id,
            fromSessionKey: a.from_session_key ?? ctx.sessionKey,
            toAgentId: a.to_agent_id,
            toSessionKey: a.to_session_key,
            broadcast: a.broadcast,
            type: a.type,
            via: a.via,
            acpBaseUrl: a.acp_base_url,
            acpTargetAgentName: a.acp_target_agent_name,
            acpTimeoutMs: a.acp_timeout_ms,
          }),
        ),
        sentText,
      ),
  }),
  defineTool({
    name: "agent_message_inbox",
    title: "Read agent messages",
    description:
      "Read recent messages sent to your agent, to your session, or broadcast (oldest first, each with its id and whether you acknowledged it).",
    input: {
      agent_id: z.string().optional().describe("Recipient agent id (default default)"),
      session_key: z.string().optional().describe("Recipient session key"),
      since: z.string().optional().describe("ISO timestamp lower bound"),
      limit: z.number().int().optional().describe("Max messages to return"),
      include_sent: z.boolean().optional().describe("Include messages sent by this agent"),
      include_broadcast: z.boolean().optional().describe("Include broadcast messages"),
    },
    output: API.agents.inbox.response.shape,
    annotations: READS,
    calls: API.agents.inbox,
    handler: async (a, client, ctx) =>
      rendered(
        await client.agents.inbox(
          defined({
            agent_id: a.agent_id,
            session_key: a.session_key ?? ctx.sessionKey,
            since: a.since,
            limit: a.limit,
            include_sent: a.include_sent,
            include_broadcast: a.include_broadcast,
          }),
        ),
        inboxText,
      ),
  }),
];
