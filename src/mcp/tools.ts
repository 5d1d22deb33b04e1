// The MCP tool table: names and parameters exactly as the MCP design document spells them. Handlers
// map arguments onto the daemon's API contracts and call it through the one shared client; the
// daemon validates with the same schemas as every other surface. Tools whose daemon routes come in
// later versions are listed already and answer an error saying so, never a fake success.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { ApiError, DaemonIdentityError, DaemonUnreachableError, type SignetClient } from "../client/client";
import { defined } from "../contracts/parse";
import type { RecallResponse } from "../contracts/recall";
import { recallBrief } from "./brief";
import { BRIDGE_TOOLS } from "./bridge-tools";

/** What a transport knows about the caller beyond the agent (which the client carries). */
export interface ToolContext {
  sessionKey?: string;
}

export interface ToolDef {
  name: string;
  description: string;
  inputSchema: z.ZodRawShape;
  handler(args: Record<string, unknown>, client: SignetClient, ctx: ToolContext): Promise<CallToolResult | unknown>;
}

/** A tool's failure that the model should read as such. */
class ToolFailure extends Error {}

const id = z.string().describe("Memory ID");
const reason = z.string().describe("Why this change is made (kept in the version history)");

const searchShape = {
  query: z.string().describe("Search query text"),
  limit: z.number().int().optional().describe("Max results to return (default 10)"),
  project: z.string().optional().describe("Optional project path filter"),
  type: z.string().optional().describe('Filter by memory type (e.g. "preference", "fact")'),
  tags: z.string().optional().describe("Filter by tags (comma-separated); a memory must carry all of them"),
  who: z.string().optional().describe("Filter by author"),
  since: z.string().optional().describe("Only include memories created after this date (ISO-8601)"),
  until: z.string().optional().describe("Only include memories created before this date (ISO-8601)"),
  keyword_query: z.string().optional().describe("Override the keyword/FTS query used for recall"),
  pinned: z.boolean().optional().describe("Only return pinned memories"),
  importance_min: z.number().optional().describe("Minimum memory importance threshold (0-1)"),
  min_score: z.number().optional().describe("Deprecated compatibility alias for importance_min"),
  score_min: z.number().optional().describe("Minimum recall score threshold, applied client-side to returned rows"),
  aggregate: z.boolean().optional().describe("Synthesize one aggregate answer from bounded recall evidence"),
  aggregate_budget: z.enum(["small", "medium", "large"]).optional().describe("Aggregate recall budget; defaults to small"),
  save_aggregate: z
    .boolean()
    .optional()
    .describe("Save the aggregate answer as a normal memory; defaults to true in aggregate mode"),
};

async function search(a: Record<string, unknown>, client: SignetClient, ctx: ToolContext): Promise<CallToolResult> {
  const body = defined({
    query: a.query,
    limit: a.limit,
    project: a.project,
    type: a.type,
    tags: a.tags,
    who: a.who,
    since: a.since,
    until: a.until,
    keywordQuery: a.keyword_query,
    pinned: a.pinned,
    // min_score is the deprecated alias; importance_min wins when both are given.
    importanceMin: a.importance_min ?? a.min_score,
    aggregate: a.aggregate,
    aggregateBudget: a.aggregate_budget,
    saveAggregate: a.save_aggregate,
    sessionKey: ctx.sessionKey,
  });
  const response = await client.memory.recall(body);
  const scoreMin = typeof a.score_min === "number" ? a.score_min : undefined;
  const filtered: RecallResponse =
    scoreMin === undefined ? response : { ...response, results: response.results.filter((r) => r.score >= scoreMin) };
  return {
    content: [{ type: "text", text: recallBrief(String(a.query), filtered) }],
    structuredContent: filtered as unknown as Record<string, unknown>,
  };
}

/** A registered tool whose daemon feature is not in this version yet. */
function unavailable(name: string, description: string, inputSchema: z.ZodRawShape, feature: string): ToolDef {
  return {
    name,
    description,
    inputSchema,
    handler: async () => {
      throw new ToolFailure(`${name} is not available in this version of Signet yet (${feature})`);
    },
  };
}

