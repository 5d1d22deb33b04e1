// Document sources (docs/api.md#sources): adding a file or directory, syncing, removing, listing, and
// searching their chunks. The daemon reads the files itself, as the owner, so the routes that name
// paths need the owner's credential (src/server/guard.ts), and it reads only regular files inside
// the source, never through a link out of it (read.ts). A file is parsed again only when it
// changed: same size and mtime skip it unread, the same content hash skips it unparsed. Chunks are
// keyword-searchable once their batch commits; vectors follow in the background (the embedding worker's loop, vectors.ts).
// The store is the daemon's SQLite file or a PostgreSQL database several daemons share
// (postgres-store.ts says what they share); a daemon following the latter's change feed keeps its
// keyword index and vectors in step with the chunks the others write (followStored). The daemon's
// data directory is never a source nor read as part of one (files/data-dir.ts): an add of it or of
// anything in it is refused, a walk leaves it out, and what a store took of it before is dropped.
import { byTerm } from "../search/term-positions";
import { DATA_DIR_REASON, dataDirPaths, dataDirRefusal, fenceOf, underAny, type DataDirFence } from "../files/data-dir";
import { lstatSync, opendirSync, realpathSync, type Stats } from "node:fs";
import { basename } from "node:path";
import { isWithin } from "../../os/path-within";
import { RECALL_STRONG_SCORE } from "../../contracts/scores";
import type { RecallRequest } from "../../contracts/recall";
import { SignetError, invalidInput, notFound } from "../../contracts/errors";
import type {
  IngestReport,
  SkippedFile,
  SourceAddRequest,
  SourceAddResponse,
  SourceChunkResult,
  SourceFormat,
  SourceRecallResponse,
  SourceSearchRequest,
  SourceSearchResponse,
  SourceSummary,
} from "../../contracts/sources";
import type { Logger } from "../../logger";
import type { EmbeddingWorker } from "../embed/worker";
import { yieldToLoop } from "../event-loop";
import { tokenize } from "../search/fts5-tokenizer";
import { KeywordIndex, loadInSteps, type KeywordDoc } from "../search/keyword-index";
import { keywordRelevance, type TermStats } from "../search/scoring";
import { fuse, keywordEvidence, type KeywordEvidence } from "../search/fusion";
import { matchOfTerms, queryTerms } from "../search/text";
import { chunkText, type Chunk } from "./chunk";
import { SOURCE_OWNER, SourceVectors } from "./vectors";
import type { TakeOverTiming } from "../cluster/take-over";
import { NotADocument, PDF_LIMITS, byteLimitOf, extractText } from "./extract";
import { PdfExtractor } from "./pdf";
import { errCode, kindOf, probe, readWithin } from "./read";
import { COLUMN_WEIGHTS, type ChunkChange, type ChunkChanges, type ChunkRow, type FileRow, type FileWrite, type IndexedChunk, type SourceRow, type SourceStore } from "./store";
import { foundFile, walkDirectory, type FoundFile } from "./walk";

/** Candidates each search leg contributes before fusion, at least: a larger `limit` takes as many. */
const LEG_DEPTH = 50;
/** Files read and chunked at most before their batch is written in one transaction and the loop yields. */
const FILES_PER_BATCH = 64;
/** Time spent reading and chunking at most before the batch is written and the loop yields. */
const STEP_MS = 50;

export type ProgressListener = (progress: { done: number; total: number; path?: string }) => void;

interface Prepared {
  found: FoundFile;
  format: SourceFormat;
  hash: string;
  chunks: Chunk[];
}

const round2 = (x: number) => Math.round(x * 100) / 100;
const round4 = (x: number) => Math.round(x * 1e4) / 1e4;

function hashOf(...parts: (string | Uint8Array)[]): string {
  const hasher = new Bun.CryptoHasher("sha256");
  for (const p of parts) hasher.update(p);
  return hasher.digest("hex");
}

