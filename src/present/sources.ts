// The document sources' search answer as text for a model (signet_source_search): each chunk as
// path:startLine-endLine, its score and heading, and a few of its lines from the first that holds
// a query term.
import type { SourceChunkResult, SourceSearchResponse } from "../contracts/sources";
import { queryTerms } from "../core/search/text";

/** Lines of a chunk shown in the text answer, and their characters at most. */
const SNIPPET_LINES = 4;
const SNIPPET_CHARS = 320;

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

export function sourceSearchText(query: string, r: SourceSearchResponse): string {
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
