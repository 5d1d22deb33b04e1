// The MCP tool table: names and parameters as the MCP design document spells them. Handlers map
// arguments onto the daemon's API contracts and call it through the one shared client; the daemon
// validates with the same schemas as every other surface.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { ApiError, DaemonUnreachableError, type SignetClient } from "../client/client";

export interface ToolDef {
  name: string;
  description: string;
  inputSchema: z.ZodRawShape;
  handler(args: Record<string, unknown>, client: SignetClient): Promise<unknown>;
}

/** Drops undefined values so the daemon's strict schemas see only what the model gave. */
function compact(obj: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined));
}

const id = z.string().describe("Memory ID");
const reason = z.string().describe("Why this change is made (kept in the version history)");

export const TOOLS: ToolDef[] = [
  {
    name: "memory_store",
    description:
      "Save a new memory as immutable episodic evidence. It is immediately retrievable via get/list. Returns the created memory with its id (or the existing one with deduped:true when the same content is already stored).",
    inputSchema: {
      content: z.string().describe("Memory content to save"),
      type: z.string().optional().describe("Memory type (fact, preference, decision, rule, learning, issue, event, ...)"),
      importance: z.number().optional().describe("Importance score 0-1 (default 0.5)"),
      tags: z.string().optional().describe("Comma-separated tags for categorization"),
      pinned: z.boolean().optional().describe("Pin this memory so it bypasses decay"),
      hints: z.array(z.string()).optional().describe("Prospective recall hints and alternate phrasings"),
      transcript: z.string().optional().describe("Raw source text to preserve alongside the memory"),
      structured: z.record(z.string(), z.unknown()).optional().describe("Pre-extracted entity/aspect/attribute data kept as evidence"),
      reviewAfter: z.string().optional().describe("ISO timestamp after which the memory should be reviewed"),
    },
    handler: (a, c) => c.memory.remember(compact({ ...a })),
  },
  {
    name: "signet_save_note",
    description: "Save a durable native-memory note (type note). Content up to 8000 characters.",
    inputSchema: {
      content: z.string().describe("Note text (at most 8000 characters)"),
      title: z.string().optional().describe("Optional short title"),
      tags: z.string().optional().describe("Comma-separated tags"),
    },
    handler: (a, c) => c.memory.note(compact({ ...a })),
  },
  {
    name: "memory_get",
    description: "Retrieve a single memory by its ID, with its version history.",
    inputSchema: { id: id.describe("Memory ID to retrieve") },
    handler: (a, c) => c.memory.get(String(a.id)),
  },
  {
    name: "memory_list",
    description: "List memories, newest first, with optional pagination and type filtering.",
    inputSchema: {
      limit: z.number().int().optional().describe("Max results (default 100, max 1000)"),
      offset: z.number().int().optional().describe("Pagination offset"),
      type: z.string().optional().describe("Filter by memory type"),
    },
    handler: (a, c) => c.memory.list(compact({ limit: a.limit, offset: a.offset, type: a.type }) as Record<string, string | number>),
  },
  {
    name: "memory_modify",
    description: "Edit an existing memory. Requires a reason; the previous version stays in the history.",
    inputSchema: {
      id: id.describe("Memory ID to modify"),
      reason,
      content: z.string().optional().describe("New content"),
      type: z.string().optional().describe("New type"),
      importance: z.number().optional().describe("New importance 0-1"),
      tags: z.string().optional().describe("New tags (comma-separated); replaces the old set"),
    },
    handler: ({ id: memoryId, ...rest }, c) => c.memory.modify(String(memoryId), compact(rest)),
  },
  {
    name: "memory_forget",
    description:
      "Soft-delete a memory: it is marked forgotten with a reason and can be recovered for 30 days. Pinned memories must be unpinned first.",
    inputSchema: { id: id.describe("Memory ID to forget"), reason: reason.describe("Why this memory should be forgotten") },
    handler: ({ id: memoryId, reason: why }, c) => c.memory.forget(String(memoryId), { reason: why }),
  },
];

/** Runs a tool and turns every failure into an `isError` result a model can act on. */
export async function callTool(tool: ToolDef, args: Record<string, unknown>, client: SignetClient): Promise<CallToolResult> {
  try {
    const result = await tool.handler(args, client);
    return { content: [{ type: "text", text: JSON.stringify(result, null, 2) }] };
  } catch (err) {
    let message: string;
    if (err instanceof DaemonUnreachableError) {
      message = `Signet daemon not reachable at ${err.url}: start it with \`signet daemon start\``;
    } else if (err instanceof ApiError) {
      message = `${tool.name} failed (${err.code}): ${err.message}`;
    } else {
      message = `${tool.name} failed: ${(err as Error).message ?? String(err)}`;
    }
    return { isError: true, content: [{ type: "text", text: message }] };
  }
}