const NO_CODE_INDEX = "no project indexed: run `signet index <path>`";
function codeTool(name: string, description: string, inputSchema: z.ZodRawShape): ToolDef {
  return {
    name,
    description,
    inputSchema,
    handler: async () => {
      throw new ToolFailure(NO_CODE_INDEX);
    },
  };
}

const sessionSearchShape = {
  query: z.string().describe("Transcript search query"),
  session_key: z.string().optional().describe("Specific transcript session key to search"),
  current_session_key: z.string().optional().describe("Current session key; lineage can resolve this to the parent"),
  agent_id: z.string().optional().describe("Agent scope (default default)"),
  project: z.string().optional().describe("Optional project path filter"),
  limit: z.number().int().optional().describe("Max hits to return (default 10, max 20)"),
};
const SESSION_SEARCH = "Search active or completed session transcripts (e.g. a parent session's transcript from a sub-agent).";

export const TOOLS: ToolDef[] = [
  {
    name: "memory_search",
    description:
      "Hybrid vector + keyword search over stored memories, ranked by a combined score. Returns a recall brief with primary matches and supporting context. Use session_search for session transcripts.",
    inputSchema: searchShape,
    handler: search,
  },
  {
    name: "signet_recall",
    description:
      "Recall memories relevant to a query (hybrid keyword + vector search). Returns primary matches and supporting context with scores, ids, types, dates and authors.",
    inputSchema: searchShape,
    handler: search,
  },
  unavailable(
    "signet_source_search",
    "Search source-backed documents and artifacts.",
    {
      query: z.string().describe("Search query text"),
      limit: z.number().int().optional().describe("Max results to return"),
      path: z.string().optional().describe("Optional source path filter"),
    },
    "document sources",
  ),
  {
    name: "memory_store",
    description:
      "Save a new memory as immutable episodic evidence. It is immediately retrievable via recall/search/list/get. Returns the created memory with its id (or the existing one with deduped:true when the same content is already stored).",
    inputSchema: {
      content: z.string().describe("Memory content to save"),
      type: z.string().optional().describe("Memory type (fact, preference, decision, etc.)"),
      importance: z.number().optional().describe("Importance score 0-1"),
      tags: z.string().optional().describe("Comma-separated tags for categorization"),
      pinned: z.boolean().optional().describe("Pin this memory so it bypasses decay"),
      hints: z.array(z.string()).optional().describe("Prospective recall hints and alternate phrasings"),
      transcript: z.string().optional().describe("Raw source text to preserve alongside the extracted memory"),
      // z.unknown, not z.record: a record drops a top-level `__proto__` key silently; the daemon's
      // contract checks the object and its bounds, and tools/list still advertises an object.
      structured: z
        .unknown()
        .meta({ type: "object" })
        .optional()
        .describe("Pre-extracted entity/aspect/attribute data retained as episodic evidence alongside the content"),
      reviewAfter: z.string().optional().describe("ISO timestamp after which the memory should be surfaced for review"),
    },
    handler: (a, c, ctx) => c.memory.remember(defined({ ...a, sessionKey: ctx.sessionKey })),
  },
  {
    name: "signet_save_note",
    description: "Save a durable native-memory note (type note, at most 8000 characters).",
    inputSchema: {
      content: z.string().describe("Note text (at most 8000 characters)"),
      title: z.string().optional().describe("Optional short title"),
      tags: z.string().optional().describe("Comma-separated tags"),
    },
    handler: (a, c) => c.memory.note(defined({ ...a })),
  },
  {
    name: "memory_get",
    description: "Retrieve a single memory by its ID: content, type, importance, tags, timestamps and version history.",
    inputSchema: { id: id.describe("Memory ID to retrieve") },
    handler: (a, c) => c.memory.get(String(a.id)),
  },
  {
    name: "memory_list",
    description: "List memories, newest first, with optional pagination and type filtering.",
    inputSchema: {
      limit: z.number().int().optional().describe("Max results (default 100)"),
      offset: z.number().int().optional().describe("Pagination offset"),
      type: z.string().optional().describe("Filter by memory type"),
    },
    handler: (a, c) => c.memory.list(defined({ limit: a.limit, offset: a.offset, type: a.type }) as Record<string, string | number>),
  },
  {
    name: "memory_modify",
    description: "Edit an existing memory. Requires a reason for the edit; the previous version stays in the history.",
    inputSchema: {
      id: id.describe("Memory ID to modify"),
      reason: reason.describe("Why this edit is being made"),
      content: z.string().optional().describe("New content"),
      type: z.string().optional().describe("New type"),
      importance: z.number().optional().describe("New importance"),
      tags: z.string().optional().describe("New tags (comma-separated)"),
    },
    handler: ({ id: memoryId, ...rest }, c) => c.memory.modify(String(memoryId), defined(rest)),
  },
  {
    name: "memory_forget",
    description:
      "Soft-delete a memory: it is marked as forgotten with a reason and can be recovered for 30 days. Pinned memories must be unpinned first (memory_modify cannot unpin; ask the user).",
    inputSchema: {
      id: id.describe("Memory ID to forget"),
      reason: reason.describe("Why this memory should be forgotten"),
    },
    handler: ({ id: memoryId, reason: why }, c) => c.memory.forget(String(memoryId), { reason: why }),
  },
  unavailable(
    "memory_feedback",
    "Rate how relevant injected or recalled memories were to the current conversation (1 helpful, 0 neutral, -1 harmful).",
    {
      session_key: z.string().describe("Current session key"),
      ratings: z.record(z.string(), z.number()).describe("Map of memory ID to relevance score (-1 to 1)"),
    },
    "session feedback",
  ),
  unavailable("session_search", SESSION_SEARCH, sessionSearchShape, "session transcripts"),
  unavailable("signet_session_search", SESSION_SEARCH, sessionSearchShape, "session transcripts"),
  unavailable(
    "agent_peers",
    "List currently active peer sessions for cross-agent coordination.",
    {
      agent_id: z.string().optional().describe("Current agent id (default default)"),
      session_key: z.string().optional().describe("Current session key (used to exclude self session)"),
      include_self: z.boolean().optional().describe("Include this agent's sessions (default false)"),
      project: z.string().optional().describe("Optional project filter"),
      limit: z.number().int().optional().describe("Max sessions to return"),
    },
    "cross-agent presence",
  ),
  unavailable(
    "agent_message_send",
    "Send a message to another agent/session or broadcast to all active peers; local delivery or ACP relay.",
    {
      content: z.string().describe("Message body"),
      from_agent_id: z.string().optional().describe("Sender agent id"),
      from_session_key: z.string().optional().describe("Sender session key"),
      to_agent_id: z.string().optional().describe("Target agent id"),
      to_session_key: z.string().optional().describe("Target session key"),
      broadcast: z.boolean().optional().describe("Broadcast to all sessions"),
      type: z.enum(["assist_request", "decision_update", "info", "question"]).optional().describe("Message type"),
      via: z.enum(["local", "acp"]).optional().describe("local (default) or acp"),
      acp_base_url: z.string().optional().describe("ACP server URL (required if via=acp)"),
      acp_target_agent_name: z.string().optional().describe("ACP target agent name (required if via=acp)"),
      acp_timeout_ms: z.number().optional().describe("ACP relay timeout in milliseconds (used when via=acp)"),
    },
    "cross-agent messages",
  ),
  unavailable(
    "agent_message_inbox",
    "Read recent inbound cross-agent messages for an agent/session.",
    {
      agent_id: z.string().optional().describe("Recipient agent id (default default)"),
      session_key: z.string().optional().describe("Recipient session key"),
      since: z.string().optional().describe("ISO timestamp lower bound"),
      limit: z.number().int().optional().describe("Max messages to return"),
      include_sent: z.boolean().optional().describe("Include messages sent by this agent"),
      include_broadcast: z.boolean().optional().describe("Include broadcast messages"),
    },
    "cross-agent messages",
  ),
  unavailable(
    "session_bypass",
    "Toggle per-session hook bypass: hooks for the session return empty no-op answers; MCP tools keep working.",
    {
      session_key: z.string().describe("Session key to toggle bypass for, raw or session:<uuid>"),
      enabled: z.boolean().describe("true to enable bypass, false to disable"),
    },
    "session hooks",
  ),
  unavailable("secret_list", "List available secret names (never values).", {}, "secrets"),
  unavailable(
    "secret_exec",
    "Queue a shell command with secrets injected as environment variables; output is redacted. Poll with secret_exec_status.",
    {
      command: z.string().describe("Shell command to queue"),
      secrets: z.record(z.string(), z.string()).describe("Map of env var name to secret reference (name, bw://..., op://...)"),
      timeoutSeconds: z.number().optional().describe("Max subprocess runtime; defaults to 300 seconds, max 1800"),
    },
    "secrets",
  ),
  unavailable(
    "secret_exec_status",
    "Poll a queued secret_exec job and retrieve its redacted output when it finishes.",
    { jobId: z.string().describe("Job id returned by secret_exec") },
    "secrets",
  ),
  codeTool("signet_code_search", "Search the active indexed project for symbols and implementation context.", {
    query: z.string().describe("Code search query"),
    top: z.number().int().optional().describe("Max results to return (default 10)"),
    file: z.string().optional().describe("Optional file path filter"),
    debug: z.boolean().optional().describe("Include score/debug details"),
  }),
  codeTool("signet_code_context", "Read source and structural neighborhood for a symbol.", {
    symbol: z.string().describe("Symbol name"),
  }),
  codeTool("signet_code_blast", "Analyze forward/backward impact radius for a symbol.", {
    symbol: z.string().describe("Symbol name"),
    depth: z.number().int().optional().describe("How many hops to follow"),
    direction: z.enum(["forward", "backward", "both"]).optional().describe("Which way to follow references"),
  }),
  codeTool("signet_code_status", "Show code index status for the active project.", {}),
  codeTool("signet_code_doctor", "Diagnose code index artifact health.", {}),
  codeTool("signet_code_constants", "Find shared numeric and string constants.", {}),
  codeTool("signet_code_clear", "Delete the active code index (destructive; requires confirm: true).", {
    confirm: z.boolean().describe("Must be true: the index is deleted and not backed up"),
  }),
  codeTool("signet_code_briefing", "Get an architecture overview: subsystems, public API, hub symbols.", {
    compact: z.boolean().optional().describe("A short version"),
  }),
  ...BRIDGE_TOOLS,
];

function isCallToolResult(value: unknown): value is CallToolResult {
  return typeof value === "object" && value !== null && Array.isArray((value as CallToolResult).content);
}

/** Runs a tool and turns every failure into an `isError` result a model can act on. */
export async function callTool(
  tool: ToolDef,
  args: Record<string, unknown>,
  client: SignetClient,
  ctx: ToolContext = {},
): Promise<CallToolResult> {
  try {
    const result = await tool.handler(args, client, ctx);
    if (isCallToolResult(result)) return result;
    return { content: [{ type: "text", text: JSON.stringify(result, null, 2) }] };
  } catch (err) {
    let message: string;
    if (err instanceof DaemonIdentityError) {
      message = err.message;
    } else if (err instanceof DaemonUnreachableError) {
      message = `Signet daemon not reachable at ${err.url}: start it with \`signet daemon start\``;
    } else if (err instanceof ApiError) {
      message = `${tool.name} failed (${err.code}): ${err.message}`;
    } else if (err instanceof ToolFailure) {
      message = err.message;
    } else {
      message = `${tool.name} failed: ${(err as Error).message ?? String(err)}`;
    }
    return { isError: true, content: [{ type: "text", text: message }] };
  }
}
