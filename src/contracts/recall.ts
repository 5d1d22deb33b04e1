// The recall contract (docs/api.md#recall), shared by POST /api/memory/recall, the CLI and the MCP tools.
import { z } from "zod";
import { AgentIdSchema } from "./agent";
import { answer } from "./answer";
import { MemorySchema, MemoryTypeSchema, TagsSchema, TimestampSchema } from "./memory";
import { operation } from "./operation";
import { ROUTES } from "./routes";
import { SessionKeySchema } from "./session";
import { SourceRecallResponseSchema, type SourceRecallResponse } from "./sources";

const RECALL_DEFAULT_LIMIT = 10;
const RECALL_MAX_LIMIT = 100;
/** How sure a result is: strong from RECALL_STRONG_SCORE (scores.ts) with evidence of its own (core/recall/confidence.ts), weak otherwise. */
type Confidence = "strong" | "weak";

/** Aggregate recall's evidence bounds (docs/api.md#aggregate): at most this many memories and characters. */
export const AGGREGATE_BUDGETS = {
  small: { memories: 8, chars: 2_000 },
  medium: { memories: 16, chars: 4_000 },
  large: { memories: 32, chars: 8_000 },
} as const;
export type AggregateBudget = keyof typeof AGGREGATE_BUDGETS;

export const RecallRequestSchema = z
  .object({
    query: z.string().trim().min(1, "cannot be empty").max(4000, "is longer than 4000 characters"),
    limit: z.number().int().min(1).max(RECALL_MAX_LIMIT, `must be at most ${RECALL_MAX_LIMIT}`).default(RECALL_DEFAULT_LIMIT),
    project: z.string().optional(),
    type: MemoryTypeSchema.optional(),
    tags: TagsSchema.optional(),
    who: z.string().optional(),
    since: TimestampSchema.optional(),
    until: TimestampSchema.optional(),
    pinned: z.boolean().optional(),
    importanceMin: z.number().min(0).max(1).optional(),
    /**
     * Results scoring under this are not returned (docs/api.md#scores). Without it every match the
     * ranking found is returned, each labelled strong or weak.
     */
    minScore: z.number().min(0).max(1).optional(),
    /** Replaces the query for the keyword leg only. */
    keywordQuery: z.string().trim().min(1).max(4000).optional(),
    /** Records the returned ids as surfaced in this session, so they can be rated later. */
    sessionKey: SessionKeySchema.optional(),
    sourceOnly: z.boolean().optional(),
    aggregate: z.boolean().optional(),
    aggregateBudget: z.enum(Object.keys(AGGREGATE_BUDGETS) as [AggregateBudget, ...AggregateBudget[]]).optional(),
    saveAggregate: z.boolean().optional(),
    agentId: AgentIdSchema.optional(),
  })
  .strict();
export type RecallRequest = z.output<typeof RecallRequestSchema>;

const MatchedBySchema = z.enum(["hybrid", "keyword", "vector"]);
export type MatchedBy = z.infer<typeof MatchedBySchema>;

/** A recall result: the memory's main fields, with its score and the leg that found it. */
const recallResult = {
  ...MemorySchema.pick({ id: true, content: true, type: true, tags: true, importance: true, pinned: true, who: true, project: true, createdAt: true }).shape,
  score: z.number(),
  matchedBy: MatchedBySchema,
  confidence: z.enum(["strong", "weak"] satisfies Confidence[]).describe("strong: a real match; weak: loosely similar, may be unrelated"),
};
const RecallResultSchema = answer({
  ...recallResult,
  entities: z.array(z.string()).optional().describe("The knowledge graph's entities the memory is about, by name, when it is about any"),
});
export type RecallResult = z.infer<typeof RecallResultSchema>;

const SupportingResultSchema = answer({
  ...recallResult,
  relation: z.string().describe('How it relates to a primary result, e.g. "previous-in-session"'),
  supports: z.string().describe("The id of the primary result it explains"),
});
export type SupportingResult = z.infer<typeof SupportingResultSchema>;

/** Saved aggregates have this type; they are never evidence for a later aggregate. */
export const AGGREGATE_TYPE = "aggregate";

/** Why an llm answer was not used: the llm client's failures, or an answer citing none of the evidence. */
const AGGREGATE_FALLBACK_REASONS = ["unreachable", "timeout", "refused", "bad_answer", "no_citations"] as const;
export type AggregateFallbackReason = (typeof AGGREGATE_FALLBACK_REASONS)[number];

/** One answer synthesized from bounded recall evidence (docs/api.md#aggregate). */
const AggregateAnswerSchema = answer({
  answer: z.string(),
  mode: z.enum(["llm", "extractive"]),
  citations: z.array(z.string()).describe("Ids of the memories the answer cites: only memories that were in the evidence"),
  saved: z.union([answer({ id: z.string() }), answer({ skipped: z.string() })]),
  model: z.string().optional().describe('In llm mode: which model wrote it ("ollama/llama3.2")'),
  fallback: answer({ reason: z.enum(AGGREGATE_FALLBACK_REASONS), message: z.string() })
    .optional()
    .describe("Present when an llm is configured but its answer was not used: why; the extractive answer is given instead"),
});
export type AggregateAnswer = z.infer<typeof AggregateAnswerSchema>;

export const RecallResponseSchema = answer({
  results: z.array(RecallResultSchema).describe("Primary matches, best first, each strong or weak (minScore applied)"),
  supporting: z.array(SupportingResultSchema).describe("Context around primary matches: `relation` of the primary match `supports`"),
  aggregate: AggregateAnswerSchema.optional().describe("With aggregate: one answer synthesized from the evidence (docs/api.md#aggregate)"),
  meta: answer({
    method: MatchedBySchema,
    tookMs: z.number(),
    candidates: z.number(),
    embedding: z.enum(["ok", "unavailable", "disabled", "unreadable"]),
    // Optional in the type only: a daemon before scores were calibrated does not send them.
    minScore: z.number().optional().describe("The minimum score applied: the request's, or 0 (every match the ranking found)"),
    belowMinScore: z.number().optional().describe("Candidates that ranked but scored under minScore (or had no evidence at all), so were not returned"),
    rerank: answer({ model: z.string(), status: z.enum(["applied", "failed"]), reason: z.string().optional() })
      .optional()
      .describe("With an llm configured: the model that reordered the results, and whether it did"),
  }),
});
export type RecallResponse = z.infer<typeof RecallResponseSchema>;

/** What a recall with body `B` answers: document chunks with `sourceOnly: true`, memories otherwise. */
export type RecallAnswerOf<B> = B extends { sourceOnly: true } ? SourceRecallResponse : RecallResponse;

/** Recall (docs/api.md#recall); an aggregate recall may wait for the configured llm (45 s, then it answers extractively). */
export const RECALL_API = {
  recall: operation(ROUTES.recall.recall, {
    input: "recall request",
    body: RecallRequestSchema,
    // With `sourceOnly`, document chunks in recall's envelope (docs/api.md#recall-with-sourceonly).
    response: z.union([RecallResponseSchema, SourceRecallResponseSchema]),
  }),
};
