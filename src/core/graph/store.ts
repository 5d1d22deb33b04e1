// What the knowledge graph needs of a store, and the rows both stores return: the SQLite one
// (sqlite-store.ts) and the PostgreSQL one (postgres-store.ts), over the tables of
// migrations/013_graph.sql: what extraction writes for a memory, the gazetteer of the names each
// agent's graph knows, what Dreaming reads and writes, and the reads the API answers from.
import type { Extraction } from "./extract";

/** A memory as extraction reads it. */
export interface SourceMemory {
  seq: number;
  agent_id: string;
  content: string;
  /** A memory of type `aggregate` (a saved aggregate answer, which quotes other memories) is never read: it is not evidence. */
  type: string;
  project: string | null;
  structured: string | null;
  created_at: string;
  version: number;
  deleted_at: string | null;
}

export interface EntityRow {
  id: string;
  name: string;
  type: string;
  pinned: number;
  mentions: number;
}

export interface ClaimRow {
  id: number;
  entity_id: string;
  aspect: string;
  slot: string;
  value: string;
  confidence: number;
  status: "active" | "superseded";
  valid_from: string;
  valid_until: string | null;
  superseded_by: number | null;
  memory_id: string;
  recorded_at: string;
}

export interface RelationRow {
  id: string;
  name: string;
  type: string;
  relation: string;
  strength: number;
  evidence: number;
}

export interface MentionedMemoryRow {
  id: string;
  content: string;
  created_at: string;
}

export interface DueReview {
  seq: number;
  id: string;
  content: string;
  type: string;
  reason: string;
}

/** Reads one memory (extract.ts), given whether a key is a name the agent's graph knows. */
export type ReadMemory = (memory: SourceMemory, known: (key: string) => boolean) => Extraction;

/** What a batch of extraction did: the agent of each memory it read, and of each forgotten one it took out. */
export interface ExtractedBatch {
  extracted: string[];
  removed: string[];
}

/** An agent's live graph as a pass reads it. */
export interface PassGraph {
  entities: { id: string; name: string; type: string; claims: number }[];
  aliases: { entity_id: string; key: string; alias: string }[];
  mentions: { entity_id: string; memory_seq: number }[];
}

export interface PassClaim {
  id: number;
  entity_id: string;
  /** The project of the memory the claim comes from (null: a global memory): a slot is per project. */
  project: string | null;
  aspect: string;
  slot: string;
  value: string;
  status: "active" | "superseded";
  valid_from: string;
  valid_until: string | null;
  superseded_by: number | null;
}

/** How importance decays (dream.ts planDecays), and whether this is the day's whole scan or only the decayed memories. */
export interface DecayRule {
  now: string;
  scan: boolean;
  /** Days unused before decay starts, the half-life after them, the floor (a share of the base) and the smallest change written. */
  afterDays: number;
  halfLifeDays: number;
  floor: number;
  step: number;
}

export interface Decay {
  seq: number;
  id: string;
  version: number;
  /** The importance it decays from. */
  base: number;
  from: number;
  to: number;
}

export interface SlotName {
  aspect: string;
  slot: string;
}

/** What a pass writes, in this order (dream.ts plans it). */
export interface PassWrites {
  /** `from` merged into `into`, which takes `type`; in order, so a chain lands on its last. */
  merges: { from: string; into: string; type: string }[];
  renames: { entity: string; from: SlotName; into: SlotName }[];
  /** Entities given another of their names; `drop`, the key of the name they had, which the graph no longer knows them by. */
  names: { entity: string; name: string; drop: string | null }[];
  claims: { id: number; status: "active" | "superseded"; validUntil: string | null; supersededBy: number | null }[];
  /** Co-occurrences, `a` < `b`. */
  relations: { a: string; b: string; strength: number; evidence: number }[];
  staleRelations: [string, string][];
  reviews: { seq: number; dueAt: string; reason: string }[];
  decays: { seq: number; version: number; base: number; to: number }[];
  /** Whether the decays come from the day's whole scan (recorded, so the next is a day later). */
  decayScanned: boolean;
  prunes: string[];
}

/** A pass's row in graph_dreams. */
export interface PassRecord {
  trigger: string;
  startedAt: string;
  finishedAt: string;
  /** The counts of its actions, as JSON. */
  summary: string;
}

/** The knowledge graph's reads and writes, in whichever store the daemon runs on. */
export interface GraphStore {
  // ---- extraction ----

