// The MCP tool table (docs/mcp.md#tools): tool and parameter names as harnesses already know them.
// Handlers map arguments onto the daemon's API contracts and call it through the one shared client;
// the daemon validates with the same schemas as every other surface. Tools whose daemon routes come
// in later versions are listed already and answer an error saying so, never a fake success.
import { z } from "zod";
import { defined } from "../contracts/parse";
import { RecallResponseSchema, type RecallResponse } from "../contracts/recall";
import { ApiError } from "../client/client";
import { BRIDGE_TOOLS } from "./bridge-tools";
import { SESSION_TOOLS } from "./session-tools";
import { AGENT_TOOLS } from "./agent-tools";
import { CODE_TOOLS } from "./code-tools";
import { recallBrief } from "../present/recall";
import { SOURCE_SEARCH_TOOL } from "./source-search";
import { API } from "../contracts/api";
import {
  forgottenText,
  listText,
  memoryDetailText,
  modifiedText,
  storedText,
} from "./memory-answer";
import { READS, ToolFailure, defineTool, nonEmpty, rendered, type Tool, type ToolContext } from "./tool";
import { secretJobText } from "./secret-answer";

/**
 * Changes only Signet's own state and loses nothing (earlier versions stay in the history); the
 * same call again changes nothing more (dedupe, or nothing left to change).
 */
const SAFE_WRITE = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

const memoryId = nonEmpty("a memory id").describe("Memory ID");
const reason = z.string().describe("Why this change is made (kept in the version history)");

/** memory_store's and signet_save_note's `project`: a string, or null for none (docs/mcp.md#the-project-of-a-stored-memory). */
const projectArg = z
  .string()
  .nullable()
  .optional()
  .describe(
    "The project this memory is about, usually its directory. Omitted: signet-mcp fills in the directory the harness started it in, which is the project its session hooks report, so the memory comes back when a session starts there (over HTTP, /mcp, it stays unset). Pass null for a memory of no project (global: a preference of the user, a fact that holds everywhere).",
  );

/** The project to store under: the one given, none for null, else the connection's (stdio: its working directory). */
function projectFor(tool: string, given: string | null | undefined, ctx: ToolContext): string | undefined {
  // The daemon refuses an empty project too; this says what to send instead.
  if (given?.trim() === "") {
    throw new ToolFailure(`${tool} failed (invalid_input): project is empty: name the project (usually its directory), or pass null for a memory of no project`);
  }
  return given === null ? undefined : (given ?? ctx.project);
}

/** Tags as the HTTP API takes them: an array of strings or one comma-separated string (the daemon checks each tag). */
const tagsArg = (description: string) => z.union([z.array(z.string()), z.string()]).optional().describe(description);

const searchShape = {
  query: z.string().describe("Search query text"),
  limit: z.number().int().optional().describe("Max results to return (default 10)"),
  project: z.string().optional().describe("Optional project path filter"),
  type: z.string().optional().describe('Filter by memory type (e.g. "preference", "fact")'),
  tags: tagsArg("Filter by tags (an array, or comma-separated); a memory must carry all of them"),
  who: z.string().optional().describe("Filter by author"),
  since: z.string().optional().describe("Only include memories created after this date (ISO-8601)"),
  until: z.string().optional().describe("Only include memories created before this date (ISO-8601)"),
  keyword_query: z.string().optional().describe("Override the keyword/FTS query used for recall"),
  pinned: z.boolean().optional().describe("Only return pinned memories"),
  importance_min: z.number().optional().describe("Minimum memory importance threshold (0-1)"),
  min_score: z.number().optional().describe("Deprecated compatibility alias for importance_min"),
  score_min: z
    .number()
    .optional()
    .describe("Minimum recall score (0-1). Without it every match is returned, labelled strong (score 0.2 or more, with evidence of its own for the query) or weak"),
  aggregate: z.boolean().optional().describe("Synthesize one aggregate answer from bounded recall evidence"),
  aggregate_budget: z.enum(["small", "medium", "large"]).optional().describe("Aggregate recall budget; defaults to small"),
  save_aggregate: z
    .boolean()
    .optional()
    .describe("Save the aggregate answer as a normal memory; defaults to true in aggregate mode"),
};

