// The parsing threads of one `signet index` run (docs/code.md#where-it-runs): tree-sitter is the
// bulk of an index run's CPU, so files are handed to workers (parse-worker.ts), each kept busy with a
// few files in flight, while the calling thread hashes files and writes SQLite.
import { availableParallelism } from "node:os";
import type { ParseJob, ParseResult } from "./parse-file";

/**
 * Each worker compiles the grammars and warms up the engine again (about 1.5 s of CPU on this
 * repository): fewer files than this do not pay for another worker.
 */
const FILES_PER_WORKER = 250;
/** Files sent ahead to a worker, so it keeps parsing while the calling thread writes a batch to SQLite. */
const IN_FLIGHT = 8;

interface Slot {
  worker: Worker;
  inFlight: number;
}

/** Parses `jobs` on worker threads; `onResult` sees each result as it arrives (in no set order). */
export async function parseInWorkers(jobs: ParseJob[], onResult: (result: ParseResult) => void): Promise<void> {
  if (jobs.length === 0) return;
  // One core is left to this thread's SQLite writes and the engine's compiler threads: on two cores,
  // a second parsing thread costs more in duplicated warm-up than it saves.
  const count = Math.max(1, Math.min(availableParallelism() - 1, Math.ceil(jobs.length / FILES_PER_WORKER)));
  const queue = jobs.values();
  const slots: Slot[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      let outstanding = jobs.length;
      const feed = (slot: Slot) => {
        while (slot.inFlight < IN_FLIGHT) {
          const next = queue.next();
          if (next.done) return;
          slot.inFlight++;
          slot.worker.postMessage(next.value);
        }
      };
      for (let i = 0; i < count; i++) {
        const slot: Slot = { worker: new Worker(new URL("./parse-worker.ts", import.meta.url)), inFlight: 0 };
        slot.worker.onmessage = (event: MessageEvent<ParseResult>) => {
          slot.inFlight--;
          try {
            onResult(event.data);
          } catch (err) {
            return reject(err);
          }
          if (--outstanding === 0) return resolve();
          feed(slot);
        };
        // A worker that cannot start or dies fails the run: its files would otherwise never come back.
        slot.worker.onerror = (event) => reject(new Error(`a parsing thread failed: ${event.message}`));
        slots.push(slot);
        feed(slot);
      }
    });
  } finally {
    for (const slot of slots) slot.worker.terminate();
  }
}
