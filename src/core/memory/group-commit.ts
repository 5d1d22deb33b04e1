// Group commit: writes that arrive together (concurrent requests in one turn of the event loop) run
// in one transaction, each in its own savepoint, so they share one commit instead of paying for one
// each. Every write is answered only after the commit that holds it, so a 2xx is still durable.
import type { Database } from "bun:sqlite";
import { SignetError } from "../../contracts/errors";

interface Pending {
  run: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export class GroupCommit {
  private queue: Pending[] = [];

  /** `lost`: why the commit did not reach the store's file after all (core/db store-file.ts), or null. */
  constructor(
    private readonly db: Database,
    private readonly lost: () => string | null = () => null,
  ) {}

  run<T>(write: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ run: write, resolve: resolve as (value: unknown) => void, reject });
      if (this.queue.length === 1) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    const batch = this.queue;
    this.queue = [];
    const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
    try {
      this.db
        .transaction(() => {
          for (const item of batch) {
            // Each write's own transaction becomes a savepoint: a failing one is undone alone.
            try {
              outcomes.push({ ok: true, value: item.run() });
            } catch (error) {
              outcomes.push({ ok: false, error });
            }
          }
        })
        .immediate();
    } catch (error) {
      for (const item of batch) item.reject(error);
      return;
    }
    // Committed to a file the path no longer names: gone at the next start, so not acknowledged.
    const lost = this.lost();
    if (lost !== null) {
      const error = new SignetError("unavailable", `${lost}: this write was not kept; restart the daemon (signet daemon restart)`);
      for (const item of batch) item.reject(error);
      return;
    }
    batch.forEach((item, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(outcome.error);
    });
  }
}