export class SourceService {
  private readonly vectors: SourceVectors;
  /** Ingestion runs one at a time: two adds of overlapping directories never interleave. */
  private queue: Promise<unknown> = Promise.resolve();
  private stopped = false;
  /**
   * The keyword leg's in-memory index (core/search/keyword-index: FTS5's BM25 over posting lists), as
   * memory recall keeps one; where the store has FTS5 (source_chunks_fts) it answers while the index
   * loads, and for path filters and terms FTS5 reads as phrases.
   */
  private readonly keywords = new KeywordIndex(COLUMN_WEIGHTS);
  private keywordsReady = false;
  /** Settles once the index has loaded (or failed to): without FTS5, searches wait for it. */
  private loaded: Promise<unknown> = Promise.resolve();
  private readonly pdf = new PdfExtractor(PDF_LIMITS);
  /** The data directory's paths, as configured and resolved: no search answers a chunk of a file there. */
  private readonly dataDirPaths: string[];

  constructor(
    readonly store: SourceStore,
    private readonly embeddings: EmbeddingWorker | null,
    private readonly log?: Logger,
    /** On a shared store: when chunks other daemons left unembedded are taken over. */
    takeOver?: TakeOverTiming,
    /** The daemon's data directory (SIGNET_PATH): never read, whatever source holds it. */
    private readonly dataDir: string | null = null,
  ) {
    this.vectors = new SourceVectors(store, log, takeOver);
    // Its paths alone: a fence, which notes the identities of everything in it, is made per pass.
    this.dataDirPaths = dataDir ? dataDirPaths(dataDir) : [];
  }

  /** The data directory as an add, a sync or a start sees it now (its identities taken once per pass). */
  private fence(): DataDirFence | null {
    return fenceOf(this.dataDir);
  }

  /** Starts background embedding and loads the keyword index in steps, yielding between them. */
  async start(): Promise<number> {
    const worker = this.embeddings;
    if (worker && worker.provider !== "none") this.vectors.start((queue) => worker.serve(queue));
    // Before the index loads: what an earlier version took of the data directory never enters it.
    await this.dropDataDir().catch((err) => this.log?.error(`sources: dropping the files of the Signet data directory failed (a sync drops them): ${(err as Error).message}`));
    const loading = loadInSteps(this.keywords, (after, n) => this.store.indexChunk(after, n), indexDoc, () => this.stopped);
    this.loaded = loading.catch(() => false);
    this.keywordsReady = await loading;
    return this.keywords.size;
  }

  /** Follows a chunk another daemon sharing the store wrote, removed or embedded (postgres-feed.ts), as it is now. */
  followStored(change: ChunkChange): void {
    if (change.columns) this.keywords.set(indexDoc({ seq: change.seq, columns: change.columns }));
    else this.keywords.remove(change.seq);
    this.vectors.followStored(change);
  }

  /**
   * New adds and syncs are refused, and one in progress ends after the file it reads: its request
   * then answers 503, and jobs queued behind it do not start.
   */
  halt(): void {
    this.stopped = true;
    this.pdf.close();
  }

  async stop(): Promise<void> {
    this.halt();
    await this.queue.catch(() => undefined);
    this.vectors.stop();
  }

  async list(): Promise<SourceSummary[]> {
    return Promise.all((await this.store.allSources()).map((s) => this.summary(s)));
  }

  /**
   * Adds a file or directory (an existing source is synced, with the new glob when one is given).
   * `onOpened` hears whether the source is new once that is decided, in its turn after the jobs before it.
   */
  add(req: SourceAddRequest, onProgress?: ProgressListener, onOpened?: (created: boolean) => void): Promise<SourceAddResponse> {
    return this.serially(async () => {
      const { kind, path } = this.checkAdd(req);
      const { row, created } = await this.store.openSource(path, kind, req.glob ?? null, new Date().toISOString());
      onOpened?.(created);
      if (!created && req.glob !== undefined) await this.store.updateSource(row.id, req.glob, row.synced_at);
      const report = await this.ingest(await this.sourceOrThrow(row.id), "add", onProgress);
      return { ...report, created };
    });
  }