/** memory_search and signet_recall: one recall, answered as a brief and as the recall answer itself. */
function recallTool(name: string, title: string, description: string): Tool {
  return defineTool({
    name,
    title,
    description,
    input: searchShape,
    // The tools never ask for sourceOnly: their answer is memories.
    output: RecallResponseSchema.shape,
    // Not read-only: aggregate mode saves its answer as a memory unless save_aggregate is false. It
    // only ever adds one, so it is not destructive either.
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    calls: API.recall.recall,
    handler: async (a, client, ctx) => {
      const response = await client.memory.recall(
        defined({
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
          // score_min is the daemon's minimum (held to the 0-1 a score can take), and is applied again
          // to the rows returned, as it always was.
          minScore: a.score_min === undefined ? undefined : Math.min(1, Math.max(0, a.score_min)),
          aggregate: a.aggregate,
          aggregateBudget: a.aggregate_budget,
          saveAggregate: a.save_aggregate,
          sessionKey: ctx.sessionKey,
        }),
      );
      const scoreMin = a.score_min;
      const filtered: RecallResponse =
        scoreMin === undefined ? response : { ...response, results: response.results.filter((r) => r.score >= scoreMin) };
      return { content: [{ type: "text", text: recallBrief(a.query, filtered) }], structuredContent: filtered };
    },
  });
}

