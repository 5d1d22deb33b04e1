// The knowledge graph's service: extraction follows memory changes off the write's path (queued
// like embedding: what waits is what graph_extracted has not read, so it survives kill -9),
// Dreaming runs after enough new evidence or a quiet spell, and on demand, and the API reads here.
import { type TakeOverTiming, watchForLeftovers } from "../cluster/take-over";
import { SignetError } from "../../contracts/errors";
import { readInSteps, yieldToLoop } from "../event-loop";
import type { MemoryChange } from "../memory/store";
import type { ChatModel } from "../llm/chat";
import { dream, type DreamReport } from "./dream";
import { everydayWords } from "./everyday-words";
import { extract, knownKeysIn, nameKey } from "./extract";
import type { ClaimRow, DueReview, EntityRow, GraphStore, MentionedMemoryRow, RelationRow, SourceMemory } from "./store";
import { listenRetrying } from "../listening";

export interface GraphOptions {
  /** A pass runs for an agent once this many of its memories were extracted since its last one. */
  dreamAfterMemories: number;
  /** ... or once extraction has been quiet this long with anything new since its last one. */
  dreamIdleMs: number;
  now?: () => Date;
  onError?: (message: string) => void;
  /**
   * Told the work done, in memory changes' worth: the daemon paces its garbage collections by it, as
   * it does for writes. An extracted memory leaves several times a write's garbage (EXTRACTION_WEIGHT);
   * a pass, about a memory's worth for each memory its graph holds.
   */
  afterWork?: (changes: number) => void;
  /** The configured llm: a pass asked for proposes merges with it (dream.ts askModel). */
  llm?: ChatModel;
  /** `graph.llmApply`: what the llm proposes is applied, and background passes ask it too. */
  llmApply?: boolean;
  /** On a shared store: when memories other daemons left unextracted are taken over. */
  takeOver?: TakeOverTiming;
  /**
   * Resolves when background work may take the thread (the daemon's: once writes pause, foreground.ts).
   * Extraction's batches and the passes after them wait for it; by default only for a turn of the loop.
   */
  pause?: () => Promise<void>;
}

interface PassOptions {
  dryRun: boolean;
  trigger: string;
  /** Ask the configured llm for merges (the default for a pass on demand). */
  askLlm?: boolean;
  /** Apply what it proposes; by default as `graph.llmApply` says. */
  apply?: boolean;
}

export interface GraphEntity {
  id: string;
  name: string;
  type: string;
  aliases: string[];
  mentions: number;
}

export interface GraphEntityDetail {
  entity: GraphEntity & { pinned: boolean };
  aspects: { name: string; weight: number }[];
  claims: {
    id: number;
    aspect: string;
    slot: string;
    value: string;
    confidence: number;
    status: "active" | "superseded";
    validFrom: string;
    validUntil: string | null;
    supersededBy: number | null;
    memoryId: string;
    recordedAt: string;
  }[];
  relations: { entity: { id: string; name: string; type: string }; type: string; strength: number; evidence: number }[];
  memories: { id: string; content: string; createdAt: string }[];
}

/** Memories extracted per transaction: each batch is one commit and then a turn of the event loop. */
const BATCH = 100;
/**
 * An extracted memory's garbage, in writes' worth: reading 100,000 memories at an upgrade's first
 * start with each counted as one write peaked ~95 MiB above where the daemon settles.
 */
const EXTRACTION_WEIGHT = 5;
/** The order factor of a memory about an entity the query names (recall, docs/api.md#how-it-ranks). */
const NAMED_ORDER = 1.2;
const DETAIL_RELATIONS = 50;
/** How often the daemon looks for memories whose reviewAfter has passed since. */
const REVIEW_CHECK_MS = 15 * 60_000;
const DETAIL_MEMORIES = 20;

const entityOf = (r: EntityRow & { aliases: string[] }): GraphEntity => ({ id: r.id, name: r.name, type: r.type, aliases: r.aliases, mentions: r.mentions });
const claimOf = (c: ClaimRow): GraphEntityDetail["claims"][number] => ({
  id: c.id,
  aspect: c.aspect,
  slot: c.slot,
  value: c.value,
  confidence: c.confidence,
  status: c.status,
  validFrom: c.valid_from,
  validUntil: c.valid_until,
  supersededBy: c.superseded_by,
  memoryId: c.memory_id,
  recordedAt: c.recorded_at,
});
const relationOf = (r: RelationRow): GraphEntityDetail["relations"][number] => ({
  entity: { id: r.id, name: r.name, type: r.type },
  type: r.relation,
  strength: r.strength,
  evidence: r.evidence,
});
const memoryOf = (m: MentionedMemoryRow) => ({ id: m.id, content: m.content, createdAt: m.created_at });

