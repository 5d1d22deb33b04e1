// Aggregate recall (docs/api.md#aggregate): one answer synthesized from bounded recall evidence by
// the configured llm, or, with none or when its answer cannot be used, the extractive summary
// (extractive.ts) with the reason; then saved as a memory of type `aggregate` when the caller may
// remember, and may write now (a save is a write: it spends one of an API token's rate-limited
// changes). Aggregates are never evidence: the recall under it leaves them out.
import {
  AGGREGATE_BUDGETS,
  AGGREGATE_TYPE,
  type AggregateAnswer,
  type AggregateFallbackReason,
  type RecallRequest,
  type RecallResponse,
} from "../../contracts/recall";
import { RememberRequestSchema, type RememberRequest, type RememberResponse } from "../../contracts/memory";
import { parseInput } from "../../contracts/parse";
import { LlmError, type ChatMessage, type ChatModel } from "../llm/chat";
import type { Caller } from "../memory/service";
import { boundedEvidence, type Evidence } from "./evidence";
import { extractiveAnswer } from "./extractive";
import type { RecallCallOptions } from "./service";

/** What the caller may do, from its credentials (docs/security.md#rate-limits): `readonly` tokens may not remember. */
export interface AggregatePermissions {
  canRemember: boolean;
  /**
   * Spends one of the caller's writes on the save, just before it: null when it may go ahead, or
   * why it may not (an API token past its rate limit). Absent: the caller's writes are not limited.
   */
  spendWrite?(): Promise<string | null>;
}

export interface AggregateDeps {
  /** The ranked memories (RecallService.recall), without those of `excludeType`. */
  recall(caller: Caller, req: RecallRequest, options: RecallCallOptions): Promise<RecallResponse>;
  /** The configured llm, or undefined when none is. */
  chat: ChatModel | undefined;
  /** Stores a memory (committed before it resolves). */
  remember(caller: Caller, req: RememberRequest): Promise<RememberResponse>;
  /** How long the llm may take; under the client's 60 s wait (src/client/client.ts), so a fallback still arrives. */
  llmTimeoutMs?: number;
}

