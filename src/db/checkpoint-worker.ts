// The WAL checkpoint thread (checkpointer.ts): copies committed pages from the WAL into the database
// file on a connection of its own, so the fsync a checkpoint ends with never blocks the daemon's
// event loop. PASSIVE never waits for the writer: a commit in flight is checkpointed the next time.
// scripts/build.ts compiles this file into the binary as an entrypoint of its own.
import { Database } from "bun:sqlite";
import type { CheckpointMessage } from "./checkpointer";

declare const self: Worker;

let db: Database | null = null;
let timer: ReturnType<typeof setInterval> | undefined;

/** Each checkpoint reports when it began (wall-clock ms, the clock every thread shares): see Checkpointer.next. */
function checkpoint(): void {
  const began = performance.timeOrigin + performance.now();
  db!.run("PRAGMA wal_checkpoint(PASSIVE)");
  self.postMessage(began);
}

self.onmessage = (event: MessageEvent<CheckpointMessage>) => {
  const message = event.data;
  if (message === "stop") {
    clearInterval(timer);
    // Closed here, so the daemon's connection is the last and its close checkpoints and removes the WAL.
    db?.close();
    self.postMessage("stopped");
    return;
  }
  db = new Database(message.path, { strict: true });
  db.run("PRAGMA busy_timeout = 5000");
  checkpoint();
  timer = setInterval(checkpoint, message.everyMs);
};
