// signet_source_search (docs/mcp.md#tools): the document sources' chunks for a query, answered as
// compact text a model reads (src/present/sources.ts) and as the search answer itself in
// structuredContent.
import { z } from "zod";
import type { SourceSearchResponse } from "../contracts/sources";
import { defined } from "../contracts/parse";
import { sourceSearchText } from "../present/sources";
import { defineTool, openObject, rendered, type Tool } from "./tool";

const matchedBy = z.enum(["hybrid", "keyword", "vector"]);
const SourceSearchOutput = z.object({
  results: z
    .array(
      openObject({
        id: z.string(),
        path: z.string().describe("Absolute path of the file"),
        startLine: z.number().describe("First line of the chunk (1-based)"),
        endLine: z.number().describe("Last line of the chunk (inclusive)"),
        content: z.string(),
        score: z.number(),
        heading: z.string().nullable().describe("The section or declaration the chunk belongs to"),
        matchedBy,
      }),
    )
    .describe("Chunks, best first"),
  meta: openObject({
    method: matchedBy,
    tookMs: z.number(),
    candidates: z.number(),
    embedding: z.enum(["ok", "unavailable", "disabled"]),
    minScore: z.number(),
    belowMinScore: z.number(),
  }),
}) satisfies z.ZodType<SourceSearchResponse>;

export const SOURCE_SEARCH_TOOL: Tool = defineTool({
  name: "signet_source_search",
  title: "Search sources",
  description:
    "Search the documents, notes and code the user added as sources (`signet source add`): returns the best matching chunks, each with its file path and line range, never memories.",
  input: {
    query: z.string().describe("Search query text"),
    limit: z.number().int().optional().describe("Max results to return (default 10, max 100)"),
    path: z.string().optional().describe("Optional source path filter: only files whose path contains this text (a directory, a file name)"),
  },
  output: SourceSearchOutput.shape,
  annotations: { readOnlyHint: true, openWorldHint: false },
  handler: async (a, client) => {
    const response = await client.sources.search(defined({ query: a.query, limit: a.limit, path: a.path }));
    return rendered(response, (r) => sourceSearchText(a.query, r));
  },
});
