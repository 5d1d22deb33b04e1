// The parsing threads of one `signet index` run (docs/code.md#where-it-runs): tree-sitter is the
// bulk of an index run's CPU, so files are handed to workers (parse-worker.ts) while the calling
// thread hashes files and writes SQLite.
//
// Each worker gets its whole share of the files in one message and parses them back to back: a
// worker fed a few files at a time sat idle whenever the calling thread was inside a write
// transaction (about a quarter of a run on two cores).
import { availableParallelism } from "node:os";
import type { ParseJob, ParseResult } from "./parse-file";

/**
 * Each worker compiles the grammars and warms up the engine again (about a second of CPU on this
 * repository): fewer files than this do not pay for another worker.
 */
const FILES_PER_WORKER = 250;

/** Parses `jobs` on worker threads; `onResult` sees each result as it arrives (in no set order). */
export async function parseInWorkers(jobs: ParseJob[], onResult: (result: ParseResult) => void): Promise<void> {
  if (jobs.length === 0) return;
  // One thread per FILES_PER_WORKER files, leaving a core to the calling thread.
  const count = Math.max(1, Math.min(availableParallelism() - 1, Math.ceil(jobs.length / FILES_PER_WORKER)));
  const workers: Worker[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      let outstanding = jobs.length;
      for (const share of balance(jobs, count)) {
        const worker = new Worker(new URL("./parse-worker.ts", import.meta.url));
        workers.push(worker);
        worker.onmessage = (event: MessageEvent<ParseResult>) => {
          try {
            onResult(event.data);
          } catch (err) {
            return reject(err);
          }
          if (--outstanding === 0) resolve();
        };
        // A worker that cannot start or dies fails the run: its files would otherwise never come back.
        worker.onerror = (event) => reject(new Error(`a parsing thread failed: ${event.message}`));
        worker.postMessage(share);
      }
    });
  } finally {
    for (const worker of workers) worker.terminate();
  }
}

/**
 * `jobs` in `n` shares of about equal bytes, each job to the lightest share so far. In the given
 * order, not largest first: the first files run while the engine is still cold, and large ones then
 * cost the most.
 */
function balance(jobs: ParseJob[], n: number): ParseJob[][] {
  const shares = Array.from({ length: n }, () => ({ jobs: [] as ParseJob[], bytes: 0 }));
  for (const job of jobs) {
    const lightest = shares.reduce((a, b) => (b.bytes < a.bytes ? b : a));
    lightest.jobs.push(job);
    lightest.bytes += job.size;
  }
  return shares.map((s) => s.jobs);
}
