// `signet recall "<query>"`: hybrid search with every filter as a flag.
import { defineCommand } from "citty";
import { parseInput } from "../contracts/parse";
import { RecallRequestSchema, type RecallResponse, type RecallResult } from "../contracts/recall";
import { clientArgs, clientFor, configFromFlags } from "./context";
import { defined, filterArgs, filterFields, num } from "./flags";
import { emit } from "./output";

function renderRow(r: RecallResult, prefix = ""): string {
  const meta = [r.type, r.createdAt.slice(0, 10), r.who ? `by ${r.who}` : null, r.matchedBy].filter(Boolean).join(" · ");
  return `${prefix}${r.score.toFixed(3)}  ${r.id}  [${meta}]\n${prefix}  ${r.content.replace(/\n/g, `\n${prefix}  `)}`;
}

export function renderRecall(res: RecallResponse): string {
  if (res.results.length === 0) return "no memories match: try a broader query or fewer filters";
  const lines = res.results.map((r) => renderRow(r));
  if (res.supporting.length) lines.push("", "supporting context:", ...res.supporting.map((r) => renderRow(r, "  ")));
  const note = res.meta.embedding === "ok" ? "" : ` (keyword-only: embedding ${res.meta.embedding})`;
  lines.push("", `${res.meta.method} · ${res.meta.candidates} candidates · ${res.meta.tookMs} ms${note}`);
  return lines.join("\n");
}

export default defineCommand({
  meta: { name: "recall", description: "Search memories: keyword + vector, fused and ranked" },
  args: {
    query: { type: "positional", description: "What to look for, in plain words", required: true },
    limit: { type: "string", description: "How many results (default 10, max 100)" },
    ...filterArgs,
    "importance-min": { type: "string", description: "Only memories at least this important (0-1)" },
    "keyword-query": { type: "string", description: "Use this text for the keyword leg instead of the query" },
    "session-key": { type: "string", description: "Record the results as surfaced in this session" },
    ...clientArgs,
  },
  async run({ args }) {
    const body = parseInput(
      RecallRequestSchema,
      defined({
        query: args.query,
        limit: num("limit", args.limit),
        ...filterFields(args),
        importanceMin: num("importance-min", args["importance-min"]),
        keywordQuery: args["keyword-query"],
        sessionKey: args["session-key"],
      }),
      "recall request",
    );
    const result = await clientFor(configFromFlags(args)).memory.recall(body);
    emit(result, args, renderRecall);
  },
});
