// A promise that rejects with nobody awaiting it ends a Bun process by default. In the daemon that
// would drop every agent's MCP session, every stream and every call in flight over one missed
// `.catch` on a background path; a client's next request would start a new daemon, but the work
// and the sessions of the old one would be gone. The daemon logs such a rejection with its stack
// instead and keeps serving. A synchronous exception nobody catches still ends it: its half-done
// work is in an unknown state, and its stack says where.
import type { Logger } from "../logger";

/** Logs each unhandled rejection as an error instead of ending the process, for the process's life. */
export function logUnhandledRejections(log: Logger): void {
  process.on("unhandledRejection", (reason: unknown) => log.error("a promise was rejected with nothing to handle it (the daemon keeps running)", reason));
}
