// `signet recall "<query>"`: hybrid search with every filter as a flag. The daemon checks the
// request with the operation's schema and its refusal names the field (exit 2): checking it here
// first would load zod and build the recall contract's schemas at every recall (docs/benchmarks.md#cli-start).
import { defineCommand } from "./command";
import { COMMAND_DESCRIPTIONS } from "./descriptions";
import { defined } from "../contracts/parse";
import type { RecallResponse } from "../contracts/recall";
import { recallBrief } from "../present/recall";
import { clientArgs, clientFor, configFromFlags } from "./context";
import { filterArgs, filterFields, num } from "./flags";
import { emit } from "./output";
import { UsageError } from "./errors";

function renderRecall(query: string, res: RecallResponse): string {
  const how = `${res.meta.method} · ${res.meta.candidates} candidates · ${res.meta.tookMs} ms`;
  const embedding = res.meta.embedding === "ok" ? "" : ` · embedding ${res.meta.embedding}`;
  return `${recallBrief(query, res)}\n\n${how}${embedding}`;
}

/** --budget, --save and --no-save shape the aggregate answer: without --aggregate they would do nothing, so they are refused. */
function requireAggregateFor(args: { aggregate?: boolean; budget?: string; save?: boolean }): void {
  if (args.aggregate) return;
  const given = args.budget !== undefined ? "--budget" : args.save === true ? "--save" : args.save === false ? "--no-save" : null;
  if (given) throw new UsageError(`${given} applies to the aggregate answer only: add --aggregate, or leave ${given} out`);
}

export default defineCommand({
  meta: { name: "recall", description: COMMAND_DESCRIPTIONS.recall },
  args: {
    query: { type: "positional", text: true, description: "What to look for, in plain words", required: true },
    limit: { type: "string", description: "How many results (default 10, max 100)" },
    ...filterArgs,
    "importance-min": { type: "string", description: "Only memories at least this important (0-1)" },
    "min-score": { type: "string", description: "Only results scoring at least this (0-1; default: none, every ranked match with its confidence)" },
    "keyword-query": { type: "string", description: "Use this text for the keyword leg instead of the query" },
    "session-key": { type: "string", description: "Record the results as surfaced in this session" },
    aggregate: { type: "boolean", description: "Also answer with one summary of the best results, written by the configured llm or extractive, cited by memory id" },
    budget: { type: "string", description: "With --aggregate: how much evidence, small (8 memories), medium (16) or large (32); default small" },
    // No default: given without --aggregate, it is refused rather than ignored (the daemon saves by default).
    save: { type: "boolean", description: "With --aggregate: save the answer as a memory of type aggregate (--no-save: don't)" },
    ...clientArgs,
  },
  async run({ args }) {
    requireAggregateFor(args);
    const body = defined({
      query: args.query,
      limit: num("limit", args.limit),
      ...filterFields(args),
      importanceMin: num("importance-min", args["importance-min"]),
      minScore: num("min-score", args["min-score"]),
      keywordQuery: args["keyword-query"],
      sessionKey: args["session-key"],
      aggregate: args.aggregate,
      // Any other word is the daemon's to refuse, naming the field.
      aggregateBudget: args.budget as "small" | "medium" | "large" | undefined,
      saveAggregate: args.save,
    });
    const result = await clientFor(configFromFlags(args)).memory.recall(body);
    emit(result, args, (r) => renderRecall(args.query, r));
  },
});
