// Dreaming's optional model step: with an `llm` configured, the model reads the agent's entities
// whose names look alike (a word, or a prefix of four letters or more, in common) and says which
// name one thing ("Postgres" and "PostgreSQL"). The pass applies what it proposes only when the
// owner says so (`graph.llmApply`, or `signet dream --apply`); otherwise it reports the proposals.
// The rules' merges come first; the model only sees what they left apart.
import { LlmError, type ChatModel } from "../llm/chat";

export interface Candidate {
  id: string;
  name: string;
  type: string;
  /** Its names' keys (extract.ts nameKey), its own first. */
  keys: string[];
  mentions: number;
}

export interface MergeProposal {
  from: Candidate;
  into: Candidate;
}

/** Names shown to the model at most, the most mentioned first. */
const MAX_SHOWN = 40;
const TIMEOUT_MS = 60_000;
const MIN_PREFIX = 4;

const SYSTEM = [
  "You find entities of a knowledge graph that are one real thing under different names:",
  "a nickname, an abbreviation, a misspelling, a short and a full name.",
  "Reply with one line per such pair, `a=b`, where a and b are the numbers of the two names and b is the one to keep.",
  "Leave out names that are merely related. Reply 0 when no two are the same thing.",
].join(" ");

/** Whether two entities' names could be one thing's: a word in common, or one a prefix of the other. */
function alike(a: Candidate, b: Candidate): boolean {
  for (const x of a.keys) {
    for (const y of b.keys) {
      const [short, long] = x.length <= y.length ? [x, y] : [y, x];
      if (short.length >= MIN_PREFIX && long.startsWith(short)) return true;
      const words = new Set(x.split(" ").filter((w) => w.length >= MIN_PREFIX));
      if (y.split(" ").some((w) => words.has(w))) return true;
    }
  }
  return false;
}

/** The entities the model should see: those alike to another, the most mentioned first. */
export function lookAlikes(entities: Candidate[]): Candidate[] {
  const shown = new Set<Candidate>();
  for (let i = 0; i < entities.length; i++) {
    for (let j = i + 1; j < entities.length; j++) {
      if (alike(entities[i]!, entities[j]!)) shown.add(entities[i]!).add(entities[j]!);
    }
  }
  return [...shown].sort((a, b) => b.mentions - a.mentions || a.name.localeCompare(b.name)).slice(0, MAX_SHOWN);
}

/** What the model proposes to merge among `shown`, or why it could not say. */
export async function proposeMerges(llm: ChatModel, shown: Candidate[]): Promise<{ proposals: MergeProposal[]; error?: string }> {
  const list = shown.map((e, i) => `[${i + 1}] ${e.name} (${e.type}, ${e.mentions} mentions)`).join("\n");
  let answer: string;
  try {
    answer = await llm.complete(
      [
        { role: "system", content: SYSTEM },
        { role: "user", content: `Names:\n${list}` },
      ],
      { timeoutMs: TIMEOUT_MS, maxTokens: 400 },
    );
  } catch (err) {
    return { proposals: [], error: err instanceof LlmError ? `${err.reason}: ${err.message}` : (err as Error).message };
  }
  const proposals: MergeProposal[] = [];
  const used = new Set<number>();
  for (const m of answer.matchAll(/\[?(\d+)\]?\s*=\s*\[?(\d+)\]?/g)) {
    const [a, b] = [Number(m[1]) - 1, Number(m[2]) - 1];
    // One merge per name a pass: a chain the model draws (1=2, 2=3) waits for the next pass.
    if (a === b || !shown[a] || !shown[b] || used.has(a) || used.has(b)) continue;
    used.add(a).add(b);
    proposals.push({ from: shown[a], into: shown[b] });
  }
  if (proposals.length === 0 && !/^\s*0\s*$/.test(answer)) return { proposals, error: "bad_answer: the llm named no pair of numbers" };
  return { proposals };
}