/** The whole table, built once; both transports serve it (src/mcp/server.ts). */
export const TOOLS: Tool[] = [
  recallTool(
    "memory_search",
    "Search memories",
    "Hybrid vector + keyword search over stored memories, ranked by a combined score. Returns a recall brief with primary matches and supporting context. Use session_search for session transcripts.",
  ),
  recallTool(
    "signet_recall",
    "Recall memories",
    "Recall memories relevant to a query (hybrid keyword + vector search). Returns primary matches and supporting context with scores, ids, types, dates and authors.",
  ),
  SOURCE_SEARCH_TOOL,
  defineTool({
    name: "memory_store",
    title: "Store a memory",
    description:
      "Save a new memory as immutable episodic evidence. It is immediately retrievable via recall/search/list/get. Returns the created memory with its id (or the existing one with deduped:true when the same content is already stored). Filed under the current project unless project names another, or is null for a memory of no project.",
    input: {
      content: z.string().describe("Memory content to save"),
      type: z.string().optional().describe("Memory type (fact, preference, decision, etc.)"),
      importance: z.number().optional().describe("Importance score 0-1"),
      tags: tagsArg("Tags for categorization: an array of strings, or comma-separated"),
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
      project: projectArg,
    },
    output: API.memory.remember.response.shape,
    annotations: SAFE_WRITE,
    calls: API.memory.remember,
    handler: async (a, client, ctx) => {
      // `structured` is listed as an object and checked whole (bounds included) by the daemon's contract.
      const structured = a.structured as Record<string, unknown> | undefined;
      const project = projectFor("memory_store", a.project, ctx);
      return rendered(await client.memory.remember(defined({ ...a, structured, project, sessionKey: ctx.sessionKey })), storedText);
    },
  }),
  defineTool({
    name: "signet_save_note",
    title: "Save a note",
    description: "Save a durable native-memory note (type note, at most 8000 characters), filed under the current project unless project names another, or is null for none.",
    input: {
      content: z.string().describe("Note text (at most 8000 characters)"),
      title: z.string().optional().describe("Optional short title"),
      tags: tagsArg("Tags: an array of strings, or comma-separated"),
      project: projectArg,
    },
    output: API.memory.note.response.shape,
    annotations: SAFE_WRITE,
    calls: API.memory.note,
    handler: async (a, client, ctx) => rendered(await client.memory.note(defined({ ...a, project: projectFor("signet_save_note", a.project, ctx) })), storedText),
  }),
  defineTool({
    name: "memory_get",
    title: "Get a memory",
    description: "Retrieve a single memory by its ID: content, type, importance, tags, timestamps and version history.",
    input: { id: memoryId.describe("Memory ID to retrieve") },
    output: API.memory.get.response.shape,
    annotations: READS,
    calls: API.memory.get,
    handler: async (a, client) => rendered(await client.memory.get(a.id), memoryDetailText),
  }),
  defineTool({
    name: "memory_list",
    title: "List memories",
    description: "List memories, newest first, with optional pagination and type filtering.",
    input: {
      limit: z.number().int().optional().describe("Max results (default 100)"),
      offset: z.number().int().optional().describe("Pagination offset"),
      type: z.string().optional().describe("Filter by memory type"),
    },
    output: API.memory.list.response.shape,
    annotations: READS,
    calls: API.memory.list,
    // The client leaves parameters without a value out of the query string.
    handler: async (a, client) => rendered(await client.memory.list(a), listText),
  }),
  defineTool({
    name: "memory_modify",
    title: "Modify a memory",
    description:
      "Edit an existing memory. Requires a reason for the edit; the previous version stays in the history. Set pinned to false to unpin a memory, which only the user should decide.",
    input: {
      id: memoryId.describe("Memory ID to modify"),
      reason: reason.describe("Why this edit is being made"),
      content: z.string().optional().describe("New content"),
      type: z.string().optional().describe("New type"),
      importance: z.number().optional().describe("New importance"),
      tags: tagsArg("New tags: an array of strings, or comma-separated"),
      pinned: z.boolean().optional().describe("Pin (true) or unpin (false); a pinned memory cannot be forgotten"),
    },
    output: API.memory.modify.response.shape,
    annotations: SAFE_WRITE,
    calls: API.memory.modify,
    handler: async ({ id, ...changes }, client) => rendered(await client.memory.modify(id, defined(changes)), modifiedText),
  }),
  defineTool({
    name: "memory_forget",
    title: "Forget a memory",
    description:
      "Soft-delete a memory: it is marked as forgotten with a reason and can be recovered for 30 days. Pinned memories must be unpinned first (memory_modify with pinned: false), which only the user should decide.",
    input: {
      id: memoryId.describe("Memory ID to forget"),
      reason: reason.describe("Why this memory should be forgotten"),
    },
    output: API.memory.forget.response.shape,
    // Forgetting it again is refused and changes nothing.
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    calls: API.memory.forget,
    handler: async ({ id, reason: why }, client) => {
      try {
        return rendered(await client.memory.forget(id, { reason: why }), forgottenText);
      } catch (err) {
        // The daemon's message offers `force`, which this tool deliberately lacks: agents unpin
        // first, a visible step with its own reason in the history (docs/mcp.md#tools).
        if (err instanceof ApiError && err.code === "pinned") {
          throw new ToolFailure(
            `memory_forget failed (pinned): memory ${id} is pinned: unpin it first with memory_modify (pinned: false, with a reason), then call memory_forget again. Someone pinned it to keep it: unpin it only if the user wants it gone.`,
          );
        }
        throw err;
      }
    },
  }),
  ...SESSION_TOOLS,
  ...AGENT_TOOLS,
  defineTool({
    name: "secret_list",
    title: "List secrets",
    description: "List available secret names. Returns names only: raw secret values are never exposed to agents.",
    input: {},
    output: { secrets: z.array(z.string()).describe("Secret names, usable as references in secret_exec") },
    annotations: READS,
    calls: API.secrets.list,
    handler: async (_a, client) => {
      const names = (await client.secrets.list()).secrets.map((s) => s.name);
      return rendered({ secrets: names }, (r) => (r.secrets.length ? `Secrets: ${r.secrets.join(", ")}` : "No secrets are stored (signet secret set NAME adds one)."));
    },
  }),
  defineTool({
    name: "secret_exec",
    title: "Run a command with secrets",
    description:
      "Queue a shell command (/bin/sh -c) with secrets injected as environment variables. Output is redacted: secret values never appear in results. Bare names resolve through the active secrets provider (local by default); local://NAME forces the local store, bw://ITEM a Bitwarden item, op://VAULT/ITEM/FIELD 1Password. Returns a job id: poll secret_exec_status for the redacted output.",
    input: {
      command: z.string().describe("Shell command to queue; refer to secrets as environment variables, e.g. \"$API_KEY\""),
      // z.unknown, not z.record: a record drops a `__proto__` name silently; the daemon's contract
      // checks the map and refuses that name, and tools/list still advertises a map of strings.
      secrets: z
        .unknown()
        .meta({ type: "object", propertyNames: { type: "string" }, additionalProperties: { type: "string" } })
        .describe("Map of env var name to secret reference (Signet name, local://NAME, bw://..., or op://...)"),
      timeoutSeconds: z.number().optional().describe("Max subprocess runtime for the queued job; defaults to 300 seconds, max 1800"),
    },
    output: API.secrets.exec.response.shape,
    // A shell command may change or reach anything.
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    calls: API.secrets.exec,
    handler: async (a, client) =>
      rendered(
        // `secrets` is listed as a map of strings and checked whole by the daemon's contract.
        await client.secrets.exec(defined({ ...a, secrets: a.secrets as Record<string, string> })),
        (job) => `Queued secret exec job ${job.id} (timeout ${job.timeoutMs / 1000} s). Poll secret_exec_status with jobId ${job.id} for its redacted output.`,
      ),
  }),
  defineTool({
    name: "secret_exec_status",
    title: "Check a secret command",
    description:
      "Poll a queued secret_exec job. Finished jobs include the redacted stdout and stderr, exitCode and timedOut; failed ones say why nothing ran.",
    input: { jobId: nonEmpty("a job id").describe("Job id returned by secret_exec") },
    output: API.secrets.status.response.shape,
    annotations: READS,
    calls: API.secrets.status,
    handler: async (a, client) => rendered(await client.secrets.status(a.jobId), secretJobText),
  }),
  ...CODE_TOOLS,
  ...BRIDGE_TOOLS,
];
