// Hybrid recall (docs/api.md#how-it-ranks): a keyword leg (BM25) and a vector leg (cosine) over the
// same filtered candidates, ranked by fusing the legs' normalized scores, adjusted by importance,
// pinning, recency, access, feedback and a named author, with strong hits' session neighbours folded
// in; each result's score is its calibrated relevance (core/search/scoring.ts), and those under the request's
// minimum are not returned. Same-session neighbours of the results come as supporting context too.
// Its SQL lives in store.ts.
import { byTerm } from "../search/term-positions";
import { type MatchedBy, type RecallRequest, type RecallResponse, type RecallResult, type SupportingResult } from "../../contracts/recall";
import type { EmbeddingWorker } from "../embed/worker";
import type { Caller, MemoryService } from "../memory/service";
import { authorOf, type KeywordText, type MemoryChange } from "../memory/store";
import { memoryFilter, type MemoryFilter } from "../memory/filter";
import type { AccessLog } from "./access-log";
import type { UsageBoost } from "./usage-boost";
import { adjustment, authorOrder, namesAuthor, feedbackOrder, questionOrder, specificOrder } from "./adjustment";
import { backgroundCosine, keywordRelevance, type LegHit, type TermStats } from "../search/scoring";
import { BACKGROUND_AT, confidenceOf, hasOwnEvidence } from "./confidence";
import { KeywordIndex, loadInSteps, type KeywordDoc } from "../search/keyword-index";
import { COLUMN_WEIGHTS, type CandidateRow, type IndexRow, type RecallStore } from "./store";
import { keywordColumns, queryTerms } from "../search/text";
import { fuse, keywordEvidence, VECTOR_WEIGHTS, type KeywordEvidence, type VectorWeights } from "../search/fusion";
import { NEIGHBOURS, withNeighbours, type Neighbour } from "./neighbours";
import { readableByBuiltinModel } from "../embed/builtin/readable";
import { expands, feedbackTerms } from "./expansion";
import { rerank, type RerankMeta } from "./rerank";
import type { ChatModel } from "../llm/chat";
import { tokenize } from "../search/fts5-tokenizer";
import { conceptToken, conceptsOf } from "../search/lexicon";

/** How many candidates each leg contributes before fusion. */
const LEG_DEPTH = 50;
/** How many of a named author's own memories the vector leg adds (docs/api.md#how-it-ranks). */
const AUTHOR_DEPTH = 100;
/**
 * The vector leg's weight under the first place when the query names an author: her own memories
 * join by meaning alone (AUTHOR_DEPTH), and at the usual weight they rarely rise past others' word
 * matches. Chosen on half of LoCoMo's conversations and checked on the other half; meaning weighed
 * more for the first place too, or for queries naming no author, costs the top place more often
 * than it helps (docs/benchmarks.md#recall-quality).
 */
const AUTHOR_VECTOR_WEIGHTS: VectorWeights = { min: 0.3, max: 0.6 };
/** The keyword index's own top rows fetched per needed row, before filters are checked. */
const KEYWORD_OVERFETCH = 20;

/** Filters beyond the agent and the project (which the keyword index applies itself). */
function hasRowFilter(f: MemoryFilter): boolean {
  return [f.type, f.tags?.length ? f.tags : undefined, f.who, f.since, f.until, f.pinned, f.importanceMin].some(
    (v) => v !== undefined,
  );
}

interface KeywordLeg {
  hits: LegHit[];
  /** Each hit's calibrated relevance (search/scoring.ts). */
  relevance: Map<number, number>;
  /** How good the leg's best evidence is, for weighing the legs (search/fusion.ts). */
  evidence: KeywordEvidence;
}

const NO_KEYWORDS: KeywordLeg = { hits: [], relevance: new Map(), evidence: { best: 0, identifier: false } };

export interface RecallServiceOptions {
  /** The configured `llm`: when given, it reorders the results that passed the minimum (rerank.ts). */
  llm?: ChatModel;
  /** The MCP usage boost (usage-boost.ts): a factor ≥ 1 on a candidate's rank, never its score. */
  usage?: Pick<UsageBoost, "order" | "prepare">;
  /** The knowledge graph, for its order factors and the entities a result is about. */
  graph?: RecallGraph;
  /**
   * Resolves when indexing may take the thread (the daemon's: once writes pause, core/foreground.ts).
   * Without it each change is indexed as it is told.
   */
  pause?: () => Promise<void>;
  /** Called after each ranking (a recall's or the prompt hook's): the daemon paces collections by it. */
  afterRank?: () => void;
}

