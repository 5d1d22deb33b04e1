// The recall contract (docs/api.md#recall), shared by POST /api/memory/recall, the CLI and the MCP tools.
import { z } from "zod";
import { AgentIdSchema } from "./agent";
import { MemoryTypeSchema, TagsSchema, TimestampSchema } from "./memory";

const RECALL_DEFAULT_LIMIT = 10;
const RECALL_MAX_LIMIT = 100;
/**
 * A result scoring at least this is a strong match, under it a weak one (docs/api.md#scores):
 * against 2,000 memories of the synthetic corpus (scripts/lib/content.ts) no question of
 * scripts/lib/no-answer.ts scores above 0.14, while 199 of 200 questions about the corpus score
 * more than 0.2 (median 0.78). Document source search cuts here by default.
 */
export const RECALL_STRONG_SCORE = 0.2;

/** How sure a result is: strong at RECALL_STRONG_SCORE or more, weak under it. */
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
    sessionKey: z.string().trim().min(1).max(500).optional(),
    sourceOnly: z.boolean().optional(),
    aggregate: z.boolean().optional(),
    aggregateBudget: z.enum(Object.keys(AGGREGATE_BUDGETS) as [AggregateBudget, ...AggregateBudget[]]).optional(),
    saveAggregate: z.boolean().optional(),
    agentId: AgentIdSchema.optional(),
  })
  .strict();
export type RecallRequest = z.output<typeof RecallRequestSchema>;

export type MatchedBy = "hybrid" | "keyword" | "vector";

export interface RecallResult {
  id: string;
  content: string;
  score: number;
  type: string;
  tags: string[];
  importance: number;
  pinned: boolean;
  who: string | null;
  project: string | null;
  createdAt: string;
  matchedBy: MatchedBy;
  /** Strong at RECALL_STRONG_SCORE or more, weak under it: a weak match may be unrelated. */
  confidence: Confidence;
}

export interface SupportingResult extends RecallResult {
  /** How it relates to a primary result, e.g. "previous-in-session". */
  relation: string;
  /** The id of the primary result it explains. */
  supports: string;
}

/** Saved aggregates have this type; they are never evidence for a later aggregate. */
export const AGGREGATE_TYPE = "aggregate";

/** Why an llm answer was not used: the llm client's failures, or an answer citing none of the evidence. */
export const AGGREGATE_FALLBACK_REASONS = ["unreachable", "timeout", "refused", "bad_answer", "no_citations"] as const;
export type AggregateFallbackReason = (typeof AGGREGATE_FALLBACK_REASONS)[number];

/** One answer synthesized from bounded recall evidence (docs/api.md#aggregate). */
export interface AggregateAnswer {
  answer: string;
  mode: "llm" | "extractive";
  /** The ids of the memories the answer cites: only memories that were in the evidence. */
  citations: string[];
  saved: { id: string } | { skipped: string };
  /** In llm mode: which model wrote it ("ollama/llama3.2"). */
  model?: string;
  /** Present when an llm is configured but its answer was not used: why, and the extractive answer is given instead. */
  fallback?: { reason: AggregateFallbackReason; message: string };
}

export interface RecallResponse {
  results: RecallResult[];
  supporting: SupportingResult[];
  /** With `aggregate: true` only. */
  aggregate?: AggregateAnswer;
  meta: {
    method: MatchedBy;
    tookMs: number;
    candidates: number;
    embedding: "ok" | "unavailable" | "disabled";
    // Optional in the type only: a daemon before scores were calibrated does not send them.
    /** The minimum score applied: the request's, or 0 (every match the ranking found). */
    minScore?: number;
    /** Candidates that ranked but scored under `minScore` (or had no evidence at all), so were not returned. */
    belowMinScore?: number;
    /** With an `llm` configured: the model that reordered the results, and whether it did. */
    rerank?: { model: string; status: "applied" | "failed"; reason?: string };
  };
}
