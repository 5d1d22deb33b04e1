// The embedder: tokenizes on the caller's thread, cuts work into chunks and feeds them to the
// leader one at a time, smaller requests first, so a query is not stuck behind a large batch.
import type { Embedder } from "../types";
import { CTRL_INTS, CTRL_OP_EXIT, type Layout } from "./layout";
import { CHUNK_TOKENS, MAX_SENTENCES } from "./limits";
import type { Tokenizer } from "./tokenizer";

export const BUILTIN_MODEL = "use-lite-512";
export const BUILTIN_DIMENSIONS = 512;

/** Bun's Worker also has ref()/unref() (the DOM typing does not). */
export type BunWorker = Worker & { ref(): void; unref(): void };

interface Job {
  chunks: { ids: Int32Array; lengths: Int32Array; first: number }[];
  next: number;
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
  private inFlight: { job: Job; chunk: number; id: number } | null = null;
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

  /** Token ids of a text (exported for tests and tools). */
  tokenize(text: string): number[] {
    return this.tokenizer.encode(text);
  }

  embed(texts: string[]): Promise<Float32Array[]> {
    if (this.closed) return Promise.reject(new Error("builtin embedder is closed"));
    if (this.failure) return Promise.reject(this.failure);
    if (texts.length === 0) return Promise.resolve([]);
    const tokenized = texts.map((t) => this.tokenizer.encode(t));
    const chunks: Job["chunks"] = [];
    for (let i = 0; i < tokenized.length; ) {
      const first = i;
      let tokens = 0;
      while (i < tokenized.length && i - first < MAX_SENTENCES && (i === first || tokens + tokenized[i]!.length <= CHUNK_TOKENS)) {
        tokens += tokenized[i]!.length;
        i++;
      }
      const ids = new Int32Array(tokens);
      const lengths = new Int32Array(i - first);
      for (let j = first, at = 0; j < i; j++) {
        ids.set(tokenized[j]!, at);
        at += tokenized[j]!.length;
        lengths[j - first] = tokenized[j]!.length;
      }
      chunks.push({ ids, lengths, first });
    }
    return new Promise((resolve, reject) => {
      this.jobs.push({ chunks, next: 0, remaining: chunks.length, results: new Array(texts.length), resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    if (this.inFlight || this.closed) return;
    // the waiting job with the fewest chunks left goes first (FIFO among equals)
    let pick: Job | null = null;
    for (const job of this.jobs) {
      if (job.next < job.chunks.length && (!pick || job.chunks.length - job.next < pick.chunks.length - pick.next)) pick = job;
    }
    if (!pick) {
      this.workers[0]!.unref();
      return;
    }
    this.workers[0]!.ref();
    const chunk = pick.next++;
    const id = this.nextId++;
    this.inFlight = { job: pick, chunk, id };
    const { ids, lengths } = pick.chunks[chunk]!;
    this.workers[0]!.postMessage({ type: "embed", id, ids, lengths });
  }

  private onLeaderMessage(msg: { type: string; id: number; vectors?: Float32Array; message?: string }): void {
    const current = this.inFlight;
    if (!current || msg.id !== current.id) return;
    this.inFlight = null;
    const { job, chunk } = current;
    if (msg.type === "vectors") {
      const { first, lengths } = job.chunks[chunk]!;
      for (let n = 0; n < lengths.length; n++) job.results[first + n] = msg.vectors!.slice(n * 512, (n + 1) * 512);
      if (--job.remaining === 0) {
        this.jobs.splice(this.jobs.indexOf(job), 1);
        job.resolve(job.results);
      }
    } else {
      this.jobs.splice(this.jobs.indexOf(job), 1);
      job.reject(new Error(`builtin embedder: ${msg.message}`));
    }
    this.pump();
  }

  private fail(err: Error): void {
    this.failure = err;
    for (const job of this.jobs.splice(0)) job.reject(err);
    this.inFlight = null;
    this.workers[0]!.unref();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // helpers leave their wait loop on OP_EXIT, then every worker is ended
    const ctrl = new Int32Array(this.memory.buffer, this.layout.ctrl, CTRL_INTS);
    Atomics.store(ctrl, 1, CTRL_OP_EXIT);
    Atomics.add(ctrl, 0, 1 << 20);
    Atomics.notify(ctrl, 0);
    for (const w of this.workers) w.terminate();
    for (const job of this.jobs.splice(0)) job.reject(new Error("builtin embedder was closed"));
    this.inFlight = null;
  }
}
