// What a deduped remember leaves out: a repeat never changes the stored memory (docs/api.md#dedupe),
// so the answer names every field sent with another value than the memory holds.
import type { Memory, RememberRequest } from "../../contracts/memory";

type Compared = "type" | "importance" | "tags" | "pinned" | "who" | "sessionKey" | "hints" | "transcript" | "structured" | "reviewAfter" | "createdAt";

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Whether the sent value differs from the stored one. `content` and `project` are what made it a repeat. */
const DIFFERS: { [K in Compared]: (stored: Memory, sent: NonNullable<RememberRequest[K]>) => boolean } = {
  type: (m, v) => m.type !== v,
  importance: (m, v) => m.importance !== v,
  // A tag set: the order it was sent in means nothing.
  tags: (m, v) => m.tags.length !== v.length || v.some((t) => !m.tags.includes(t)),
  pinned: (m, v) => m.pinned !== v,
  who: (m, v) => m.who !== v,
  sessionKey: (m, v) => m.sessionKey !== v,
  hints: (m, v) => !sameJson(m.hints, v),
  transcript: (m, v) => m.transcript !== v,
  structured: (m, v) => !sameJson(m.structured, v),
  reviewAfter: (m, v) => m.reviewAfter !== v,
  createdAt: (m, v) => m.createdAt !== v,
};

/** The fields of `sent` that the stored memory holds otherwise, in a fixed order. */
export function ignoredOnDedupe(stored: Memory, sent: RememberRequest): string[] {
  return (Object.keys(DIFFERS) as Compared[]).filter((field) => sent[field] !== undefined && DIFFERS[field](stored, sent[field] as never));
}