/** What recall asks of the knowledge graph (core/graph/service.ts). */
interface RecallGraph {
  /** Factors ≥ 1 on candidates' ranks (never their scores), by seq: memories about entities the query names. */
  orderFactors(agentId: string, query: string, seqs: number[], authors?: readonly string[]): Promise<Map<number, number>>;
  /** For each memory with a superseded claim, the memories whose newer evidence superseded it. */
  supersededBy(seqs: number[]): Promise<Map<number, Set<number>>>;
  /** The names of the entities each memory is about. */
  entityNames(seqs: number[]): Promise<Map<number, string[]>>;
}

/** A candidate in the ranked order, with its evidence (RecallService.rank). */
export interface RankedCandidate {
  row: CandidateRow;
  rank: number;
  relevance: number;
  matchedBy: MatchedBy;
  /** Calibrated keyword evidence (0-1); 0 for a session neighbour the legs did not find. */
  keyword: number;
  /** Calibrated vector evidence (0-1): the cosine on the model's ramp. */
  vector: number;
  /** The query's cosine with the memory, when the vector leg found it. */
  cosine: number | null;
}

export interface Ranking {
  ranked: RankedCandidate[];
  candidates: number;
  /** The vector leg's cosines for the query, best first: how close the store's nearest memories are. */
  cosines: number[];
  embedding: RecallResponse["meta"]["embedding"];
  method: MatchedBy;
}

/** What both legs found for a query, each hit's row read with the caller's scope (RecallService.candidates). */
interface Candidates {
  keyword: LegHit[];
  vector: LegHit[];
  /** The keyword leg's calibrated relevance per hit and its evidence for weighing the legs. */
  keywordLeg: KeywordLeg;
  rows: Map<number, CandidateRow>;
  embedding: RecallResponse["meta"]["embedding"];
}

/** A ranked memory that passed the request's minimum, with the score it is shown with. */
interface Scored {
  row: CandidateRow;
  score: number;
  matchedBy: MatchedBy;
  /** Evidence of its own for the query (confidence.ts). */
  ownEvidence: boolean;
}

export interface RecallCallOptions {
  excludeType?: string;
  rerank?: boolean;
}

export class RecallService {
  private readonly llm: ChatModel | undefined;
  private readonly usage: Pick<UsageBoost, "order" | "prepare"> | undefined;
  private readonly graph: RecallGraph | undefined;
  /** Each author's name as tokens (tokensOf). */
  private readonly authorTokens = new Map<string, string[]>();
  /** The keyword leg's in-memory index: recall waits for it while it loads at start. */
  private readonly keywords = new KeywordIndex(COLUMN_WEIGHTS);
  private keywordsReady = false;
  /** The index's load from the store, begun once: by start(), or else by the first keyword leg. */
  private loading: Promise<boolean> | null = null;
  /**
   * Committed changes not yet in the keyword index, by seq (the latest of each): indexed once writes
   * pause, and before anything reads the index, so a recall always sees every committed write.
   */
  private readonly unindexed = new Map<number, MemoryChange>();
  private indexing: Promise<void> | null = null;
  private readonly pause: (() => Promise<void>) | undefined;
  private readonly afterRank: (() => void) | undefined;
  private stopped = false;

  constructor(
    private readonly store: RecallStore,
    private readonly memory: MemoryService,
    private readonly embeddings: EmbeddingWorker | null,
    private readonly accessLog: AccessLog,
    options: RecallServiceOptions = {},
  ) {
    this.llm = options.llm;
    this.usage = options.usage;
    this.graph = options.graph;
    this.pause = options.pause;
    this.afterRank = options.afterRank;
  }

