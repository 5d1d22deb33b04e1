// Dreaming's optional model step: with an `llm` configured, the model reads the agent's entities
// whose names look alike (a word, or a prefix of four letters or more, in common) and says which
// name one thing ("Postgres" and "PostgreSQL"), and reads the slots of entities with several and
// says which hold one attribute written two ways (`host` and `is`), so that the newer value
// supersedes the older. The pass applies what it proposes only when the owner says so
// (`graph.llmApply`, or `signet dream --apply`); otherwise it reports the proposals. The rules'
// merges come first; the model only sees what they left apart.
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

async function ask(llm: ChatModel, system: string, user: string): Promise<{ answer: string } | { error: string }> {
  try {
    const answer = await llm.complete(
      [
        { role: "system", content: system },
        { role: "user", content: user },
      ],
      { timeoutMs: TIMEOUT_MS, maxTokens: 400 },
    );
    return { answer };
  } catch (err) {
    return { error: err instanceof LlmError ? `${err.reason}: ${err.message}` : (err as Error).message };
  }
}

/** The `a=b` pairs of an answer, as indexes below `n`; each index in one pair at most (a chain waits for the next pass). */
function pairsIn(answer: string, n: number): [number, number][] {
  const pairs: [number, number][] = [];
  const used = new Set<number>();
  for (const m of answer.matchAll(/\[?(\d+)\]?\s*=\s*\[?(\d+)\]?/g)) {
    const [a, b] = [Number(m[1]) - 1, Number(m[2]) - 1];
    if (a === b || a < 0 || b < 0 || a >= n || b >= n || used.has(a) || used.has(b)) continue;
    used.add(a).add(b);
    pairs.push([a, b]);
  }
  return pairs;
}

/** What the model proposes to merge among `shown`, or why it could not say. */
export async function proposeMerges(llm: ChatModel, shown: Candidate[]): Promise<{ proposals: MergeProposal[]; error?: string }> {
  const list = shown.map((e, i) => `[${i + 1}] ${e.name} (${e.type}, ${e.mentions} mentions)`).join("\n");
  const asked = await ask(llm, SYSTEM, `Names:\n${list}`);
  if ("error" in asked) return { proposals: [], error: asked.error };
  const proposals = pairsIn(asked.answer, shown.length).map(([a, b]) => ({ from: shown[a]!, into: shown[b]! }));
  if (proposals.length === 0 && !/^\s*0\s*$/.test(asked.answer)) return { proposals, error: "bad_answer: the llm named no pair of numbers" };
  return { proposals };
}

/** One slot of an entity, with its current value: what the model compares for the same attribute. */
export interface SlotCandidate {
  entityId: string;
  entityName: string;
  aspect: string;
  slot: string;
  value: string;
}

export interface SlotProposal {
  from: SlotCandidate;
  into: SlotCandidate;
}

const SLOTS_SYSTEM = [
  "Each line is an attribute of an entity of a knowledge graph, with its current value.",
  "Find the lines that are the same attribute of the same entity written two ways (a `host` and an `is`, a `db` and a `database`).",
  "Reply with one line per such pair, `a=b`, where a and b are the line numbers and b is the one to keep.",
  "Leave out different attributes. Reply 0 when none are the same.",
].join(" ");

/** What the model proposes to hold as one slot among `shown` (pairs of one entity's slots only). */
export async function proposeSameSlots(llm: ChatModel, shown: SlotCandidate[]): Promise<{ proposals: SlotProposal[]; error?: string }> {
  const list = shown.map((s, i) => `[${i + 1}] ${s.entityName}: ${s.aspect}.${s.slot} = ${s.value.slice(0, 120)}`).join("\n");
  const asked = await ask(llm, SLOTS_SYSTEM, `Attributes:\n${list}`);
  if ("error" in asked) return { proposals: [], error: asked.error };
  const proposals: SlotProposal[] = [];
  for (const [a, b] of pairsIn(asked.answer, shown.length)) {
    if (shown[a]!.entityId === shown[b]!.entityId) proposals.push({ from: shown[a]!, into: shown[b]! });
  }
  if (proposals.length === 0 && !/^\s*0\s*$/.test(asked.answer)) return { proposals, error: "bad_answer: the llm named no pair of one entity's attributes" };
  return { proposals };
}