  /**
   * What `add` refuses, checked before any work starts: returns what the path is, and the path the
   * source is kept under, its links resolved (later reads refuse a link: ingest's sourceStats).
   */
  checkAdd(req: SourceAddRequest): { kind: "file" | "dir"; path: string } {
    const { path, stats } = checkedPath(req.path);
    const fence = this.fence();
    if (fence?.holds(path)) throw invalidInput(`path: ${dataDirRefusal(req.path, path, fence)}`);
    const kind = stats.isDirectory() ? "dir" : "file";
    if (kind === "file" && req.glob !== undefined) throw invalidInput(`glob: applies to a directory only; ${req.path} is a file`);
    return { kind, path };
  }

  /** Throws not_found unless source `id` exists. */
  async checkSync(id: number | undefined): Promise<void> {
    if (id !== undefined) await this.sourceOrThrow(id);
  }

  /** Re-checks one source or all: changed and new files are parsed, deleted ones leave. `onStarted`: its turn came. */
  sync(id: number | undefined, onProgress?: ProgressListener, onStarted?: () => void): Promise<{ reports: IngestReport[] }> {
    return this.serially(async () => {
      const rows = id === undefined ? await this.store.allSources() : [await this.sourceOrThrow(id)];
      onStarted?.();
      const reports: IngestReport[] = [];
      for (const row of rows) reports.push(await this.ingest(row, "sync", onProgress));
      return { reports };
    });
  }

  remove(id: number): Promise<{ removed: SourceSummary }> {
    return this.serially(async () => {
      const row = await this.sourceOrThrow(id);
      const summary = await this.summary(row);
      this.applied({ removed: await this.store.deleteSource(id), added: [] });
      return { removed: summary };
    });
  }

  /**
   * Recall with `sourceOnly` (SPEC §5): this search, answered in recall's envelope with chunk rows
   * `{id, path, startLine, endLine, content, score}` in place of memories.
   */
  async recall(req: RecallRequest): Promise<SourceRecallResponse> {
    const given = MEMORY_ONLY_FIELDS.filter((f) => req[f] !== undefined);
    if (given.length > 0) throw invalidInput(`${given.join(", ")}: memory filters do not apply with sourceOnly (document chunks have none)`);
    // Chunks keep source search's own cut: a recall gives no minimum only to see weak memories.
    const answer = await this.search({ query: req.query, limit: req.limit, minScore: req.minScore ?? RECALL_STRONG_SCORE }, req.keywordQuery);
    return { results: answer.results, supporting: [], meta: answer.meta };
  }