  /**
   * The ranked memories for `req` (aggregate mode is aggregate.ts's, on top of this). `excludeType`
   * drops memories of that type from the candidates before ranking (aggregates are never evidence);
   * `rerank: false` keeps the fused order even with an llm (an aggregate's llm reads the evidence
   * itself: a second call would only add its latency).
   */
  async recall(caller: Caller, req: RecallRequest, options: RecallCallOptions = {}): Promise<RecallResponse> {
    const started = performance.now();
    const release = this.embeddings?.holdForRecall();
    try {
      return await this.answer(caller, req, started, options);
    } finally {
      release?.();
    }
  }

  /**
   * The ranked candidates for `req` with each one's evidence, before any minimum or limit: what a
   * recall answers from, and what prompt-time injection weighs (sessions/injection.ts). Each item's
   * `keyword` and `vector` are its calibrated evidence from each leg (search/scoring.ts), `relevance` both
   * combined and adjusted; `cosines` holds the vector leg's cosines for the query, best first (the
   * background a memory must stand out from).
   */
  async rank(caller: Caller, req: RecallRequest, excludeType?: string): Promise<Ranking> {
    const filter = memoryFilter(this.memory.readableAgents(caller), req);
    await this.usage?.prepare();
    const queryTokens = new Set(tokenize(req.query));
    const authors = this.namedAuthors(queryTokens);
    // Their own memories are searched too, unless a `who` filter keeps one author's alone already.
    const searchedAuthors = filter.who === undefined ? authors : [];
    const found = await this.candidates(req, filter, searchedAuthors, excludeType);
    // A named author's memories have the author's lift: the graph's for the same name would count them twice.
    const graphOrder = await this.graph?.orderFactors(caller.agentId, req.query, [...found.rows.keys()], authors);
    const orderLift = this.orderLift(queryTokens, graphOrder);
    const usual = this.fused(found, orderLift, VECTOR_WEIGHTS);
    const wider = searchedAuthors.length > 0 ? this.fused(found, orderLift, AUTHOR_VECTOR_WEIGHTS) : null;
    // The strong hits' session neighbours, read first (once for both orders): withNeighbours weighs them in.
    const lenders = [...usual.slice(0, NEIGHBOURS.depth), ...(wider ?? []).slice(0, NEIGHBOURS.depth)];
    const near = await this.sessionNeighbours([...new Map(lenders.map((r) => [r.row.seq, r.row])).values()], NEIGHBOURS.window, filter);
    const neighboured = (order: RankedCandidate[]) =>
      withNeighbours(
        order,
        NEIGHBOURS,
        () => near,
        (hit, row) => ({ row, rank: 0, relevance: 0, matchedBy: hit.matchedBy, keyword: 0, vector: 0, cosine: null }),
        (item) => round4(item.relevance) >= (req.minScore ?? 0),
        orderLift,
      );
    const ranked = wider ? ledBy(neighboured(usual), neighboured(wider)) : neighboured(usual);
    if (this.graph) belowNewerEvidence(ranked, await this.graph.supersededBy(ranked.map((r) => r.row.seq)));
    const { keyword, vector } = found;
    const method: MatchedBy = vector.length > 0 ? (keyword.length > 0 ? "hybrid" : "vector") : "keyword";
    const candidates = new Set([...keyword, ...vector].map((h) => h.seq)).size;
    this.afterRank?.();
    return { ranked, candidates, cosines: vector.map((h) => h.raw).sort((a, b) => b - a), embedding: found.embedding, method };
  }

  /**
   * Both legs' hits for `req` (the vector leg's also among `authors`' own memories), the vector leg's
   * query embedding while the keyword leg runs. The
   * legs' hits come from in-memory indexes; reading their rows re-checks the caller's scope in SQL,
   * and a hit whose row fails it (an index out of step with the store) is dropped before it can
   * weigh in the normalization, as is a memory of `excludeType`.
   */
  private async candidates(req: RecallRequest, filter: MemoryFilter, authors: string[], excludeType: string | undefined): Promise<Candidates> {
    const vectorPromise = this.vectorLeg(req.query, filter, authors);
    const { leg: keywordLeg, rows } = await this.keywordSide(req.keywordQuery ?? req.query, filter);
    const { hits: vectorHits, embedding } = await vectorPromise;
    const more = [...new Set(vectorHits.map((h) => h.seq))].filter((seq) => !rows.has(seq));
    for (const [seq, row] of await this.rowsBySeq(more, filter.agentIds)) rows.set(seq, row);
    if (excludeType !== undefined) for (const [seq, row] of rows) if (row.type === excludeType) rows.delete(seq);
    return {
      keyword: keywordLeg.hits.filter((h) => rows.has(h.seq)),
      vector: vectorHits.filter((h) => rows.has(h.seq)),
      keywordLeg,
      rows,
      embedding,
    };
  }

