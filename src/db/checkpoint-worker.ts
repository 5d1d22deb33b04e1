// The WAL checkpoint thread (checkpointer.ts): copies committed pages from the WAL into the database
// file on a connection of its own, so the fsync a checkpoint ends with never blocks the daemon's
// event loop. PASSIVE never waits for the writer: a commit in flight is checkpointed the next time.
// scripts/build.ts compiles this file into the binary as an entrypoint of its own.
import { Database } from "bun:sqlite";
import type { CheckpointMessage, CheckpointReport } from "./checkpointer";

declare const self: Worker;

let db: Database | null = null;
let timer: ReturnType<typeof setInterval> | undefined;
/** Tickets that arrived since the last checkpoint began (Checkpointer.next). */
let tickets: number[] = [];

/** A checkpoint answers the tickets that arrived before it began: it saw every commit made before them. */
function checkpoint(): void {
  const covered = tickets;
  tickets = [];
  db!.run("PRAGMA wal_checkpoint(PASSIVE)");
  if (covered.length > 0) self.postMessage({ done: covered } satisfies CheckpointReport);
}

self.onmessage = (event: MessageEvent<CheckpointMessage>) => {
  const message = event.data;
  if (message === "stop") {
    clearInterval(timer);
    // Closed here, so the daemon's connection is the last and its close checkpoints and removes the WAL.
    db?.close();
    self.postMessage("stopped" satisfies CheckpointReport);
    return;
  }
  if ("next" in message) {
    // Asked for: one begins now rather than at the next tick.
    tickets.push(message.next);
    if (db) checkpoint();
    return;
  }
  db = new Database(message.path, { strict: true });
  db.run("PRAGMA busy_timeout = 5000");
  checkpoint();
  timer = setInterval(checkpoint, message.everyMs);
};
