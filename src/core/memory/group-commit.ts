// Group commit: writes that arrive together (concurrent requests in one turn of the event loop) run
// in one transaction, each in its own savepoint, so they share one commit instead of paying for one
// each. Every write is answered only after the commit that holds it, so a 2xx is still durable.
import type { Database } from "bun:sqlite";

/** What the writes' owner does around a group's transaction (MemoryService). */
export interface CommitHooks {
  /** Inside the transaction, before its first write. */
  begin(): void;
  /** Inside the transaction, after its last write: work done once for all of the group's writes. */
  beforeCommit(): void;
  /** After the transaction: committed, or rolled back with nothing of the group stored. */
  end(committed: boolean): void;
}

interface Pending {
  run: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export class GroupCommit {
  private queue: Pending[] = [];

  constructor(
    private readonly db: Database,
    private readonly hooks: CommitHooks,
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
          this.hooks.begin();
          for (const item of batch) {
            // Each write's own transaction becomes a savepoint: a failing one is undone alone.
            try {
              outcomes.push({ ok: true, value: item.run() });
            } catch (error) {
              outcomes.push({ ok: false, error });
            }
          }
          this.hooks.beforeCommit();
        })
        .immediate();
    } catch (error) {
      this.hooks.end(false);
      for (const item of batch) item.reject(error);
      return;
    }
    this.hooks.end(true);
    batch.forEach((item, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(outcome.error);
    });
  }
}
