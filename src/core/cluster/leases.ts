// Leases on background work in a store several daemons share (PostgreSQL migration 008): before a
// daemon works on an item it takes the item's lease, which holds for a while; an item leased to
// another daemon whose lease has not run out is that daemon's, and one whose lease ran out (its daemon
// died, or lost the store) may be taken by any. A claim is one statement: the items still to be done
// (the caller's query) upserted into the leases, so two daemons claiming one item at once meet at its
// key and the second sees the first's lease and gets nothing.

/** What is leased: a memory to embed, or a document chunk to embed. */
export type LeaseKind = "embed" | "chunk";

/** `sql` selects the items to claim, one column `item`, with `params` as $1, $2, ... */
export interface LeaseCandidates {
  sql: string;
  params: unknown[];
}

/** How long a finished item's lease still holds off other daemons' claims that raced its commit. */
const RELEASE_GRACE_MS = 10_000;

export class WorkLeases {
  constructor(
    private readonly db: Bun.SQL,
    private readonly daemonId: string,
    private readonly options: { ttlMs?: number; now?: () => number } = {},
  ) {}

  /** Of the candidates, those now leased to this daemon (newly, or again), for the lease's time. */
  async claim(kind: LeaseKind, candidates: LeaseCandidates): Promise<number[]> {
    const now = this.now();
    const until = new Date(Date.parse(now) + (this.options.ttlMs ?? 120_000)).toISOString();
    const at = (i: number) => `$${candidates.params.length + i}`;
    const rows: { item: string | number }[] = await this.db.unsafe(
      `WITH candidates AS (${candidates.sql})
       INSERT INTO work_leases (kind, item, daemon_id, lease_until) SELECT ${at(1)}, item, ${at(2)}, ${at(3)} FROM candidates
       ON CONFLICT (kind, item) DO UPDATE SET daemon_id = EXCLUDED.daemon_id, lease_until = EXCLUDED.lease_until
       WHERE work_leases.daemon_id = EXCLUDED.daemon_id OR work_leases.lease_until < ${at(4)}
       RETURNING item`,
      [...candidates.params, kind, this.daemonId, until, now],
    );
    return rows.map((r) => Number(r.item));
  }

  /**
   * Ends this daemon's leases on `items` (inside the transaction `tx` that finished them) a few
   * seconds from now, not at once: another daemon's claim that read the store before this commit
   * (and so found the work still to do) meets the lease and gets nothing, instead of doing it again.
   */
  async release(tx: Bun.SQL, kind: LeaseKind, items: number[]): Promise<void> {
    const until = new Date(Date.parse(this.now()) + RELEASE_GRACE_MS).toISOString();
    await tx`
      UPDATE work_leases SET lease_until = ${until}
      WHERE kind = ${kind} AND daemon_id = ${this.daemonId} AND item = ANY(${tx.array(items, "INT")}::bigint[]) AND lease_until > ${until}`;
  }

  /** The time leases are compared with, for a query that leaves out items someone holds. */
  now(): string {
    return new Date((this.options.now ?? Date.now)()).toISOString();
  }
}
