// Session-end extraction (docs/api.md#session-end): the configured llm reads the end of a transcript
// and names the durable facts worth keeping, plus a short summary of the session (what a
// sub-agent's session-start shows of its parent).
import type { ChatModel } from "../llm/chat";

/** The end of a transcript is where its decisions are; older text is left out of the prompt. */
const TRANSCRIPT_TAIL_CHARS = 24_000;
const MAX_EXTRACTED = 20;
const MAX_MEMORY_CHARS = 1000;
const MAX_SUMMARY_CHARS = 1200;
/** Each memory's hints: a few questions or phrasings it answers, kept short (the memory API's limits are wider). */
const MAX_HINTS = 5;
const MAX_HINT_CHARS = 200;
const EXTRACTION_TIMEOUT_MS = 120_000;

const TYPES = new Set(["fact", "preference", "decision", "rule", "learning", "issue", "event"]);

export interface Extracted {
  summary: string | null;
  memories: { content: string; type: string; importance: number; hints: string[] }[];
}

const SYSTEM = `You read a coding session's transcript and keep what will still matter in later sessions.
Answer with one JSON object and nothing else:
{"summary": "<two or three sentences: what the session did and where it stopped>",
 "memories": [{"content": "<one self-contained durable fact>", "type": "fact|preference|decision|rule|learning|issue|event", "importance": 0.0-1.0,
   "hints": ["<a question or request a developer might later make that this memory answers, in other words than the memory's>"]}]}
Keep only durable knowledge: the user's preferences, decisions and their reasons, rules, facts about the project, lessons learned.
Give each memory up to ${MAX_HINTS} hints: how someone would ask for it without knowing its words (for "Use pnpm, never npm": "how do I add a package", "install a dependency").
Leave out greetings, transient steps, secrets and credentials. At most ${MAX_EXTRACTED} memories; an empty list is fine.`;

export async function extractFromTranscript(model: ChatModel, transcript: string, signal?: AbortSignal): Promise<Extracted> {
  const tail = transcript.length > TRANSCRIPT_TAIL_CHARS ? transcript.slice(-TRANSCRIPT_TAIL_CHARS) : transcript;
  const answer = await model.complete(
    [
      { role: "system", content: SYSTEM },
      { role: "user", content: `Transcript:\n\n${tail}` },
    ],
    { timeoutMs: EXTRACTION_TIMEOUT_MS, signal, maxTokens: 2000 },
  );
  const read = outermostObject(answer);
  // A failure, not "nothing worth keeping": the answer is described, never quoted (it may hold what the transcript did).
  if ("unreadable" in read) throw new Error(`the answer of ${model.label} could not be read: ${read.unreadable}`);
  return extracted(read.object);
}

/** The model's answer, leniently: the outermost JSON object in it, invalid entries dropped; nothing when it holds none. */
export function parseExtraction(answer: string): Extracted {
  const read = outermostObject(answer);
  return "unreadable" in read ? { summary: null, memories: [] } : extracted(read.object);
}

/** The JSON between the answer's first `{` and its last `}`, or why there is none (its length, never its text). */
function outermostObject(answer: string): { object: unknown } | { unreadable: string } {
  const start = answer.indexOf("{");
  const end = answer.lastIndexOf("}");
  const size = `${answer.length} characters`;
  if (start === -1) return { unreadable: `it holds no JSON object (${size})` };
  if (end <= start) return { unreadable: `its JSON object never ends: the answer was cut short or is not JSON (${size})` };
  try {
    return { object: JSON.parse(answer.slice(start, end + 1)) };
  } catch {
    return { unreadable: `its JSON object is cut short or invalid (${size})` };
  }
}

/** A parsed answer's summary and memories, those that are not what was asked for dropped. */
function extracted(parsed: unknown): Extracted {
  const obj = (parsed ?? {}) as { summary?: unknown; memories?: unknown };
  const summary = typeof obj.summary === "string" && obj.summary.trim() ? obj.summary.trim().slice(0, MAX_SUMMARY_CHARS) : null;
  const memories = (Array.isArray(obj.memories) ? obj.memories : [])
    .flatMap((m: unknown) => {
      const e = (m ?? {}) as { content?: unknown; type?: unknown; importance?: unknown; hints?: unknown };
      if (typeof e.content !== "string" || !e.content.trim()) return [];
      const type = typeof e.type === "string" && TYPES.has(e.type.toLowerCase()) ? e.type.toLowerCase() : "fact";
      const importance = typeof e.importance === "number" && e.importance >= 0 && e.importance <= 1 ? e.importance : 0.5;
      const hints = (Array.isArray(e.hints) ? e.hints : [])
        .flatMap((h: unknown) => (typeof h === "string" && h.trim() ? [h.trim().slice(0, MAX_HINT_CHARS)] : []))
        .slice(0, MAX_HINTS);
      return [{ content: e.content.trim().slice(0, MAX_MEMORY_CHARS), type, importance, hints }];
    })
    .slice(0, MAX_EXTRACTED);
  return { summary, memories };
}
