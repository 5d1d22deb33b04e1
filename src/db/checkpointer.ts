// Checkpoints off the event loop. SQLite checkpoints the WAL on the connection whose commit pushes it
// past 1,000 pages, inside that commit: copying the pages and the fsync that ends it held up every
// request meanwhile. The daemon's connection leaves that to checkpoint-worker.ts, a thread with a
// connection of its own. A commit is durable once it is in the WAL (synchronous = NORMAL), so when a
// checkpoint runs changes nothing a client was told.
import type { Database } from "bun:sqlite";

/**
 * What the checkpoint thread is told: start on the database at `path`; checkpoint now and report it
 * done under a ticket (`next`); or stop.
 */
export type CheckpointMessage = { path: string; everyMs: number } | { next: number } | "stop";

/** What it answers: the tickets a finished checkpoint covers, or that it stopped. */
export type CheckpointReport = { done: number[] } | "stopped";

/** SQLite's own default, which the daemon's connection goes back to without the thread. */
const AUTOCHECKPOINT_PAGES = 1000;

export interface Checkpointer {
  /** Has the thread checkpoint now; resolves once that checkpoint, which saw every commit made before this call, is done. */
  next(): Promise<void>;
  /** Ends the thread (its connection closed); the daemon's connection checkpoints on its own again. */
  stop(): Promise<void>;
  /** Ends the thread at once, for a daemon that failed to start (its connection closes next). */
  terminate(): void;
}

/** Hands `db`'s checkpoints (the database at `path`) to a thread that runs one every `everyMs`. */
export function startCheckpointer(db: Database, path: string, onError: (message: string) => void, everyMs = 250): Checkpointer {
  const worker = new Worker(new URL("./checkpoint-worker.ts", import.meta.url));
  // Tickets, not clocks: a ticket reaches the thread after every commit made before next() was
  // called, and the checkpoint it asks for begins after that, so no two threads' clocks are compared.
  const waiting = new Map<number, () => void>();
  let tickets = 0;
  let stopped: (() => void) | undefined;
  let failed = false;
  const takeOver = () => db.run(`PRAGMA wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
  db.run("PRAGMA wal_autocheckpoint = 0");
  worker.onmessage = (event: MessageEvent<CheckpointReport>) => {
    const report = event.data;
    if (report === "stopped") return stopped?.();
    for (const ticket of report.done) {
      waiting.get(ticket)?.();
      waiting.delete(ticket);
    }
  };
  worker.onerror = (event) => {
    // Without the thread the WAL would grow without end: the daemon's connection takes over again.
    failed = true;
    takeOver();
    stopped?.();
    onError(`the WAL checkpoint thread failed (${event.message}); commits checkpoint on their own again`);
  };
  worker.postMessage({ path, everyMs } satisfies CheckpointMessage);
  // The thread must not keep a daemon that is otherwise done alive.
  (worker as Worker & { unref(): void }).unref();
  return {
    next: () =>
      new Promise<void>((resolve) => {
        const ticket = ++tickets;
        waiting.set(ticket, resolve);
        worker.postMessage({ next: ticket } satisfies CheckpointMessage);
      }),
    async stop() {
      if (!failed) {
        await new Promise<void>((resolve) => {
          stopped = resolve;
          worker.postMessage("stop" satisfies CheckpointMessage);
        });
      }
      worker.terminate();
      takeOver();
    },
    terminate: () => void worker.terminate(),
  };
}
