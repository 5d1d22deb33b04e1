// The parsing threads of one `signet index` run (docs/code.md#where-it-runs): tree-sitter is the
// bulk of an index run's CPU, so the calling thread parses beside worker threads (parse-worker.ts)
// and writes SQLite between its own files.
//
// Every thread takes the next file from one shared counter, so none sits idle while another has a
// backlog, and all of them use the WebAssembly modules the calling thread compiled: the engine then
// compiles the parser's optimized code once for the run instead of once per thread, which is what
// made a second parsing thread cost more than it gave on two cores.
import { availableParallelism } from "node:os";
import { compiledModules } from "./grammars";
import { parseShare, type ParseJob, type ParseResult, type ParseShare } from "./parse-file";

/** A worker costs its start and the engine's warm-up of the extraction code: fewer files than this per thread do not pay for one. */
const FILES_PER_THREAD = 50;

/** One per core, and one per FILES_PER_THREAD files. */
function threadsFor(files: number): number {
  return Math.max(1, Math.min(availableParallelism(), Math.ceil(files / FILES_PER_THREAD)));
}

/**
 * Parses `jobs` on this thread and worker threads (`threads` in all, this one included);
 * `onResult` sees each result as it arrives (in no set order).
 */
export async function parseInWorkers(jobs: ParseJob[], onResult: (result: ParseResult) => void, threads = threadsFor(jobs.length)): Promise<void> {
  if (jobs.length === 0) return;
  const workers: Worker[] = [];
  const next = new SharedArrayBuffer(4);
  try {
    // The workers start while this thread compiles the modules they are given.
    for (let i = 1; i < threads; i++) workers.push(new Worker(new URL("./parse-worker.ts", import.meta.url)));
    const share: ParseShare = { jobs, next, modules: await compiledModules([...new Set(jobs.map((j) => j.language))]) };
    await new Promise<void>((resolve, reject) => {
      let outstanding = jobs.length;
      const received = (result: ParseResult) => {
        onResult(result);
        if (--outstanding === 0) resolve();
      };
      for (const worker of workers) {
        worker.onmessage = (event: MessageEvent<string>) => {
          try {
            received(JSON.parse(event.data) as ParseResult);
          } catch (err) {
            reject(err);
          }
        };
        // A worker that cannot start or dies fails the run: the file it took would otherwise never come back.
        worker.onerror = (event) => reject(new Error(`a parsing thread failed: ${event.message}`));
        worker.postMessage(share);
      }
      parseShare(share, async (result) => {
        received(result);
        // Lets the workers' results in (and their writes) between this thread's own files.
        await new Promise((next) => setImmediate(next));
      }).catch(reject);
    });
  } finally {
    // A failed run leaves no file to take: this thread's loop stops after the file it is on.
    Atomics.store(new Int32Array(next), 0, jobs.length);
    for (const worker of workers) worker.terminate();
  }
}
