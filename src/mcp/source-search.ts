// signet_source_search (docs/mcp.md#tools): the document sources' chunks for a query, answered as
// compact text a model reads (src/present/sources.ts) and as the search answer itself in
// structuredContent.
import { z } from "zod";
import { API } from "../contracts/api";
import { defined } from "../contracts/parse";
import { sourceSearchText } from "../present/sources";
import { defineTool, rendered, type Tool } from "./tool";

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
  output: API.sources.search.response.shape,
  calls: API.sources.search,
  annotations: { readOnlyHint: true, openWorldHint: false },
  handler: async (a, client) => {
    const response = await client.sources.search(defined({ query: a.query, limit: a.limit, path: a.path }));
    return rendered(response, (r) => sourceSearchText(a.query, r));
  },
});
