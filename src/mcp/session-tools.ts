// The session tools (docs/mcp.md#session-tools): memory_feedback, session_search (and its
// signet_session_search twin) and session_bypass. Names and parameters as the MCP design document
// spells them; each maps onto the daemon's session contracts (src/contracts/session.ts).
import { z } from "zod";
import { API } from "../contracts/api";
import { defined } from "../contracts/parse";
import type { BypassResponse, FeedbackResponse, SessionSearchResponse } from "../contracts/session";
import { defineTool, nonEmpty, rendered, type Tool } from "./tool";

const sessionSearchShape = {
  query: z.string().describe("Transcript search query"),
  session_key: z.string().optional().describe("Specific transcript session key to search"),
  current_session_key: z
    .string()
    .optional()
    .describe("Current session key; lineage resolves a sub-agent's key to its parent session (defaults to this connection's session)"),
  agent_id: z.string().optional().describe("Agent scope (default default)"),
  project: z.string().optional().describe("Optional project path filter"),
  limit: z.number().int().optional().describe("Max hits to return (default 10, max 20)"),
};
const SESSION_SEARCH =
  "Search active or completed session transcripts. A sub-agent finds its parent session's transcript by passing its own session key as current_session_key. Returns hits with sessionKey, project, updatedAt, excerpt and rank.";

function searchText(r: SessionSearchResponse): string {
  if (r.count === 0) {
    return `No session transcript matches "${r.query}". Try other or fewer words, or leave out session_key to search all your sessions.`;
  }
  const lines = r.hits.map(
    (h) => `${h.rank}. ${h.sessionKey} · ${h.updatedAt.slice(0, 16).replace("T", " ")}${h.project ? ` · ${h.project}` : ""}\n   ${h.excerpt.replace(/\s+/g, " ")}`,
  );
  return `${r.count} transcript hit${r.count === 1 ? "" : "s"} for "${r.query}":\n${lines.join("\n")}`;
}

function searchTool(name: string): Tool {
  return defineTool({
    name,
    title: "Search sessions",
    description: SESSION_SEARCH,
    input: sessionSearchShape,
    output: API.sessions.search.response.shape,
    annotations: { readOnlyHint: true, openWorldHint: false },
    calls: API.sessions.search,
    handler: async (a, client, ctx) =>
      rendered(
        await client.sessions.search(
          defined({
            query: a.query,
            sessionKey: a.session_key,
            // Without either key, this connection's own session: a sub-agent's search goes to its parent.
            currentSessionKey: a.current_session_key ?? (a.session_key === undefined ? ctx.sessionKey : undefined),
            agentId: a.agent_id,
            project: a.project,
            limit: a.limit,
          }),
        ),
        searchText,
      ),
  });
}

function feedbackText(r: FeedbackResponse): string {
  const parts = [`Recorded ${r.accepted} of ${r.recorded} rating${r.recorded === 1 ? "" : "s"}`];
  if (r.propagated > 0) parts.push(`${r.propagated} also moved the knowledge graph (the weights of what ${r.propagated === 1 ? "that memory is" : "those memories are"} about)`);
  let text = `${parts.join("; ")}.`;
  if (r.rejected > 0) {
    text += ` Ignored ${r.rejected} (not injected or recalled in this session): ${r.rejectedIds.join(", ")}.`;
  }
  return text;
}

export const SESSION_TOOLS: Tool[] = [
  defineTool({
    name: "memory_feedback",
    title: "Rate recalled memories",
    description:
      "Rate how relevant injected or recalled memories were to the current conversation: 1 directly helpful, 0 unused/neutral, -1 harmful or misleading. Only memories injected or recalled in this session count; ratings adjust later rankings a little.",
    input: {
      session_key: z.string().describe("Current session key"),
      ratings: z.record(z.string(), z.number()).describe("Map of memory ID to relevance score (-1 to 1)"),
    },
    output: API.sessions.feedback.response.shape,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    calls: API.sessions.feedback,
    handler: async (a, client) => rendered(await client.sessions.feedback({ sessionKey: a.session_key, ratings: a.ratings }), feedbackText),
  }),
  searchTool("session_search"),
  searchTool("signet_session_search"),
  defineTool({
    name: "session_bypass",
    title: "Bypass session hooks",
    description:
      "Toggle per-session hook bypass: while enabled, every lifecycle hook for the session answers {bypassed: true} and injects nothing. MCP tools keep working. The setting survives a daemon restart.",
    input: {
      session_key: nonEmpty("a session key").describe("Session key to toggle bypass for, raw or session:<uuid>"),
      enabled: z.boolean().describe("true to enable bypass, false to disable"),
    },
    output: API.sessions.bypass.response.shape,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    calls: API.sessions.bypass,
    handler: async (a, client) =>
      rendered(await client.sessions.bypass(a.session_key, { enabled: a.enabled }), (r: BypassResponse) =>
        r.bypassed
          ? `Hooks bypassed for session ${r.key}: they inject nothing until bypass is turned off.`
          : `Hooks active again for session ${r.key}.`,
      ),
  }),
];
