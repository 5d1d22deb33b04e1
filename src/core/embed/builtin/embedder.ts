// The embedder: tokenizes on the caller's thread and feeds the leader chunks, cut when they are sent:
// queries go first, and while recalls are being asked background work goes in small chunks, so a
// query waits behind little work.
import type { Embedder } from "../types";
import { CTRL_CALLER_BUSY, CTRL_DEFER_BACKGROUND, CTRL_INTS, CTRL_OP_EXIT, type Layout } from "./layout";
import { BUSY_CHUNK_TOKENS, CHUNK_TOKENS, MAX_SENTENCES } from "./limits";
import type { Tokenizer } from "./sentencepiece";

export const BUILTIN_MODEL = "use-lite-512";
export const BUILTIN_DIMENSIONS = 512;
/** How long after a query background work stays in small chunks. */
const BUSY_WINDOW_MS = 2000;
/**
 * How long after a query no background chunk starts: a forward pass costs about the same whatever
 * its size (the weights are read either way), so a query that arrives behind one waits a whole
 * pass. Queries asked back to back (an agent's searches, a benchmark) then never wait on background
 * work; background embedding goes on in their gaps.
 */
const QUERY_QUIET_MS = 50;
/** ...but never stalls: at least one background chunk this often, however busy the queries. */
const BACKGROUND_EVERY_MS = 500;
/**
 * Background chunks sent to the leader and not answered yet, at most. With two, the next waits in
 * the leader's queue and starts as soon as the pass before it ends, not after a round trip through
 * this thread (batches of 16 texts ~5% faster). A query sent meanwhile makes the leader hand back
 * (defer) a background chunk it has not started, so it still waits behind one pass at most.
 */
const MAX_BACKGROUND_IN_FLIGHT = 2;

/** Bun's Worker also has ref()/unref() (the DOM typing does not). */
export type BunWorker = Worker & { ref(): void; unref(): void };

interface Job {
  query: boolean;
  tokenized: number[][];
  /** The next text to send. */
  next: number;
  /** Chunks (first text, count) the leader deferred, to send again. */
  retry: [number, number][];
  /** Texts still without a vector. */
  remaining: number;
  results: Float32Array[];
  resolve: (v: Float32Array[]) => void;
  reject: (e: Error) => void;
}

export class BuiltinEmbedder implements Embedder {
  readonly provider = "builtin";
  readonly model = BUILTIN_MODEL;
  readonly dimensions = BUILTIN_DIMENSIONS;
  private readonly jobs: Job[] = [];
  private readonly inFlight = new Map<number, { job: Job; first: number; count: number }>();
  private lastQueryAt = -Infinity;
  private lastBackgroundAt = -Infinity;
  private quietTimer: ReturnType<typeof setTimeout> | undefined;
  private nextId = 1;
  private closed = false;
  private failure: Error | null = null;

  constructor(
    private readonly tokenizer: Tokenizer,
    private readonly workers: BunWorker[],
    private readonly memory: WebAssembly.Memory,
    private readonly layout: Layout,
  ) {
    const leader = workers[0]!;
    leader.onmessage = (event: MessageEvent) => this.onLeaderMessage(event.data);
    for (const w of workers) {
      w.onerror = (event: ErrorEvent) => this.fail(new Error(`builtin embedder worker failed: ${event.message}`));
      // Idle workers do not keep the process alive; the leader is ref'd while work is pending.
      w.unref();
    }
  }

  /** See Embedder.callerBusy: the compute threads read it before each step of a pass (worker-main.ts). */
  callerBusy(busy: boolean): void {
    Atomics.store(this.control(), CTRL_CALLER_BUSY, busy ? 1 : 0);
  }

  /** Token ids of a text (exported for tests and tools). */
  tokenize(text: string): number[] {
    return this.tokenizer.encode(text);
  }

  embed(texts: string[], options: { priority?: "query" | "background" } = {}): Promise<Float32Array[]> {
    if (this.closed) return Promise.reject(new Error("builtin embedder is closed"));
    if (this.failure) return Promise.reject(this.failure);
    if (texts.length === 0) return Promise.resolve([]);
    const query = options.priority === "query";
    if (query) this.lastQueryAt = performance.now();
    const tokenized = texts.map((t) => this.tokenizer.encode(t));
    return new Promise((resolve, reject) => {
      this.jobs.push({ query, tokenized, next: 0, retry: [], remaining: texts.length, results: new Array(texts.length), resolve, reject });
      this.pump();
    });
  }

  private control(): Int32Array {
    return new Int32Array(this.memory.buffer, this.layout.ctrl, CTRL_INTS);
  }

  private queryInFlight(): boolean {
    for (const c of this.inFlight.values()) if (c.job.query) return true;
    return false;
  }