  /**
   * A row's factor on the order, never its score (adjustment.ts): lifted by positive feedback, MCP
   * usage, an author the query names and an entity of the knowledge graph the query names; lowered
   * when the memory only asks, and the more common its words are.
   */
  private orderLift(queryTokens: ReadonlySet<string>, graphOrder: Map<number, number> | undefined): (row: CandidateRow) => number {
    // Asked of a row again and again while neighbours lend: made once per row and recall.
    const lifts = new Map<number, number>();
    return (row) => {
      let lift = lifts.get(row.seq);
      if (lift === undefined) {
        lift =
          Math.max(1, feedbackOrder(row)) *
          (this.usage?.order(row) ?? 1) *
          this.authorLift(row, queryTokens) *
          (graphOrder?.get(row.seq) ?? 1) *
          questionOrder(row.content) *
          specificOrder(this.keywords.specificity(row.seq));
        lifts.set(row.seq, lift);
      }
      return lift;
    };
  }

  /**
   * The candidates in the fused order, best first (ties: the newer first): each leg normalized, the
   * legs weighed by how good the keyword evidence is (search/fusion.ts), times the row's adjustment and
   * order lift; each with its calibrated relevance, which only the adjustment moves.
   */
  private fused({ keyword, vector, keywordLeg, rows }: Candidates, orderLift: (row: CandidateRow) => number, weights: VectorWeights): RankedCandidate[] {
    const now = new Date();
    const provider = this.embeddings?.provider ?? "none";
    return fuse({ keyword, keywordRelevance: keywordLeg.relevance, evidence: keywordLeg.evidence, vector, provider }, weights)
      .map((f): RankedCandidate => {
        const row = rows.get(f.seq)!;
        const adjust = adjustment(row, now);
        return { row, rank: f.order * adjust * orderLift(row), relevance: f.relevance * adjust, matchedBy: f.matchedBy, keyword: f.keyword, vector: f.vector, cosine: f.cosine };
      })
      .sort((a, b) => b.rank - a.rank || b.row.created_at.localeCompare(a.row.created_at));
  }

  private async answer(caller: Caller, req: RecallRequest, started: number, { excludeType, rerank: reorder = true }: RecallCallOptions): Promise<RecallResponse> {
    const { ranked, candidates, cosines, embedding, method } = await this.rank(caller, req, excludeType);
    const minimum = req.minScore ?? 0;
    const relevant = scoredDownTo(ranked, minimum, cosines.length > 0 ? backgroundCosine(cosines, BACKGROUND_AT) : null);
    const { scored, rerankMeta } = await this.limited(req, relevant, reorder);
    const about = await this.graph?.entityNames(scored.map((s) => s.row.seq));
    const results = scored.map(({ row, score, matchedBy, ownEvidence }) => {
      const result = toResult(row, score, matchedBy, ownEvidence);
      const entities = about?.get(row.seq);
      return entities ? { ...result, entities } : result;
    });
    const supporting = await this.supporting(scored, this.memory.readableAgents(caller));
    await this.accessLog.record(
      caller.agentId,
      req.sessionKey,
      scored.map((s) => ({ seq: s.row.seq, id: s.row.id, score: s.score })),
    );
    return {
      results,
      supporting,
      meta: {
        method,
        tookMs: round2(performance.now() - started),
        candidates,
        embedding,
        minScore: minimum,
        belowMinScore: ranked.length - relevant.length,
        ...(rerankMeta ? { rerank: rerankMeta } : {}),
      },
    };
  }

