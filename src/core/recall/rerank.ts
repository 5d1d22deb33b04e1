// A second opinion on the order when an `llm` is configured (docs/api.md#how-it-ranks): the model
// reads the question and the best results and names those that answer it, best first, as a
// cross-encoder would. It only reorders what already passed the minimum score; the scores stay the
// same set, read in order, so a result is never dropped or let in by the model. Offline (no `llm`)
// nothing here runs. The call goes through the one llm client (src/core/llm/chat.ts).
import { LlmError, type ChatModel } from "../llm/chat";

/** The results the model is shown at most. */
const RERANK_DEPTH = 30;
/**
 * How long a recall waits for the model before answering in its own order. With the query's
 * embedding (bounded at 2 s) a recall still answers well inside the 10 s the CLI and signet-mcp
 * wait by default (daemon.requestTimeoutMs), so a slow model costs its order, never the answer.
 */
const RERANK_TIMEOUT_MS = 5_000;
/** A memory's text in the prompt, at most (the order needs the gist, not the whole of a long one). */
const PROMPT_CHARS = 500;

export interface RerankMeta {
  /** "ollama/llama3.2": the model asked. */
  model: string;
  /**
   * `applied`: the order is the model's (with fewer than two results there is nothing to reorder,
   * and the model is not asked); `failed`: the model did not answer usefully, the order is the fused one.
   */
  status: "applied" | "failed";
  /** Why it failed (an LlmError's reason and message). */
  reason?: string;
}

const SYSTEM = [
  "You rank stored memories by how well each one answers a question.",
  "Reply with the numbers of the memories that help answer it, most useful first, separated by commas.",
  "Leave out those that do not help. Reply with the numbers only, or 0 when none helps.",
].join(" ");

/**
 * `items` (best first) in the model's order: those it names, in its order, then the rest in theirs.
 * Only the first RERANK_DEPTH are shown; the rest keep their place after them.
 */
export async function rerank<T>(llm: ChatModel, query: string, items: T[], text: (item: T) => string): Promise<{ items: T[]; meta: RerankMeta }> {
  const shown = items.slice(0, RERANK_DEPTH);
  if (shown.length < 2) return { items, meta: { model: llm.label, status: "applied" } };
  const list = shown.map((item, i) => `[${i + 1}] ${text(item).replace(/\s+/g, " ").slice(0, PROMPT_CHARS)}`).join("\n");
  let answer: string;
  try {
    answer = await llm.complete(
      [
        { role: "system", content: SYSTEM },
        { role: "user", content: `Question: ${query}\n\nMemories:\n${list}` },
      ],
      { timeoutMs: RERANK_TIMEOUT_MS, maxTokens: 200 },
    );
  } catch (err) {
    const reason = err instanceof LlmError ? `${err.reason}: ${err.message}` : (err as Error).message;
    return { items, meta: { model: llm.label, status: "failed", reason } };
  }
  const picked: number[] = [];
  for (const m of answer.matchAll(/\d+/g)) {
    const i = Number(m[0]) - 1;
    if (i >= 0 && i < shown.length && !picked.includes(i)) picked.push(i);
  }
  if (picked.length === 0 && !/^\s*0\s*$/.test(answer)) {
    return { items, meta: { model: llm.label, status: "failed", reason: "bad_answer: the llm named no memory by its number" } };
  }
  const rest = shown.map((_, i) => i).filter((i) => !picked.includes(i));
  return { items: [...[...picked, ...rest].map((i) => shown[i]!), ...items.slice(RERANK_DEPTH)], meta: { model: llm.label, status: "applied" } };
}