  /** `keywordQuery` replaces the query for the keyword leg only (recall's field of that name). */
  async search(req: SourceSearchRequest, keywordQuery?: string): Promise<SourceSearchResponse> {
    const started = performance.now();
    const depth = Math.max(LEG_DEPTH, req.limit);
    const keyword = await this.keywordLeg(keywordQuery ?? req.query, depth, req.path);
    const { hits: vectorHits, embedding } = await this.vectorLeg(req.query, depth, req.path, keyword.hits);
    const among = await this.store.chunksAmong([...new Set([...keyword.hits, ...vectorHits].map((h) => h.seq))]);
    // A chunk of the data directory that a store still holds (taken before it was left out, not yet
    // dropped at start, or written by another daemon sharing the store) is never answered.
    const rows = new Map<number, ChunkRow>(among.filter((r) => !this.inDataDir(r.path)).map((r) => [r.seq, r]));
    const kwHits = keyword.hits.filter((h) => rows.has(h.seq));
    const vecHits = vectorHits.filter((h) => rows.has(h.seq));
    // The same query-adaptive fusion as memory recall: a chunk holding the query's rare words or its
    // identifier ranks by them, and a question in other words than the text leans on the vectors.
    const ranked = fuse({ keyword: kwHits, keywordRelevance: keyword.relevance, evidence: keyword.evidence, vector: vecHits, provider: this.embeddings?.provider ?? "none" })
      .map((f) => ({ row: rows.get(f.seq)!, rank: f.order, relevance: f.relevance, matchedBy: f.matchedBy }))
      .sort((a, b) => b.rank - a.rank || inFileOrder(a.row, b.row));
    // As in memory recall (docs/api.md#scores): ranked by the fused order, each score its calibrated
    // relevance capped by the one above it, cut at the minimum.
    let cap = 1;
    const results: SourceChunkResult[] = [];
    let relevant = 0;
    for (const r of ranked) {
      cap = Math.min(cap, round4(r.relevance));
      if (cap < req.minScore) break;
      relevant++;
      if (results.length < req.limit) results.push(toResult(r.row, cap, r.matchedBy));
    }
    return {
      results,
      meta: {
        method: vecHits.length > 0 ? (kwHits.length > 0 ? "hybrid" : "vector") : "keyword",
        tookMs: round2(performance.now() - started),
        candidates: ranked.length,
        embedding,
        minScore: req.minScore,
        belowMinScore: ranked.length - relevant,
      },
    };
  }

  /**
   * BM25 over the in-memory index, as memory recall's keyword leg does. Where the store has FTS5, FTS5
   * answers while the index loads, for a path filter, and for terms FTS5 reads as phrases (snake_case);
   * without it the index answers every leg once it has loaded, a phrase's tokens taken as terms. With
   * each hit's calibrated relevance and the leg's evidence for weighing the legs (search/fusion.ts).
   */
  private async keywordLeg(
    query: string,
    depth: number,
    path?: string,
  ): Promise<{ hits: { seq: number; raw: number }[]; relevance: Map<number, number>; evidence: KeywordEvidence }> {
    const terms = queryTerms(query);
    if (terms.length === 0) return { hits: [], relevance: new Map(), evidence: { best: 0, identifier: false } };
    const fts = this.store.fts;
    if (!fts) await this.loaded;
    const tokens = terms.map((t) => tokenize(t));
    let hits: { seq: number; raw: number }[];
    let stats: TermStats;
    let matched: Map<number, number[]>;
    if (!fts || (this.keywordsReady && path === undefined && tokens.every((t) => t.length <= 1))) {
      const flat = tokens.flat();
      // Positions in `flat` are tokens; a term of several tokens (only without FTS5) counts as one.
      const perTerm = byTerm(tokens.filter((t) => t.length > 0), 0);
      ({ hits, stats } = await this.indexHits(flat, depth, path));
      stats = { n: stats.n, df: perTerm.frequencies(stats.df) };
      matched = perTerm.matched(this.keywords.matchedTerms(flat, hits.map((h) => h.seq)));
    } else {
      hits = fts.ftsTop(matchOfTerms(terms), depth, path).map((h) => ({ seq: h.seq, raw: -h.score }));
      // A term with no token matches nothing and carries no weight.
      const matches = terms.filter((_, i) => tokens[i]!.length > 0).map((t) => matchOfTerms([t]));
      stats = fts.termStats(matches, path);
      matched = fts.matchedTerms(matches, hits.map((h) => h.seq));
    }
    const relevanceOf = keywordRelevance(stats);
    const relevance = new Map(hits.map((h) => [h.seq, relevanceOf(matched.get(h.seq) ?? [])]));
    // Matched positions count the terms that have a token, in order (both branches above).
    return { hits, relevance, evidence: keywordEvidence(query, terms, tokens, relevance, matched) };
  }