/** What extraction finds in a memory, its structured payload (when it parses) included. */
function read(memory: SourceMemory, known: (key: string) => boolean, everyday: ReadonlySet<string>) {
  let structured: Record<string, unknown> | null = null;
  try {
    structured = memory.structured ? (JSON.parse(memory.structured) as Record<string, unknown>) : null;
  } catch {
    structured = null;
  }
  return extract({ content: memory.content, structured, project: memory.project, known, everyday: (w) => everyday.has(w) });
}

export class GraphService {
  private readonly pending = new Set<number>();
  /** Per agent, memories extracted since its last pass. */
  private readonly fresh = new Map<string, number>();
  private running = false;
  private draining: Promise<void> | null = null;
  private idleTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly now: () => Date;
  private readonly onError: (message: string) => void;
  private reviewTimer: ReturnType<typeof setInterval> | null = null;
  private stopTakingOver: (() => void) | undefined;
  private unfollow: (() => Promise<void>) | undefined;
  private readonly stopping = new AbortController();
  /** The passes, one after another (dream()). */
  private passes: Promise<unknown> = Promise.resolve();
  /** The batches of extraction, one after another: the last one asked for. */
  private extracting: Promise<unknown> = Promise.resolve();
  /** Time spent extracting and how many memories, for the extraction cost figure. */
  readonly cost = { memories: 0, ms: 0 };

  constructor(
    private readonly store: GraphStore,
    private readonly options: GraphOptions,
  ) {
    this.now = options.now ?? (() => new Date());
    this.onError = options.onError ?? (() => {});
  }

  /** Queues what extraction has not read: new memories, changed ones, forgotten ones it still holds. */
  async start(): Promise<void> {
    // A daemon stopped before its start came to the graph starts nothing.
    if (this.stopped) return;
    this.running = true;
    // Other daemons' passes, on a shared store; a first try that failed is tried again (listening.ts).
    const follow = this.store.follow?.bind(this.store);
    if (follow) {
      await listenRetrying(follow, {
        signal: this.stopping.signal,
        keep: (unfollow) => (this.unfollow = unfollow),
        end: (unfollow) => unfollow(),
        onError: this.onError,
        what: "graph: the passes of other daemons",
      });
    }
    await readInSteps(
      (after, n) => this.store.unextracted(after, n),
      (row) => this.pending.add(row.seq),
      () => this.running,
    );
    this.kick();
    this.checkReviews();
    this.reviewTimer = setInterval(() => this.checkReviews(), REVIEW_CHECK_MS);
    this.reviewTimer.unref?.();
    this.watchForLeftovers();
  }

  /**
   * On a shared store, the daemon that took a write extracts it; what a daemon left when it died is
   * queued here after a while. The agent's lock and the check of what was read under it (store.extract)
   * keep a memory that two daemons queue from being extracted twice.
   */
  private watchForLeftovers(): void {
    const left = this.store.leftUnextracted?.bind(this.store);
    if (!left) return;
    this.stopTakingOver = watchForLeftovers(
      left,
      (seqs) => {
        for (const seq of seqs) this.pending.add(seq);
        if (seqs.length > 0 && this.running) this.kick();
      },
      this.options.takeOver,
      () => this.now().getTime(),
    );
  }

  /** A reviewAfter passes with time, not with a write: a pass for each agent with one due and not queued. */
  private checkReviews(): void {
    if (!this.running) return;
    this.store.agentsWithDueReviews(this.now().toISOString()).then(
      (agents) => {
        for (const agentId of agents) void this.runDream(agentId, "review");
      },
      (err: Error) => this.onError(`graph: looking for memories due for review failed: ${err.message}`),
    );
  }

  onChange(change: MemoryChange): void {
    this.pending.add(change.seq);
    if (this.running) this.kick();
  }

  /** Extraction has caught up with every change told so far (tests and benchmarks wait on it). */
  async settled(): Promise<void> {
    while (this.pending.size > 0 || this.draining) await (this.draining ?? yieldToLoop());
  }

  get backlog(): number {
    return this.pending.size;
  }

  private get stopped(): boolean {
    return this.stopping.signal.aborted;
  }

