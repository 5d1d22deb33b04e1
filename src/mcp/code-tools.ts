// The signet_code_* tools (docs/mcp.md#code-tools), with the names and parameters of the MCP design
// document. Each calls one operation of the code index (contracts/code.ts) through the shared client,
// for the project the session works in (signet-mcp's working directory,
// docs/code.md#which-project-answers) unless the call names another; a folder no index covers is
// answered "no code index for <folder>: run `signet index ...`", never from another project's index.
import { isAbsolute, resolve } from "node:path";
import { z } from "zod";
import { ApiError } from "../client/client";
import { API } from "../contracts/api";
import { defined } from "../contracts/parse";
import { blastText, briefingText, clearText, constantsText, contextText, doctorText, searchText, statusText } from "../present/code";
import { READS, ToolFailure, defineTool, rendered, type Tool, type ToolContext } from "./tool";

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
const project = z
  .string()
  .optional()
  .describe(
    "The project whose index answers: its folder or one inside it. Omitted: the folder this session works in (over HTTP, where that is unknown, the project indexed last).",
  );

/**
 * The project of a call: the one it names (a relative folder read from the session's working
 * directory), else that directory itself (signet-mcp's; /mcp knows none).
 */
function projectOf(given: string | undefined, ctx: ToolContext): string | undefined {
  if (given === undefined) return ctx.project;
  return ctx.project !== undefined && !isAbsolute(given) ? resolve(ctx.project, given) : given;
}

export const CODE_TOOLS: Tool[] = [
  defineTool({
    name: "signet_code_search",
    title: "Search code",
    description:
      "Search the project's code for symbols and implementation context: by a name (camelCase and snake_case parts) or a question in plain words (\"where is the admin token checked\"); functions, classes, methods, types and constants ranked by name, doc comment, signature, body and path. Each hit has its path, line range and a snippet.",
    input: {
      query: z.string().describe("Code search query"),
      top: z.number().int().optional().describe("Max results to return (default 10)"),
      file: z.string().optional().describe("Optional file path filter"),
      debug: z.boolean().optional().describe("Include score/debug details"),
      project,
    },
    calls: API.code.search,
    annotations: READS,
    handler: async (a, client, ctx) => rendered(await plain(() => client.code.search(defined({ ...a, project: projectOf(a.project, ctx) }))), searchText),
  }),
  defineTool({
    name: "signet_code_context",
    title: "Symbol context",
    description:
      "Read source and structural neighborhood for a symbol: its source, container, callers, callees and the imports of its file. An ambiguous name answers the list of candidates.",
    input: { symbol, project },
    calls: API.code.context,
    annotations: READS,
    handler: async (a, client, ctx) => rendered(await plain(() => client.code.context(defined({ ...a, project: projectOf(a.project, ctx) }))), contextText),
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
      project,
    },
    calls: API.code.blast,
    annotations: READS,
    handler: async (a, client, ctx) => rendered(await plain(() => client.code.blast(defined({ ...a, project: projectOf(a.project, ctx) }))), blastText),
  }),
  defineTool({
    name: "signet_code_status",
    title: "Code index status",
    description: "Show code index status for the project: files and symbols per language, the last run, and files changed since.",
    input: { project },
    calls: API.code.status,
    annotations: READS,
    handler: async (a, client, ctx) => rendered(await plain(() => client.code.status(defined({ project: projectOf(a.project, ctx) }))), statusText),
  }),
  defineTool({
    name: "signet_code_doctor",
    title: "Code index health",
    description: "Diagnose code index artifact health: database integrity, manifest against disk, grammars. Each problem comes with its fix.",
    input: { project },
    calls: API.code.doctor,
    annotations: READS,
    handler: async (a, client, ctx) => rendered(await plain(() => client.code.doctor(defined({ project: projectOf(a.project, ctx) }))), doctorText),
  }),
  defineTool({
    name: "signet_code_constants",
    title: "Shared constants",
    description: "Find shared numeric and string constants: literals that occur in more than one file, with where they occur.",
    input: { project },
    calls: API.code.constants,
    annotations: READS,
    handler: async (a, client, ctx) => rendered(await plain(() => client.code.constants(defined({ project: projectOf(a.project, ctx) }))), constantsText),
  }),
  defineTool({
    name: "signet_code_clear",
    title: "Delete the code index",
    description:
      "Delete the project's code index and leave a fresh empty database (destructive, no backup, shared by every session in the project; requires confirm: true). Rebuild it with `signet index <path>`.",
    input: { confirm: z.boolean().describe("Must be true: the index is deleted and not backed up"), project },
    calls: API.code.clear,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    handler: async (a, client, ctx) => {
      if (a.confirm !== true) {
        throw new ToolFailure("signet_code_clear refused: pass confirm: true to delete the project's code index (it is not backed up)");
      }
      return rendered(await plain(() => client.code.clear({ confirm: true, ...defined({ project: projectOf(a.project, ctx) }) })), clearText);
    },
  }),
  defineTool({
    name: "signet_code_briefing",
    title: "Architecture briefing",
    description: "Get an architecture overview: subsystems (folders and their links), public API, hub symbols (compact for a short version).",
    input: { compact: z.boolean().optional().describe("A short version"), project },
    calls: API.code.briefing,
    annotations: READS,
    handler: async (a, client, ctx) => rendered(await plain(() => client.code.briefing(defined({ ...a, project: projectOf(a.project, ctx) }))), briefingText),
  }),
];