  private pump(): void {
    while (!this.closed && this.sendNext());
    if (this.inFlight.size === 0) this.workers[0]!.unref();
  }

  /** Sends the next chunk if one may go now; false when none may. */
  private sendNext(): boolean {
    // Queries first; then the waiting job with the fewest texts left (FIFO among equals).
    let pick: Job | null = null;
    const unsent = (job: Job) => job.tokenized.length - job.next + job.retry.reduce((sum, [, count]) => sum + count, 0);
    for (const job of this.jobs) {
      if (unsent(job) === 0) continue;
      if (!pick || (job.query && !pick.query) || (job.query === pick.query && unsent(job) < unsent(pick))) pick = job;
    }
    if (!pick) return false;
    const queryInFlight = this.queryInFlight();
    if (pick.query) {
      if (queryInFlight) return false;
      // a background chunk waiting in the leader's queue is handed back rather than run first
      if (this.inFlight.size > 0) Atomics.store(this.control(), CTRL_DEFER_BACKGROUND, 1);
    } else {
      if (queryInFlight || this.inFlight.size >= MAX_BACKGROUND_IN_FLIGHT) return false;
      const now = performance.now();
      if (now - this.lastQueryAt < QUERY_QUIET_MS && now - this.lastBackgroundAt < BACKGROUND_EVERY_MS) {
        this.quietTimer ??= setTimeout(() => {
          this.quietTimer = undefined;
          this.pump();
        }, QUERY_QUIET_MS - (now - this.lastQueryAt));
        return false;
      }
      this.lastBackgroundAt = now;
    }
    let first: number;
    let count: number;
    const retry = pick.retry.shift();
    if (retry) [first, count] = retry;
    else {
      const busy = !pick.query && performance.now() - this.lastQueryAt < BUSY_WINDOW_MS;
      const limit = busy ? BUSY_CHUNK_TOKENS : CHUNK_TOKENS;
      first = pick.next;
      let size = 0;
      while (
        pick.next < pick.tokenized.length &&
        pick.next - first < MAX_SENTENCES &&
        (pick.next === first || size + pick.tokenized[pick.next]!.length <= limit)
      ) {
        size += pick.tokenized[pick.next]!.length;
        pick.next++;
      }
      count = pick.next - first;
    }
    let tokens = 0;
    for (let j = 0; j < count; j++) tokens += pick.tokenized[first + j]!.length;
    const ids = new Int32Array(tokens);
    const lengths = new Int32Array(count);
    for (let j = 0, at = 0; j < count; j++) {
      ids.set(pick.tokenized[first + j]!, at);
      at += pick.tokenized[first + j]!.length;
      lengths[j] = pick.tokenized[first + j]!.length;
    }
    const id = this.nextId++;
    this.inFlight.set(id, { job: pick, first, count });
    this.workers[0]!.ref();
    this.workers[0]!.postMessage({ type: "embed", id, ids, lengths, query: pick.query });
    return true;
  }

  private onLeaderMessage(msg: { type: string; id: number; vectors?: Float32Array; message?: string }): void {
    const chunk = this.inFlight.get(msg.id);
    if (!chunk) return;
    this.inFlight.delete(msg.id);
    const { job, first, count } = chunk;
    // a job that failed already ignores the answers of its other chunks
    if (this.jobs.includes(job)) {
      if (msg.type === "deferred") {
        job.retry.push([first, count]);
      } else if (msg.type === "vectors") {
        for (let n = 0; n < count; n++) job.results[first + n] = msg.vectors!.slice(n * 512, (n + 1) * 512);
        job.remaining -= count;
        if (job.remaining === 0) {
          this.jobs.splice(this.jobs.indexOf(job), 1);
          job.resolve(job.results);
        }
      } else {
        this.jobs.splice(this.jobs.indexOf(job), 1);
        job.reject(new Error(`builtin embedder: ${msg.message}`));
      }
    }
    // Every chunk sent before a query is answered before it (the leader takes them in order), so
    // once no query is in flight none is left to defer.
    if (job.query && !this.queryInFlight()) Atomics.store(this.control(), CTRL_DEFER_BACKGROUND, 0);
    this.pump();
  }

  private fail(err: Error): void {
    this.failure = err;
    for (const job of this.jobs.splice(0)) job.reject(err);
    this.inFlight.clear();
    this.workers[0]!.unref();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.quietTimer);
    // helpers leave their wait loop on OP_EXIT, then every worker is ended
    const ctrl = this.control();
    Atomics.store(ctrl, 1, CTRL_OP_EXIT);
    Atomics.add(ctrl, 0, 1 << 20);
    Atomics.notify(ctrl, 0);
    for (const w of this.workers) w.terminate();
    for (const job of this.jobs.splice(0)) job.reject(new Error("builtin embedder was closed"));
    this.inFlight.clear();
  }
}
