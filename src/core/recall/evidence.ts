// Aggregate recall's evidence (docs/api.md#aggregate): the best-ranked memories, bounded by the
// budget's count and characters, so an answer is built from a known, small amount of text.
import type { RecallResult } from "../../contracts/recall";

export interface Evidence {
  id: string;
  /** The memory's content, clipped when it alone would overrun what is left of the budget. */
  content: string;
  type: string;
  tags: string[];
  createdAt: string;
}

/** A memory clipped to less room than this is too cut to say anything: the evidence ends instead. */
const MIN_CLIPPED_CHARS = 80;

/** `results` (best first) taken while the budget lasts; the one that overruns it is clipped or left out. */
export function boundedEvidence(results: RecallResult[], budget: { memories: number; chars: number }): Evidence[] {
  const out: Evidence[] = [];
  let room = budget.chars;
  for (const r of results) {
    if (out.length === budget.memories || room <= 0) break;
    const fits = r.content.length <= room;
    if (!fits && room < MIN_CLIPPED_CHARS && out.length > 0) break;
    const content = fits ? r.content : `${r.content.slice(0, room - 1).trimEnd()}…`;
    out.push({ id: r.id, content, type: r.type, tags: r.tags, createdAt: r.createdAt });
    room -= content.length;
  }
  return out;
}