  async stop(): Promise<void> {
    this.running = false;
    this.stopping.abort();
    if (this.idleTimer) clearTimeout(this.idleTimer);
    if (this.reviewTimer) clearInterval(this.reviewTimer);
    this.stopTakingOver?.();
    await this.unfollow?.();
    await this.draining;
    await this.passes;
  }

  private kick(): void {
    if (this.draining || this.stopped) return;
    this.draining = this.drain().finally(() => {
      this.draining = null;
      if (this.pending.size > 0 && !this.stopped) this.kick();
    });
  }

  private async drain(): Promise<void> {
    // Let the writes that told us answer first: extraction is never on their path.
    await this.pause();
    while (this.pending.size > 0 && this.running) {
      const batch = [...this.pending].slice(0, BATCH);
      for (const seq of batch) this.pending.delete(seq);
      try {
        await this.extractBatch(batch);
      } catch (err) {
        this.onError(`graph: extraction failed, ${batch.length} memories will be read again at the next start: ${(err as Error).message}`);
      }
      await this.pause();
    }
    await this.dreamWhereDue();
    this.armIdle();
  }

  private pause(): Promise<void> {
    return this.options.pause?.() ?? yieldToLoop();
  }

  private extractBatch(seqs: number[]): Promise<void> {
    const batch = this.extracting.then(() => this.extractNow(seqs));
    this.extracting = batch.catch(() => {});
    return batch;
  }

  private async extractNow(seqs: number[]): Promise<void> {
    const t0 = performance.now();
    const everyday = await everydayWords();
    const { extracted, removed } = await this.store.extract(seqs, this.now().toISOString(), (memory, known) => read(memory, known, everyday));
    for (const agentId of [...removed, ...extracted]) this.bump(agentId);
    this.cost.memories += extracted.length;
    this.cost.ms += performance.now() - t0;
    this.options.afterWork?.(extracted.length * EXTRACTION_WEIGHT);
  }

  private bump(agentId: string): void {
    this.fresh.set(agentId, (this.fresh.get(agentId) ?? 0) + 1);
  }

  /**
   * A pass reads the agent's whole graph, so it waits for new evidence in proportion: the configured
   * number of memories, or a tenth of what the agent's graph has read, whichever is more.
   */
  private async dreamWhereDue(): Promise<void> {
    for (const [agentId, n] of this.fresh) {
      if (!this.running || n < Math.max(this.options.dreamAfterMemories, (await this.store.extractedCount(agentId)) / 10)) continue;
      await this.runDream(agentId, "evidence");
    }
  }