  /**
   * The index's best `depth` chunks for `tokens`, with the term statistics they are weighed by; under `path`,
   * as FTS5's joined query answers: every match scored over all chunks, those elsewhere left out, and
   * the statistics those of the chunks under it.
   */
  private async indexHits(tokens: string[], depth: number, path?: string): Promise<{ hits: { seq: number; raw: number }[]; stats: TermStats }> {
    const scope = { agentIds: [SOURCE_OWNER] };
    if (path === undefined) {
      const hits = this.keywords.search(tokens, depth, scope).map((h) => ({ seq: h.seq, raw: h.score }));
      return { hits, stats: { n: this.keywords.size, df: this.keywords.documentFrequencies(tokens) } };
    }
    const under = await this.store.seqsUnder(path);
    const allowed = new Set(under);
    const hits = this.keywords
      .search(tokens, this.keywords.size, scope)
      .filter((h) => allowed.has(h.seq))
      .slice(0, depth)
      .map((h) => ({ seq: h.seq, raw: h.score }));
    const df = tokens.map(() => 0);
    for (const held of this.keywords.matchedTerms(tokens, under).values()) for (const i of held) df[i]!++;
    return { hits, stats: { n: under.length, df } };
  }

  /**
   * Empty while a keyword candidate still waits for its vector (a source just added or changed): next
   * to embedded chunks it would rank as if its meaning matched nothing, and a weak vector-only match
   * ranked above it would cap its score under the minimum. Its words answer until it has one.
   */
  private async vectorLeg(
    query: string,
    depth: number,
    path: string | undefined,
    keywordHits: { seq: number }[],
  ): Promise<{ hits: { seq: number; raw: number }[]; embedding: SourceSearchResponse["meta"]["embedding"] }> {
    if (!this.embeddings || this.embeddings.provider === "none") return { hits: [], embedding: "disabled" };
    const index = this.vectors.vectors;
    // No chunk embedded yet: nothing to compare a query vector with, so none is computed.
    if (!index || index.count === 0 || keywordHits.some((h) => this.vectors.waiting(h.seq))) {
      return { hits: [], embedding: this.vectors.model ? "ok" : "unavailable" };
    }
    const release = this.embeddings.holdForRecall();
    let vector: Float32Array | null;
    try {
      vector = await this.embeddings.embedQuery(query);
    } finally {
      release();
    }
    if (!vector) return { hits: [], embedding: "unavailable" };
    if (index.dimensions !== vector.length) return { hits: [], embedding: "ok" };
    const allowed = path === undefined ? undefined : new Set(await this.store.seqsUnder(path));
    const hits = index.search(vector, { k: depth, owners: new Set([index.ownerCode(SOURCE_OWNER)]), allowed });
    return { hits: hits.filter((h) => h.score > 0).map((h) => ({ seq: h.seq, raw: h.score })), embedding: "ok" };
  }

  /** Whether `path` (a file's, as stored) is in the data directory as written: no I/O. */
  private inDataDir(path: string): boolean {
    return underAny(path, this.dataDirPaths);
  }

  /**
   * Drops the files of the data directory that sources took before it was left out (a source of a
   * parent of it, the home directory), with their chunks and vectors, and logs it. Only sources
   * that hold it or are in it, by path, are looked at; a bind mount of it leaves at the next sync.
   */
  private dropDataDir(): Promise<void> {
    if (this.dataDirPaths.length === 0) return Promise.resolve();
    return this.serially(async () => {
      for (const source of await this.store.allSources()) {
        if (!this.dataDirPaths.some((p) => isWithin(p, source.path) || isWithin(source.path, p))) continue;
        const gone = (await this.store.filesOf(source.id)).filter((f) => this.inDataDir(f.path));
        if (gone.length === 0) continue;
        this.applied(await this.store.writeBatch(source.id, { deleted: gone.map((f) => f.id) }, new Date().toISOString()));
        this.log?.warn(`sources: dropped ${gone.length} file(s) of the Signet data directory from source ${source.id} (${source.path}), taken before it was left out: ${DATA_DIR_REASON}`);
      }
    });
  }

