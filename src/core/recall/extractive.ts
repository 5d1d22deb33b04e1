// The extractive aggregate (docs/api.md#aggregate): what aggregate recall answers when no llm is
// configured or the llm's answer cannot be used. Nothing is written that the memories do not say:
// their sentences, deduplicated (a sentence several memories say once, citing them all), grouped by
// topic (a memory's tags; untagged ones by type), each followed by the ids of the memories it came from.
import type { Evidence } from "./evidence";

export const EXTRACTIVE_LABEL = "Extractive summary (sentences quoted from the memories, not synthesized):";
/** Word sets this similar (Jaccard) say the same thing. */
const NEAR_DUPLICATE = 0.8;
/** Shorter fragments ("OK.", a stray bullet) carry nothing on their own. */
const MIN_SENTENCE_CHARS = 3;

interface Sentence {
  text: string;
  words: Set<string>;
  citations: string[];
  topic: string;
}

/** A memory's sentences: its lines, cut after sentence-ending punctuation, list markers dropped. */
export function sentencesOf(content: string): string[] {
  return content
    .split(/\n+/)
    .flatMap((line) => line.split(/(?<=[.!?])\s+/))
    .map((s) => s.replace(/^\s*(?:[-*•]|#+|\d+[.)])\s+/, "").trim())
    .filter((s) => s.length >= MIN_SENTENCE_CHARS);
}

function wordsOf(sentence: string): Set<string> {
  return new Set(sentence.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
}

function jaccard(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let shared = 0;
  for (const w of a) if (b.has(w)) shared++;
  return shared / (a.size + b.size - shared);
}

/**
 * Each memory's topic: of its tags, the one most evidence shares (so related memories meet under one
 * heading), the first on a tie; a memory without tags goes under its type.
 */
function topics(evidence: Evidence[]): Map<string, string> {
  const tagCount = new Map<string, number>();
  for (const e of evidence) for (const t of new Set(e.tags)) tagCount.set(t, (tagCount.get(t) ?? 0) + 1);
  return new Map(
    evidence.map((e) => {
      let best: string | undefined;
      for (const t of e.tags) if (best === undefined || tagCount.get(t)! > tagCount.get(best)!) best = t;
      return [e.id, best ?? e.type];
    }),
  );
}

/** The extractive answer over `evidence` (best first) and the ids it cites. */
export function extractiveAnswer(evidence: Evidence[]): { answer: string; citations: string[] } {
  if (evidence.length === 0) return { answer: `${EXTRACTIVE_LABEL}\nNo stored memory matches the question.`, citations: [] };
  const topicOf = topics(evidence);
  const sentences: Sentence[] = [];
  for (const e of evidence) {
    for (const text of sentencesOf(e.content)) {
      const words = wordsOf(text);
      const same = sentences.find((s) => jaccard(s.words, words) >= NEAR_DUPLICATE);
      if (same) {
        if (!same.citations.includes(e.id)) same.citations.push(e.id);
        continue;
      }
      sentences.push({ text, words, citations: [e.id], topic: topicOf.get(e.id)! });
    }
  }
  // Topics in the order of their best-ranked memory; sentences in evidence order within each.
  const byTopic = new Map<string, Sentence[]>();
  for (const s of sentences) byTopic.set(s.topic, [...(byTopic.get(s.topic) ?? []), s]);
  const lines = [EXTRACTIVE_LABEL];
  for (const [topic, group] of byTopic) {
    lines.push("", `${topic}:`, ...group.map((s) => `- ${s.text} [${s.citations.join(", ")}]`));
  }
  const citations = [...new Set(sentences.flatMap((s) => s.citations))];
  return { answer: lines.join("\n"), citations };
}
