// The signet_code_* tools (docs/mcp.md#code-tools), with the names and parameters of the MCP design
// document. Each calls the daemon's /api/code routes through the shared client; before any project
// is indexed they answer "no project indexed: run `signet index <path>`".
import { z } from "zod";
import { ApiError } from "../client/client";
import { defined } from "../contracts/parse";
import { blastText, briefingText, clearText, constantsText, contextText, doctorText, searchText, statusText } from "./code-answer";
import { READS, ToolFailure, defineTool, rendered, type Tool } from "./tool";

/** A not_found from the daemon (no project indexed, its index missing) is the whole answer: said as is. */
async function plain<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof ApiError && err.code === "not_found") throw new ToolFailure(err.message);
    throw err;
  }
}

const symbol = z.string().describe("Symbol name: `name`, `Container.name` or `path:name` when a name has several definitions");

export const CODE_TOOLS: Tool[] = [
  defineTool({
    name: "signet_code_search",
    title: "Search code",
    description:
      "Search the active indexed project for symbols and implementation context: functions, classes, methods, types and constants ranked by name (camelCase and snake_case parts), signature, doc comment and path. Each hit has its path, line range and a snippet.",
    input: {
      query: z.string().describe("Code search query"),
      top: z.number().int().optional().describe("Max results to return (default 10)"),
      file: z.string().optional().describe("Optional file path filter"),
      debug: z.boolean().optional().describe("Include score/debug details"),
    },
    annotations: READS,
    handler: async (a, client) => rendered(await plain(() => client.code.search(defined(a))), searchText),
  }),
  defineTool({
    name: "signet_code_context",
    title: "Symbol context",
    description:
      "Read source and structural neighborhood for a symbol: its source, container, callers, callees and the imports of its file. An ambiguous name answers the list of candidates.",
    input: { symbol },
    annotations: READS,
    handler: async (a, client) => rendered(await plain(() => client.code.context(a)), contextText),
  }),
  defineTool({
    name: "signet_code_blast",
    title: "Symbol impact",
    description:
      "Analyze forward/backward impact radius for a symbol: what depends on it (backward, the default), what it depends on (forward), or both, to a depth (default 2).",
    input: {
      symbol,
      depth: z.number().int().optional().describe("How many hops to follow (default 2, at most 10)"),
      direction: z.enum(["forward", "backward", "both"]).optional().describe("backward: dependents; forward: dependencies; both"),
    },
    annotations: READS,
    handler: async (a, client) => rendered(await plain(() => client.code.blast(defined(a))), blastText),
  }),
  defineTool({
    name: "signet_code_status",
    title: "Code index status",
    description: "Show code index status for the active project: files and symbols per language, the last run, and files changed since.",
    input: {},
    annotations: READS,
    handler: async (_a, client) => rendered(await plain(() => client.code.status()), statusText),
  }),
  defineTool({
    name: "signet_code_doctor",
    title: "Code index health",
    description: "Diagnose code index artifact health: database integrity, manifest against disk, grammars. Each problem comes with its fix.",
    input: {},
    annotations: READS,
    handler: async (_a, client) => rendered(await plain(() => client.code.doctor()), doctorText),
  }),
  defineTool({
    name: "signet_code_constants",
    title: "Shared constants",
    description: "Find shared numeric and string constants: literals that occur in more than one file, with where they occur.",
    input: {},
    annotations: READS,
    handler: async (_a, client) => rendered(await plain(() => client.code.constants()), constantsText),
  }),
  defineTool({
    name: "signet_code_clear",
    title: "Delete the code index",
    description:
      "Delete the active code index and leave a fresh empty database (destructive, no backup, shared by the whole workspace; requires confirm: true). Rebuild it with `signet index <path>`.",
    input: { confirm: z.boolean().describe("Must be true: the index is deleted and not backed up") },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    handler: async (a, client) => {
      if (a.confirm !== true) {
        throw new ToolFailure("signet_code_clear refused: pass confirm: true to delete the active code index (it is not backed up)");
      }
      return rendered(await plain(() => client.code.clear(a)), clearText);
    },
  }),
  defineTool({
    name: "signet_code_briefing",
    title: "Architecture briefing",
    description: "Get an architecture overview: subsystems (folders and their links), public API, hub symbols (compact for a short version).",
    input: { compact: z.boolean().optional().describe("A short version") },
    annotations: READS,
    handler: async (a, client) => rendered(await plain(() => client.code.briefing(defined(a))), briefingText),
  }),
];