const LLM_TIMEOUT_MS = 45_000;
/** An upper bound on the llm's answer, for providers that take one. */
const LLM_MAX_TOKENS = 1024;
/** A citation group as the llm is asked to write it: `[M1]`, `[M2, M5]`; ids themselves are accepted too. */
const CITATION_GROUP = /\[((?:\s*(?:M\d+|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\s*,?)+)\]/gi;

export class AggregateRecall {
  constructor(private readonly deps: AggregateDeps) {}

  async recall(caller: Caller, req: RecallRequest, permissions: AggregatePermissions): Promise<RecallResponse> {
    const budget = AGGREGATE_BUDGETS[req.aggregateBudget ?? "small"];
    const ranked = await this.deps.recall(caller, { ...req, limit: Math.max(req.limit, budget.memories) }, { excludeType: AGGREGATE_TYPE, rerank: false });
    // A weak match may be unrelated: an answer rests on strong ones only.
    const evidence = boundedEvidence(ranked.results.filter((r) => r.confidence === "strong"), budget);
    const answer = await this.synthesize(req.query, evidence);
    const saved = await this.save(caller, req, evidence, answer, permissions);
    const results = ranked.results.slice(0, req.limit);
    const shown = new Set(results.map((r) => r.id));
    return {
      ...ranked,
      results,
      supporting: ranked.supporting.filter((s) => shown.has(s.supports)),
      aggregate: { ...answer, saved },
    };
  }

  private async synthesize(query: string, evidence: Evidence[]): Promise<Omit<AggregateAnswer, "saved">> {
    const chat = this.deps.chat;
    if (!chat || evidence.length === 0) return { ...extractiveAnswer(evidence), mode: "extractive" };
    try {
      const text = await chat.complete(promptFor(query, evidence), {
        timeoutMs: this.deps.llmTimeoutMs ?? LLM_TIMEOUT_MS,
        maxTokens: LLM_MAX_TOKENS,
      });
      const cited = withCitations(text, evidence);
      if (cited.citations.length === 0) {
        return fallback(evidence, "no_citations", `the llm's answer cited none of the ${evidence.length} memories given as evidence`);
      }
      return { ...cited, mode: "llm", model: chat.label };
    } catch (err) {
      if (err instanceof LlmError) return fallback(evidence, err.reason, err.message);
      throw err;
    }
  }

  private async save(
    caller: Caller,
    req: RecallRequest,
    evidence: Evidence[],
    answer: Omit<AggregateAnswer, "saved">,
    permissions: AggregatePermissions,
  ): Promise<AggregateAnswer["saved"]> {
    if (req.saveAggregate === false) return { skipped: "saveAggregate is false" };
    if (!permissions.canRemember) return { skipped: "this caller may not remember, so the aggregate was not saved" };
    if (evidence.length === 0) return { skipped: "no memory matched, so there was nothing to aggregate" };
    const memory = aggregateMemory(req, answer);
    if ("invalid" in memory) return { skipped: `${memory.invalid}, so the aggregate was not saved` };
    // Last of the checks: a save that does not happen spends nothing.
    const refused = (await permissions.spendWrite?.()) ?? null;
    if (refused !== null) return { skipped: refused };
    try {
      const stored = await this.deps.remember(caller, memory.request);
      return { id: stored.id };
    } catch (err) {
      // The answer stands; only keeping it failed.
      return { skipped: `saving failed: ${(err as Error).message}` };
    }
  }
}

/**
 * The memory an answer is saved as, checked as every remembered memory is (an llm's answer may be
 * longer than a memory holds): the request, or why it cannot be one.
 */
function aggregateMemory(req: RecallRequest, answer: Omit<AggregateAnswer, "saved">): { request: RememberRequest } | { invalid: string } {
  const request = {
    content: answer.answer,
    type: AGGREGATE_TYPE,
    tags: [AGGREGATE_TYPE],
    // The question is what a later recall will look for.
    hints: [req.query.slice(0, 1000)],
    ...(req.project !== undefined ? { project: req.project } : {}),
    structured: { query: req.query.slice(0, 1000), mode: answer.mode, citations: answer.citations },
  };
  try {
    return { request: parseInput(RememberRequestSchema, request, "aggregate memory") };
  } catch (err) {
    return { invalid: (err as Error).message };
  }
}

function fallback(evidence: Evidence[], reason: AggregateFallbackReason, message: string): Omit<AggregateAnswer, "saved"> {
  return { ...extractiveAnswer(evidence), mode: "extractive", fallback: { reason, message } };
}

function promptFor(query: string, evidence: Evidence[]): ChatMessage[] {
  const system = [
    "You answer a question using only the numbered memories given as evidence.",
    "After each sentence, cite the memories it rests on by their labels in brackets, like [M1] or [M2, M4].",
    "Cite only labels that appear in the evidence. Say plainly when the evidence does not answer the question.",
    "Be brief: a few sentences, no preamble.",
  ].join(" ");
  const lines = evidence.map((e, i) => `[M${i + 1}] (${e.createdAt.slice(0, 10)}, ${e.type}) ${e.content}`);
  return [
    { role: "system", content: system },
    { role: "user", content: `Question: ${query}\n\nEvidence:\n${lines.join("\n")}` },
  ];
}

/**
 * The llm's answer with its citation labels replaced by memory ids. A label or id that names no
 * evidence is dropped (an llm may invent one); a group left empty goes with it.
 */
export function withCitations(text: string, evidence: Evidence[]): { answer: string; citations: string[] } {
  const ids = new Set(evidence.map((e) => e.id));
  const cited: string[] = [];
  const answer = text
    .replace(CITATION_GROUP, (_group, inner: string) => {
      const kept: string[] = [];
      for (const item of inner.split(",").map((s) => s.trim())) {
        const m = /^M(\d+)$/i.exec(item);
        const id = m ? evidence[Number(m[1]) - 1]?.id : ids.has(item.toLowerCase()) ? item.toLowerCase() : undefined;
        if (id && !kept.includes(id)) kept.push(id);
      }
      for (const id of kept) if (!cited.includes(id)) cited.push(id);
      return kept.length > 0 ? `[${kept.join(", ")}]` : "";
    })
    .replace(/[ \t]+([.,;:!?])/g, "$1")
    .trim();
  return { answer, citations: cited };
}
