// signet_source_search (docs/mcp.md#tools): the document sources' chunks for a query, answered as
// compact text a model reads (path:startLine-endLine, score, a few matching lines) and as the search
// answer itself in structuredContent.
import { z } from "zod";
import type { SourceChunkResult, SourceSearchResponse } from "../contracts/sources";
import { defined } from "../contracts/parse";
import { queryTerms } from "../core/recall/text";
import { defineTool, openObject, rendered, type Tool } from "./tool";

/** Lines of a chunk shown in the text answer, and their characters at most. */
const SNIPPET_LINES = 4;
const SNIPPET_CHARS = 320;

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

/** The chunk's lines from the first that holds a query term (its first lines when none does), cut short. */
function snippet(chunk: SourceChunkResult, terms: string[]): string {
  const lines = chunk.content.split("\n");
  const hit = lines.findIndex((l) => {
    const lower = l.toLowerCase();
    return terms.some((t) => lower.includes(t));
  });
  const shown = lines.slice(Math.max(hit, 0)).filter((l) => l.trim() !== "").slice(0, SNIPPET_LINES).join("\n");
  return shown.length > SNIPPET_CHARS ? `${shown.slice(0, SNIPPET_CHARS)}…` : shown;
}

function answerText(query: string, r: SourceSearchResponse): string {
  const note = r.meta.embedding === "ok" ? "" : `\n(keyword-only: embedding provider ${r.meta.embedding})`;
  if (r.results.length === 0) {
    return `No source chunk matches "${query}". Try other or broader words; \`signet source list\` shows which documents were added.${note}`;
  }
  const terms = queryTerms(query);
  const rows = r.results.map((c, i) => {
    const where = `${i + 1}. ${c.path}:${c.startLine}-${c.endLine} (score ${c.score.toFixed(2)})${c.heading ? ` ${c.heading}` : ""}`;
    return `${where}\n${snippet(c, terms).replace(/^/gm, "   ")}`;
  });
  return `${r.results.length} source chunk${r.results.length === 1 ? "" : "s"} for "${query}":\n${rows.join("\n")}${note}`;
}

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
    return rendered(response, (r) => answerText(a.query, r));
  },
});