  /**
   * The first `req.limit` of `relevant`; with an llm, in the order it gives them (rerank.ts), each
   * place keeping its score: the model reorders what passed the minimum, nothing more. With an llm
   * the meta is there even for fewer than two results (rerank.ts does not ask the model then).
   */
  private async limited(req: RecallRequest, relevant: Scored[], reorder: boolean): Promise<{ scored: Scored[]; rerankMeta?: RerankMeta }> {
    if (!this.llm || !reorder) return { scored: relevant.slice(0, req.limit) };
    const second = await rerank(this.llm, req.query, relevant, (r) => r.row.content);
    return { scored: second.items.slice(0, req.limit).map((r, i) => ({ ...r, score: relevant[i]!.score })), rerankMeta: second.meta };
  }

  /**
   * Loads the keyword index from the store in steps, yielding between them so the daemon answers
   * meanwhile (recalls wait for it). Changes made during the load are applied as
   * they come; the load reads each row's state when it gets there, so both orders end the same.
   */
  async start(): Promise<number> {
    this.keywordsReady = await this.load();
    return this.keywords.size;
  }

  /**
   * Whether the keyword index is ready, waiting up to `ms` for its load (seconds at the start of a
   * large store). A load that failed counts as done: recall answers from what it read.
   */
  async readyWithin(ms: number): Promise<boolean> {
    if (this.keywordsReady) return true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
    try {
      return await Promise.race([this.load().then(() => true, () => true), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  private load(): Promise<boolean> {
    this.loading ??= loadInSteps(this.keywords, (after, n) => this.store.indexChunk(after, n), indexDoc, () => this.stopped);
    return this.loading;
  }

  stop(): void {
    this.stopped = true;
  }

  /** The cosine between two memories' vectors, null when either has none (or no provider runs). */
  similarity(a: number, b: number): number | null {
    return this.embeddings?.vectors?.cosineBetween(a, b) ?? null;
  }

  /** Memories in the keyword index, or null while it loads (recalls wait for it meanwhile). */
  get keywordIndexSize(): number | null {
    if (!this.keywordsReady) return null;
    this.indexUnindexed();
    return this.keywords.size;
  }

  /**
   * Follows committed memory changes into the keyword index, with the text as written (not read
   * back). While writes come fast, indexing waits for them to pause: under a burst it cost each write
   * about a fifth of the daemon's thread.
   */
  onChange(change: MemoryChange): void {
    if (!this.pause) return this.index(change);
    this.unindexed.set(change.seq, change);
    this.indexing ??= this.pause().then(() => {
      this.indexing = null;
      this.indexUnindexed();
    });
  }

  private indexUnindexed(): void {
    for (const change of this.unindexed.values()) this.index(change);
    this.unindexed.clear();
  }

  private index({ seq, agentId, project, text }: MemoryChange): void {
    if (text) this.keywords.set(keywordDoc(seq, agentId, project, text));
    else this.keywords.remove(seq);
  }

  /**
   * The keyword leg and its hits' rows, while the query embeds: the embedder is told this thread is
   * busy meanwhile (Embedder.callerBusy).
   */
  private async keywordSide(query: string, filter: MemoryFilter): Promise<{ leg: KeywordLeg; rows: Map<number, CandidateRow> }> {
    this.embeddings?.callerBusy(true);
    try {
      const leg = await this.keywordLeg(query, filter);
      return { leg, rows: await this.rowsBySeq([...new Set(leg.hits.map((h) => h.seq))], filter.agentIds) };
    } finally {
      this.embeddings?.callerBusy(false);
    }
  }

  /**
   * BM25 over the keyword index (waiting for it while it loads at start), with each hit's calibrated
   * relevance from the index's term statistics.
   */
  private async keywordLeg(query: string, filter: MemoryFilter): Promise<KeywordLeg> {
    const terms = queryTerms(query);
    if (terms.length === 0) return NO_KEYWORDS;
    // A load that failed leaves what it read and what was written since: that much answers.
    await this.load().catch(() => false);
    this.indexUnindexed();
    // A term of several tokens (snake_case: "snake" then "case") is its tokens, counted as one term.
    const tokens = terms.map((t) => tokenize(t));
    // The concepts the query's words are about meet memories about them in other words (lexicon.ts):
    // each is one more term, after the query's own (those with a token, in order).
    const termTokens = tokens.filter((t) => t.length > 0);
    const concepts = conceptsOf(termTokens.flat());
    const conceptTerms = concepts.map(conceptToken);
    const once = conceptOnce(termTokens, concepts);
    const flat = [...termTokens.flat(), ...conceptTerms];
    // Positions in `flat` are tokens; a term of several tokens counts as one.
    const perTerm = byTerm(termTokens, conceptTerms.length);
    let hits = await this.indexHits(flat, filter);
    const stats: TermStats = { n: this.keywords.size, df: perTerm.frequencies(this.keywords.documentFrequencies(flat)) };
    let matched = once(perTerm.matched(this.keywords.matchedTerms(flat, hits.map((h) => h.seq))));
    const relevanceOf = conceptRelevance(stats, termTokens.length);
    if (hits.length > 0) {
      // A second search with the best hits' shared words when the first found weak evidence (expansion.ts).
      const best = Math.max(...hits.map((h) => relevanceOf(matched.get(h.seq) ?? [])));
      const extra = expands(best) ? feedbackTerms(this.keywords, flat, hits.map((h) => h.seq)) : { tokens: [] as string[], weights: [] };
      if (extra.tokens.length > 0) {
        hits = await this.indexHits([...flat, ...extra.tokens], filter, [...flat.map(() => 1), ...extra.weights]);
        matched = once(perTerm.matched(this.keywords.matchedTerms(flat, hits.map((h) => h.seq))));
      }
    }
    const relevance = new Map(hits.map((h) => [h.seq, relevanceOf(matched.get(h.seq) ?? [])]));
    // Matched positions count the terms that have a token, in order, then the concepts.
    return { hits, relevance, evidence: keywordEvidence(query, terms, tokens, relevance, matched) };
  }

  /**
   * The index's top rows: when nothing is filtered out they are the answer (reading their rows
   * re-checks the scope); otherwise they are checked against the filters, and only when too few pass
   * is every match in scope checked.
   */
  private async indexHits(tokens: string[], filter: MemoryFilter, weights?: number[]): Promise<LegHit[]> {
    const scope = { agentIds: filter.agentIds, project: filter.project };
    const rowFiltered = hasRowFilter(filter);
    const search = (k: number) => this.keywords.search(tokens, k, scope, weights).map((h) => ({ seq: h.seq, raw: h.score }));
    const top = search(rowFiltered ? LEG_DEPTH * KEYWORD_OVERFETCH : LEG_DEPTH);
    if (!rowFiltered) return top;
    // The overfetched rows that pass the filters, unless too few do while more matched: then every
    // match in scope is checked against them.
    const kept = await this.passing(top, filter);
    if (kept.length >= LEG_DEPTH || top.length < LEG_DEPTH * KEYWORD_OVERFETCH) return kept.slice(0, LEG_DEPTH);
    return (await this.passing(search(this.keywords.size), filter)).slice(0, LEG_DEPTH);
  }

  /** The hits whose rows pass `filter`, in their order. */
  private async passing(hits: LegHit[], filter: MemoryFilter): Promise<LegHit[]> {
    const passing = new Set(await this.store.seqsPassingAmong(hits.map((h) => h.seq), filter));
    return hits.filter((h) => passing.has(h.seq));
  }

  /**
   * The vector leg's best LEG_DEPTH; when the query names authors of embedded memories, also the best
   * AUTHOR_DEPTH of their own, from the same search: a question about a person is answered by what
   * they said, which need not share its words or say their name, and the best among everyone's are
   * spent on what mentions them or sounds like the question (docs/api.md#how-it-ranks).
   */
  private async vectorLeg(query: string, filter: MemoryFilter, names: string[]): Promise<{ hits: LegHit[]; embedding: RecallResponse["meta"]["embedding"] }> {
    if (!this.embeddings || this.embeddings.provider === "none") return { hits: [], embedding: "disabled" };
    if (this.embeddings.provider === "builtin" && !readableByBuiltinModel(query)) return { hits: [], embedding: "unreadable" };
    // The worker compares each vector only with the query embedded by the vector's own model (a
    // re-embedding has two: docs/api.md#re-embedding).
    const { hits, authorHits, embedding } = await this.embeddings.search(query, {
      k: LEG_DEPTH,
      agentIds: filter.agentIds,
      project: filter.project,
      authors: names.length > 0 ? { names, k: AUTHOR_DEPTH } : undefined,
      allowed: async () => (hasRowFilter(filter) ? new Set(await this.store.seqsPassing(filter)) : undefined),
    });
    const found = new Set(hits.map((h) => h.seq));
    // A vector pointing away from the query is no evidence at all, however few the memories.
    return {
      hits: [...hits, ...authorHits.filter((h) => !found.has(h.seq))].filter((h) => h.score > 0).map((h) => ({ seq: h.seq, raw: h.score })),
      embedding,
    };
  }

  /** The authors of embedded memories whose names the query's tokens hold (adjustment.ts namesAuthor). */
  private namedAuthors(queryTokens: ReadonlySet<string>): string[] {
    const named: string[] = [];
    for (const who of this.embeddings?.vectors?.authors() ?? []) if (namesAuthor(this.tokensOf(who), queryTokens)) named.push(who);
    return named;
  }

  /** The author factor of `row` for a query of `queryTokens` (adjustment.ts authorOrder). */
  private authorLift(row: CandidateRow, queryTokens: ReadonlySet<string>): number {
    const author = authorOf(row);
    return author === null ? 1 : authorOrder(this.tokensOf(author), queryTokens);
  }

  /** An author's name as tokens, kept across recalls: authors are few and a memory's never changes. */
  private tokensOf(who: string): string[] {
    let tokens = this.authorTokens.get(who);
    if (!tokens) this.authorTokens.set(who, (tokens = tokenize(who)));
    return tokens;
  }

  /** The live rows among `seqs` that `agentIds` may read; any other seq has no entry. */
  private async rowsBySeq(seqs: number[], agentIds: string[]): Promise<Map<number, CandidateRow>> {
    if (seqs.length === 0) return new Map();
    return new Map((await this.store.candidatesAmong(seqs, { agentIds })).map((r) => [r.seq, r]));
  }

  /** The session neighbours of `rows` up to `window` each side that pass the request's filters, per row's seq. */
  private async sessionNeighbours(rows: CandidateRow[], window: number, filter: MemoryFilter): Promise<Map<number, Neighbour<CandidateRow>[]>> {
    const found = new Map<number, Neighbour<CandidateRow>[]>();
    const withDistance = (rows: CandidateRow[]) => rows.map((row, i) => ({ row, distance: i + 1 }));
    for (const [seq, n] of await this.store.sessionNeighbours(rows, window)) found.set(seq, [...withDistance(n.before), ...withDistance(n.after)]);
    const seqs = [...new Set([...found.values()].flat().map((n) => n.row.seq))];
    if (seqs.length === 0) return found;
    const passing = new Set(await this.store.seqsPassingAmong(seqs, filter));
    for (const [seq, list] of found) found.set(seq, list.filter((n) => passing.has(n.row.seq)));
    return found;
  }

  /** The memories said just before and after each primary result in the same session. */
  private async supporting(scored: Scored[], agents: string[]): Promise<SupportingResult[]> {
    const shown = new Set(scored.map((s) => s.row.seq));
    const readable = new Set(agents);
    const out: SupportingResult[] = [];
    const sides = [
      ["previous-in-session", "before"],
      ["next-in-session", "after"],
    ] as const;
    const withSession = scored.filter(({ row }) => row.session_key && readable.has(row.agent_id));
    const nearest = await this.store.sessionNeighbours(withSession.map((s) => s.row), 1);
    for (const { row, score, matchedBy } of withSession) {
      for (const [relation, side] of sides) {
        const n = nearest.get(row.seq)?.[side][0];
        if (!n || shown.has(n.seq)) continue;
        shown.add(n.seq);
        out.push({ ...toResult(n, score * 0.5, matchedBy, false), relation, supports: row.id });
      }
    }
    return out;
  }
}

/**
 * A concept is evidence beside the query's words, not on top of them: it counts for a memory's
 * relevance only when the memory holds none of the query's own words for it ("released" matching
 * "release" is one piece of evidence, not two). Drops those from each memory's matched positions
 * in [...terms, ...concepts], a term being its tokens.
 */
function conceptOnce(terms: string[][], concepts: string[]): (matched: Map<number, number[]>) => Map<number, number[]> {
  if (concepts.length === 0) return (matched) => matched;
  const triggers = concepts.map((id) => terms.flatMap((t, i) => (conceptsOf(t).includes(id) ? [i] : [])));
  return (matched) => {
    for (const [seq, positions] of matched) {
      const held = new Set(positions);
      matched.set(seq, positions.filter((i) => i < terms.length || !triggers[i - terms.length]!.some((t) => held.has(t))));
    }
    return matched;
  };
}

/**
 * The keyword relevance (search/scoring.ts) of a memory's matched positions among [...terms, ...concepts]:
 * the better of the query's own words alone and the words with the concepts. A concept adds
 * evidence for a memory in other words than the query's, and never takes away from one that holds
 * the query's words ("tabs or spaces?" is still a full match for a memory that says both).
 */
function conceptRelevance(stats: TermStats, words: number): (matched: readonly number[]) => number {
  const all = keywordRelevance(stats);
  if (stats.df.length === words) return all;
  const own = keywordRelevance({ n: stats.n, df: stats.df.slice(0, words) });
  return (matched) => Math.max(own(matched.filter((i) => i < words)), all(matched));
}

/**
 * The ranked candidates down to the first whose score falls under `minimum`. The order is the
 * fused ranking's (normalized per query, it ranks best: docs/api.md#scores); a score is the row's
 * calibrated relevance, capped by the score above it so scores read in order and a minimum cuts the
 * list at one place. Without one nothing the ranking found is hidden: each result says how sure it
 * is (toResult's confidence).
 */
function scoredDownTo(ranked: RankedCandidate[], minimum: number, background: number | null): Scored[] {
  let cap = 1;
  const relevant: Scored[] = [];
  for (const r of ranked) {
    cap = Math.min(cap, round4(r.relevance));
    if (cap < minimum) break;
    relevant.push({ row: r.row, score: cap, matchedBy: r.matchedBy, ownEvidence: hasOwnEvidence(r, background) });
  }
  return relevant;
}

/**
 * Moves each memory whose claim newer evidence superseded (knowledge graph) to just below the last
 * of the memories that superseded it, when they are in the list: the current value answers first.
 */
function belowNewerEvidence(ranked: RankedCandidate[], supersededBy: Map<number, Set<number>>): void {
  for (const [old, newer] of supersededBy) {
    const from = ranked.findIndex((r) => r.row.seq === old);
    let last = -1;
    ranked.forEach((r, i) => {
      if (newer.has(r.row.seq)) last = i;
    });
    if (from < 0 || last < from) continue;
    const [moved] = ranked.splice(from, 1);
    ranked.splice(last, 0, moved!);
  }
}

/**
 * `lead`'s first item, then `rest` without it: the first place is the usual order's, where an exact
 * match of the query's words stays first, and the places under it reach further by meaning.
 */
function ledBy<T extends { row: { seq: number } }>(lead: T[], rest: T[]): T[] {
  const first = lead[0];
  return first === undefined ? rest : [first, ...rest.filter((r) => r.row.seq !== first.row.seq)];
}

const round2 = (x: number) => Math.round(x * 100) / 100;
const round4 = (x: number) => Math.round(x * 1e4) / 1e4;

function indexDoc(row: IndexRow): KeywordDoc {
  return keywordDoc(row.seq, row.agent_id, row.project, row);
}

/** What the keyword index holds for a memory: its columns, from its text as stored. */
function keywordDoc(seq: number, agentId: string, project: string | null, text: KeywordText): KeywordDoc {
  return { seq, agentId, project, columns: keywordColumns(text.content, text.tags, text.hints) };
}

function toResult(row: CandidateRow, score: number, matchedBy: MatchedBy, ownEvidence: boolean): RecallResult {
  const rounded = round4(score);
  return {
    id: row.id,
    content: row.content,
    score: rounded,
    type: row.type,
    tags: JSON.parse(row.tags) as string[],
    importance: row.importance,
    pinned: row.pinned === 1,
    who: row.who,
    project: row.project,
    createdAt: row.created_at,
    matchedBy,
    confidence: confidenceOf(rounded, ownEvidence),
  };
}