  /** After a quiet spell, a pass for every agent with anything new since its last. */
  private armIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    if (this.stopped || this.fresh.size === 0) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      for (const agentId of [...this.fresh.keys()]) if (this.running) void this.runDream(agentId, "idle");
    }, this.options.dreamIdleMs);
    this.idleTimer.unref?.();
  }

  private async runDream(agentId: string, trigger: string): Promise<void> {
    try {
      // In the background the model is asked only when the owner lets it act (graph.llmApply); a
      // pass another daemon runs for the agent now stands for this one.
      await this.pass(agentId, { dryRun: false, trigger, askLlm: this.options.llmApply === true });
    } catch (err) {
      this.onError(`graph: Dreaming for ${agentId} failed: ${(err as Error).message}`);
    }
  }

  /**
   * One pass over `agentId`'s graph; a dry run reports what it would do and writes nothing. Passes run
   * one at a time: one planned while another applies would act on what that one changed. Refused
   * while another daemon sharing the store runs a pass for the agent.
   */
  async dream(agentId: string, options: PassOptions): Promise<DreamReport> {
    const report = await this.pass(agentId, options);
    if (!report) throw new SignetError("unavailable", `a Dreaming pass for ${agentId} is running on another daemon; try again when it ends`);
    return report;
  }

  /** A pass after the ones asked for before it; null when another daemon runs one for the agent. */
  private pass(agentId: string, options: PassOptions): Promise<DreamReport | null> {
    const pass = this.passes.then(() => this.dreamNow(agentId, options));
    this.passes = pass.catch(() => {});
    return pass;
  }

  private async dreamNow(agentId: string, { askLlm = true, apply, ...options }: PassOptions): Promise<DreamReport | null> {
    const llm = askLlm ? this.options.llm : undefined;
    const run = () => dream(this.store, agentId, { ...options, now: this.now(), llm, applyLlm: apply ?? this.options.llmApply === true });
    // A dry run writes nothing: it may run beside another daemon's pass.
    const report = options.dryRun ? await run() : await this.store.alone(agentId, run);
    if (!report) return null;
    this.options.afterWork?.(await this.store.extractedCount(agentId));
    if (!options.dryRun) this.fresh.delete(agentId);
    return report;
  }

  /**
   * Extracts those of `seqs` still waiting, now, after the batch under way (which may hold others of
   * them): what recall and feedback read is never behind the store.
   */
  private async catchUp(seqs: number[]): Promise<void> {
    const due = seqs.filter((seq) => this.pending.has(seq));
    for (const seq of due) this.pending.delete(seq);
    await (due.length > 0 ? this.extractBatch(due) : this.extracting);
  }

  /**
   * Recall's order factors for its candidates: memories about an entity the query names rank higher,
   * unless it is one of `authors`, whose own memories recall lifts already. (Lifting those about the
   * named entities' neighbours too changed nothing on LoCoMo: docs/benchmarks.md#tried-and-not-kept.)
   */
  async orderFactors(agentId: string, query: string, seqs: number[], authors: readonly string[] = []): Promise<Map<number, number>> {
    const factors = new Map<number, number>();
    const [names, everyday] = await Promise.all([this.store.gazetteer(agentId), everydayWords()]);
    const asAuthors = new Set(authors.map(nameKey));
    const named = new Set(knownKeysIn(query, (k) => names.has(k) && !asAuthors.has(k), (w) => everyday.has(w)).map((k) => names.get(k)!));
    if (named.size === 0) return factors;
    await this.catchUp(seqs);
    for (const seq of await this.store.mentioning([...named], seqs)) factors.set(seq, NAMED_ORDER);
    return factors;
  }

  /** For each of `seqs` with a superseded claim, the memories whose newer evidence superseded it. */
  supersededBy(seqs: number[]): Promise<Map<number, Set<number>>> {
    return this.store.supersededBy(seqs);
  }

  /** The names of the entities each of `seqs` is about (its project last). */
  async entityNames(seqs: number[]): Promise<Map<number, string[]>> {
    await this.catchUp(seqs);
    const out = new Map<number, string[]>();
    for (const m of await this.store.mentionsOf(seqs)) (out.get(m.memory_seq) ?? out.set(m.memory_seq, []).get(m.memory_seq)!).push(m.name);
    return out;
  }

  /**
   * Feedback along the graph: a move of a memory's feedback signal moves the aspect weights on its
   * entity paths (store.ts rateAspects). How many of the moves moved any.
   */
  async propagate(agentId: string, moves: [memoryId: string, move: number][]): Promise<number> {
    const seqs = await this.store.seqsOf(agentId, moves.map(([id]) => id));
    const rated = moves.flatMap(([id, move]) => {
      const seq = seqs.get(id);
      return seq === undefined ? [] : [{ seq, move }];
    });
    await this.catchUp(rated.map((r) => r.seq));
    return this.store.rateAspects(agentId, rated);
  }

  /** The agent's memories due for review that no session start has listed, with why. */
  dueReviews(agentId: string, limit: number): Promise<DueReview[]> {
    return this.store.dueReviews(agentId, limit);
  }

  /** A session start listed these reviews: they are not listed again. */
  async reviewsListed(seqs: number[]): Promise<void> {
    if (seqs.length > 0) await this.store.markSurfaced(seqs, this.now().toISOString());
  }

  async entities(agentId: string, query: string | undefined, limit: number): Promise<GraphEntity[]> {
    return (await this.store.entities(agentId, query?.trim() || undefined, limit)).map(entityOf);
  }

  async entity(agentId: string, ref: string): Promise<GraphEntityDetail> {
    const found = await this.store.find(agentId, ref);
    if (!found) throw new SignetError("not_found", `no entity ${JSON.stringify(ref)} in this agent's graph`);
    const [aspects, claims, relations, memories] = await Promise.all([
      this.store.aspects(found.id),
      this.store.claims(found.id),
      this.store.relations(found.id, DETAIL_RELATIONS),
      this.store.memories(found.id, DETAIL_MEMORIES),
    ]);
    return {
      entity: { ...entityOf(found), pinned: found.pinned === 1 },
      aspects,
      claims: claims.map(claimOf),
      relations: relations.map(relationOf),
      memories: memories.map(memoryOf),
    };
  }
}
