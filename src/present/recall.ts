// The recall brief: how a recall answer reads to a model (the MCP memory tools) and to a person
// (`signet recall --pretty`). One renderer, so the two surfaces cannot drift apart.
import { RECALL_STRONG_SCORE } from "../contracts/scores";
import { type AggregateAnswer, type RecallResponse, type RecallResult, type SupportingResult } from "../contracts/recall";

/** A result from a daemon before confidence labels has none: its score decides, as it would now. */
const isWeak = (r: RecallResult) => (r.confidence ?? (r.score >= RECALL_STRONG_SCORE ? "strong" : "weak")) === "weak";

function row(r: RecallResult): string {
  const meta = [r.score.toFixed(2), isWeak(r) ? "weak" : null, r.id, r.type, r.createdAt.slice(0, 10), r.who ? `by ${r.who}` : null].filter(Boolean).join(" · ");
  const about = "entities" in r && r.entities?.length ? `\n  (about: ${r.entities.join(", ")})` : "";
  return `[${meta}]\n  ${r.content.replace(/\n/g, "\n  ")}${about}`;
}

function supportingRow(r: SupportingResult): string {
  return `${row(r)}\n  (${r.relation} of ${r.supports})`;
}

/** An aggregate answer (docs/api.md#aggregate): how it was made, the answer, and whether it was saved. */
function aggregateSection(a: AggregateAnswer): string[] {
  const how = a.mode === "llm" ? `written by ${a.model ?? "the llm"}` : "extractive";
  const fellBack = a.fallback ? `; the llm's answer was not used: ${a.fallback.message}` : "";
  const saved = "id" in a.saved ? `saved as memory ${a.saved.id}` : `not saved: ${a.saved.skipped}`;
  const cited = `${a.citations.length} ${a.citations.length === 1 ? "memory" : "memories"} cited`;
  return [`Aggregate answer (${how}${fellBack}):`, a.answer, `(${cited}; ${saved})`, ""];
}

export function recallBrief(query: string, res: RecallResponse): string {
  const lines: string[] = [];
  if (res.meta.embedding === "unavailable") lines.push("keyword-only: embedding provider unavailable", "");
  if (res.aggregate) lines.push(...aggregateSection(res.aggregate));
  if (res.results.length === 0) {
    const { belowMinScore, minScore } = res.meta;
    lines.push(
      belowMinScore && minScore
        ? // Loose matches are no answer (docs/api.md#scores): say so, so the agent does not go looking for one.
          `Nothing relevant to "${query}" is stored: ${belowMinScore} ${belowMinScore === 1 ? "memory" : "memories"} matched ` +
            `loosely, all scoring under the minimum of ${minScore}. Treat this as not known, or ask with other words.`
        : `Nothing relevant to "${query}" is stored. Treat this as not known, or ask with a broader query, fewer filters, or other words for the same thing.`,
    );
    return lines.join("\n");
  }
  const weak = res.results.filter(isWeak).length;
  const strong = res.results.length - weak;
  lines.push(
    weak === 0
      ? `Primary matches (${res.results.length}):`
      : strong === 0
        ? // Weak matches only (docs/api.md#scores): the ranking's best guesses, not an answer.
          `No strong match for "${query}"; ${weak} weak ${weak === 1 ? "match" : "matches"}, loosely similar and possibly unrelated:`
        : `Primary matches (${strong} strong, then ${weak} weak: loosely similar, possibly unrelated):`,
    ...res.results.map((r, i) => `${i + 1}. ${row(r)}`),
  );
  if (res.supporting.length > 0) {
    lines.push("", `Supporting context (${res.supporting.length}):`, ...res.supporting.map((r) => `- ${supportingRow(r)}`));
  }
  return lines.join("\n");
}