  /**
   * Memories after `after` (by seq) extraction has not read: new, changed, or forgotten (or aggregates,
   * which are never evidence) with what the graph still holds from them.
   */
  unextracted(after: number, limit: number): Promise<{ seq: number }[]>;
  /**
   * On a shared store: memories extraction has not read that were last written before
   * `writtenBefore`, work the daemon that took them left (it died, or lost the store), for another to
   * take over. Absent on a lone store.
   */
  leftUnextracted?(writtenBefore: string): Promise<number[]>;
  /**
   * On a shared store: hears the passes other daemons apply, and drops this daemon's cached names of
   * their agents (a pass merges and prunes entities); returns how to stop hearing them.
   */
  follow?(): Promise<() => Promise<void>>;
  /**
   * One batch of extraction, in one transaction: a memory forgotten (or gone) has what the graph
   * holds from it taken out (its mentions, claims and queued review), and so has an aggregate (its
   * mentions and claims: it is not evidence, and is not marked read); one whose version extraction
   * already read is left; each other one is read by `read`, in the order of `seqs`, and what it found
   * replaces what the graph held from it, each name resolved to the agent's entity of that name or a new one.
   */
  extract(seqs: number[], now: string, read: ReadMemory): Promise<ExtractedBatch>;
  /** The agent's gazetteer: each known name's key → its live entity. */
  gazetteer(agentId: string): Promise<ReadonlyMap<string, string>>;
  /** How many of the agent's memories extraction has read. */
  extractedCount(agentId: string): Promise<number>;

  // ---- recall and feedback ----

  /** Those of `seqs` that mention any of the entities `entityIds`. */
  mentioning(entityIds: string[], seqs: number[]): Promise<number[]>;
  /** Each of `seqs`' entities (live ones, by id and name), projects last. */
  mentionsOf(seqs: number[]): Promise<{ memory_seq: number; entity_id: string; name: string }[]>;
  /**
   * For each of `seqs` holding a superseded claim, the memories of its own project (or, for a global
   * memory, global ones) whose newer claims superseded it.
   */
  supersededBy(seqs: number[]): Promise<Map<number, Set<number>>>;
  /** The seqs of the agent's memories among `ids`. */
  seqsOf(agentId: string, ids: string[]): Promise<Map<string, number>>;
  /**
   * A move of memory `seq`'s feedback signal moves the weight of each aspect on its entity paths: for
   * each entity it mentions, the aspects of the claims it makes about it, or the entity's `mentions`
   * aspect when it makes none. Weights move by e^(0.2·move), within [0.25, 4]. In one transaction;
   * how many of the moves (of `agentId`'s memories) moved any weight.
   */
  rateAspects(agentId: string, moves: { seq: number; move: number }[]): Promise<number>;

  // ---- reviews ----

  /** The agent's queued reviews no session start has listed yet, oldest due first. */
  dueReviews(agentId: string, limit: number): Promise<DueReview[]>;
  markSurfaced(seqs: number[], at: string): Promise<void>;
  /** Agents with a memory whose reviewAfter has passed and that no pass has queued yet. */
  agentsWithDueReviews(now: string): Promise<string[]>;

  // ---- the API's reads ----

  /** The agent's live entities, those whose names contain `query` when one is given, most mentioned first. */
  entities(agentId: string, query: string | undefined, limit: number): Promise<(EntityRow & { aliases: string[] })[]>;
  /** The agent's entity with this id or name (a merged one answers as the entity it was merged into). */
  find(agentId: string, ref: string): Promise<(EntityRow & { aliases: string[] }) | null>;
  aspects(entityId: string): Promise<{ name: string; weight: number }[]>;
  claims(entityId: string): Promise<ClaimRow[]>;
  relations(entityId: string, limit: number): Promise<RelationRow[]>;
  memories(entityId: string, limit: number): Promise<MentionedMemoryRow[]>;

  // ---- Dreaming ----

  /**
   * Runs `pass` as the agent's only pass: null, without running it, when another daemon sharing
   * the store runs one for the agent now.
   */
  alone<T>(agentId: string, pass: () => Promise<T>): Promise<T | null>;
  passGraph(agentId: string): Promise<PassGraph>;
  passClaims(agentId: string): Promise<PassClaim[]>;
  /** The co-occurrences stored from each of `entityIds`, as (from, to) pairs. */
  coOccurrences(entityIds: string[]): Promise<[string, string][]>;
  /** When a pass last scanned all of the agent's memories for decay. */
  decayedAt(agentId: string): Promise<string | null>;
  /** The largest memory seq (0 for none): decays are planned a range of seqs at a time. */
  topSeq(): Promise<number>;
  /** The agent's memories with seq in (after, upTo] whose importance `rule` moves. */
  decays(agentId: string, rule: DecayRule, after: number, upTo: number): Promise<Decay[]>;
  /** The agent's memories whose reviewAfter has passed by `now` and that no pass has queued. */
  dueForReview(agentId: string, now: string): Promise<{ seq: number; id: string; dueAt: string }[]>;
  /** Writes a pass, in one transaction, and records it; the pass's id. */
  applyPass(agentId: string, writes: PassWrites, record: PassRecord): Promise<number>;
  /** Adds audit rows (each action with its detail as JSON) of pass `dreamId`, in one transaction. */
  audit(dreamId: number, rows: { action: string; detail: string }[]): Promise<void>;
}

/** The LIKE pattern (escaped with a backslash) of the name keys that contain `query`. */
export function namePattern(query: string): string {
  return `%${query.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