  /** Committed chunk changes reach the keyword index and the chunk vectors. */
  private applied({ removed, added }: ChunkChanges): void {
    for (const seq of removed) this.keywords.remove(seq);
    for (const chunk of added) this.keywords.set(indexDoc(chunk));
    this.vectors.changed(removed, added.map((c) => c.seq));
  }

  private summary(row: SourceRow): Promise<SourceSummary> {
    return this.store.summary(row, this.vectors.current);
  }

  private async sourceOrThrow(id: number): Promise<SourceRow> {
    const row = await this.store.sourceById(id);
    if (!row) throw notFound(`source ${id}`);
    return row;
  }

  /** Runs ingestion jobs one at a time, background embedding held meanwhile. */
  private serially<T>(job: () => Promise<T>): Promise<T> {
    if (this.stopped) return Promise.reject(new SignetError("unavailable", "the daemon is stopping"));
    const held = async () => {
      // Its turn came after the stop began: it does not start.
      if (this.stopped) throw new SignetError("unavailable", "the daemon is stopping");
      const release = this.vectors.hold();
      try {
        return await job();
      } finally {
        release();
      }
    };
    const run = this.queue.then(held, held);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** One pass over a source; the PDF worker it may start ends with it. */
  private async ingest(source: SourceRow, job: Job, onProgress?: ProgressListener): Promise<IngestReport> {
    try {
      return await this.ingestFiles(source, job, onProgress);
    } finally {
      this.pdf.close();
    }
  }

  /**
   * New and changed files parsed, unchanged ones skipped, vanished ones removed. Cut short by the
   * daemon's stop, it throws `unavailable`: the files it committed stay, and the source is not
   * recorded as synced, nor anything removed, since what it did not read was not looked at.
   */
  private async ingestFiles(source: SourceRow, job: Job, onProgress?: ProgressListener): Promise<IngestReport> {
    const started = performance.now();
    const skipped: SkippedFile[] = [];
    let found: FoundFile[] = [];
    // Paths that are there but could not be listed or looked at: the files under them were not seen, and stay.
    const unseen: string[] = [];
    const fence = this.fence();
    if (this.stopped) throw interrupted(job, source.path);
    try {
      const stats = sourceStats(source);
      // A source in the data directory (added before that was refused) syncs to nothing: its chunks
      // leave, on a shared store too.
      if (fence?.holds(source.path)) skipped.push({ path: source.path, reason: `${source.path} is in the Signet data directory: ${DATA_DIR_REASON}` });
      else if (source.kind === "dir") {
        const walked = await walkDirectory(source.path, source.glob, fence);
        found = walked.files;
        skipped.push(...walked.skipped);
        unseen.push(...walked.unlisted);
      } else found = [foundFile(source.path, basename(source.path), { readPath: source.path, stats })];
    } catch (err) {
      if (!(err instanceof SignetError)) throw err;
      const reason = err.message.replace(/^path: /, "");
      // On a shared store the source may be on another daemon's machine: kept as it is, said so.
      if (this.store.shared) {
        skipped.push({ path: source.path, reason: `${reason} on this daemon's machine: the source is kept as it is (sync it through a daemon that sees it, or remove it)` });
        return { source: await this.summary(source), scanned: 0, parsed: 0, unchanged: 0, removed: 0, chunks: 0, skipped, tookMs: round2(performance.now() - started) };
      }
      // A source gone from disk is synced to nothing: its files' chunks leave. One that cannot be
      // looked at (EACCES, EIO) keeps them, as an unreadable file keeps its own.
      if (err instanceof UnreadablePath) unseen.push(source.path);
      skipped.push({ path: source.path, reason });
    }
    const known = new Map<string, FileRow>((await this.store.filesOf(source.id)).map((f) => [f.path, f]));
    for (const path of known.keys()) if (unseen.some((dir) => isWithin(path, dir))) known.delete(path);
    const counts = { parsed: 0, unchanged: 0, removed: 0, chunks: 0 };
    const total = found.length;
    onProgress?.({ done: 0, total });
    let next = 0;
    while (next < found.length && !this.stopped) {
      const stepStarted = performance.now();
      const prepared: Prepared[] = [];
      const touched: { id: number; size: number; mtimeMs: number }[] = [];
      // A step ends after FILES_PER_BATCH files or STEP_MS of reading and chunking, whichever comes
      // first, so the daemon answers other requests between steps even on large or slow files.
      for (let taken = 0; next < found.length && !this.stopped && taken < FILES_PER_BATCH && performance.now() - stepStarted < STEP_MS; taken++) {
        const file = found[next++]!;
        let mine = known.get(file.path);
        known.delete(file.path);
        if (!mine) {
          const other = await this.store.fileByPath(file.path);
          if (other && other.source_id !== source.id) {
            skipped.push({ path: file.path, reason: `already part of source ${other.source_id}` });
            continue;
          }
          // This source's file all the same: another daemon sharing the store wrote it since the files were listed.
          mine = other ?? undefined;
        }
        if (mine && mine.size === file.size && mine.mtime_ms === file.mtimeMs) {
          counts.unchanged++;
          continue;
        }
        let bytes: Uint8Array;
        try {
          // The source's own path is its root: a file source's file, or the directory walked.
          bytes = readWithin(file.readPath, source.path, byteLimitOf(file.path), file.stats, fence);
        } catch (err) {
          if (!(err instanceof NotADocument)) {
            skipped.push({ path: file.path, reason: `cannot read it (${errCode(err)})` });
            continue;
          }
          skipped.push({ path: file.path, reason: err.message });
          // What is at its path now is not taken: a file taken before leaves with its chunks.
          if (mine) known.set(file.path, mine);
          continue;
        }
        const hash = hashOf(bytes);
        if (mine && mine.content_hash === hash) {
          touched.push({ id: mine.id, size: file.size, mtimeMs: file.mtimeMs });
          counts.unchanged++;
          continue;
        }
        try {
          const extracted = await extractText(file.path, bytes, this.pdf);
          const chunks = chunkText(extracted.text, extracted.format, extracted.pageStarts);
          prepared.push({ found: file, format: extracted.format, hash, chunks });
        } catch (err) {
          if (!(err instanceof NotADocument)) throw err;
          skipped.push({ path: file.path, reason: err.message });
          // A file that was a document and no longer is leaves with its chunks.
          if (mine) known.set(file.path, mine);
        }
      }
      const written = prepared.map(
        (p): FileWrite => ({
          ...p.found,
          format: p.format,
          hash: p.hash,
          chunks: p.chunks.map((c) => ({ ...c, id: hashOf(p.found.path, "\0", `${c.startLine}:${c.endLine}`, "\0", c.content).slice(0, 24) })),
        }),
      );
      if (touched.length > 0 || written.length > 0) this.applied(await this.store.writeBatch(source.id, { touched, written }, new Date().toISOString()));
      counts.parsed += written.length;
      for (const w of written) counts.chunks += w.chunks.length;
      onProgress?.({ done: next, total, path: found[next - 1]?.path });
      await yieldToLoop();
    }
    if (next < found.length) throw interrupted(job, source.path);
    if (known.size > 0) {
      this.applied(await this.store.writeBatch(source.id, { deleted: [...known.values()].map((f) => f.id) }, new Date().toISOString()));
      counts.removed = known.size;
    }
    await this.store.updateSource(source.id, source.glob, new Date().toISOString());
    return {
      source: await this.summary(await this.sourceOrThrow(source.id)),
      scanned: total,
      ...counts,
      skipped,
      tookMs: round2(performance.now() - started),
    };
  }
}

/** What a job is, as its errors name it. */
type Job = "add" | "sync";

/** The error of an add or sync that the daemon's stop cut short. */
function interrupted(job: Job, path: string): SignetError {
  return new SignetError("unavailable", `the daemon is stopping; the ${job} did not finish (it stopped at ${path}; the files it read are kept): run it again`);
}

/** A source's path that is there but cannot be looked at (EACCES, EIO): its files are not seen, so not gone. */
class UnreadablePath extends SignetError {
  constructor(message: string) {
    super("invalid_input", message);
  }
}

/**
 * A directory to add is listed (its first entry read) before anything is recorded: one that cannot
 * be (EACCES, EIO) is refused, as a file that cannot be opened is.
 */
function listable(path: string): void {
  const dir = opendirSync(path);
  try {
    dir.readSync();
  } finally {
    dir.closeSync();
  }
}

/**
 * The path to add, its links resolved, with what it is; or a 400 naming what is wrong: missing, not
 * a file or directory, unreadable.
 */
function checkedPath(given: string): { path: string; stats: Stats } {
  let path: string;
  let stats: Stats;
  try {
    path = realpathSync(given);
    stats = lstatSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") throw invalidInput(`path: ${given} does not exist`);
    if (code === "ELOOP") throw invalidInput(`path: ${given} is a symbolic link loop`);
    throw invalidInput(`path: cannot read ${given} (${errCode(err)})`);
  }
  try {
    if (stats.isFile()) stats = probe(path);
    else if (stats.isDirectory()) listable(path);
  } catch (err) {
    throw invalidInput(`path: cannot read ${given} (${errCode(err)})`);
  }
  if (!stats.isFile() && !stats.isDirectory()) throw invalidInput(`path: ${given} is ${kindOf(stats)}, not a file or directory`);
  return { path, stats };
}

/**
 * A source's path as it was added: still a file or directory as it was, and reached without a link
 * (an add resolved its links; one appearing since, in it or on its way, is refused).
 */
function sourceStats(source: SourceRow): Stats {
  const { path } = source;
  let stats: Stats;
  let real: string;
  try {
    stats = lstatSync(path);
    real = stats.isSymbolicLink() ? path : realpathSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") throw invalidInput(`path: ${path} does not exist`);
    throw new UnreadablePath(`path: cannot read ${path} (${errCode(err)})`);
  }
  if (stats.isSymbolicLink()) throw invalidInput(`path: ${path} is now a symbolic link (links are resolved once, when a source is added)`);
  if (real !== path) throw invalidInput(`path: ${path} now leads to ${real} (a directory on its way became a symbolic link)`);
  if ((source.kind === "dir") !== stats.isDirectory() || (source.kind === "file" && !stats.isFile())) {
    throw invalidInput(`path: ${path} is no longer a ${source.kind === "dir" ? "directory" : "file"}`);
  }
  return stats;
}

function indexDoc(chunk: IndexedChunk): KeywordDoc {
  return { seq: chunk.seq, agentId: SOURCE_OWNER, project: null, columns: chunk.columns };
}

/** Chunks ranked alike in a stable order: by file, then by place in the file (seqs change when a file is parsed again). */
function inFileOrder(a: ChunkRow, b: ChunkRow): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : a.ordinal - b.ordinal;
}

function toResult(row: ChunkRow, score: number, matchedBy: SourceChunkResult["matchedBy"]): SourceChunkResult {
  return {
    id: row.id,
    path: row.path,
    startLine: row.start_line,
    endLine: row.end_line,
    content: row.content,
    score,
    heading: row.heading,
    matchedBy,
  };
}

/** Recall's filters that only memories have: with `sourceOnly` they are refused rather than ignored. */
const MEMORY_ONLY_FIELDS = ["project", "type", "tags", "who", "since", "until", "pinned", "importanceMin", "aggregate"] as const;


