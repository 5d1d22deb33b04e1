// Pruning a shared store (core/cluster/pruner.ts): superseded change-log lines older than the keep go,
// the last line of each memory stays, so a feed reading from the start after a prune is still told
// every memory as it is now; recent lines stay; stale daemons' rows and long-ended leases go; and
// while another daemon prunes, a round is skipped.
import { afterAll, describe, expect, test } from "bun:test";
import { StorePruner } from "../../src/core/cluster/pruner";
import { LOCK_SPACE } from "../../src/core/advisory-locks";
import { MemoryFeed } from "../../src/core/memory/postgres-feed";
import { PostgresMemoryStore } from "../../src/core/memory/postgres-store";
import { MemoryService, type Caller } from "../../src/core/memory/service";
import type { MemoryChange } from "../../src/core/memory/store";
import { postgresDatabases } from "../helpers/postgres-databases";
import { eventually } from "../helpers/wait";

const feeds: MemoryFeed[] = [];
afterAll(async () => {
  for (const f of feeds.splice(0)) await f.stop();
});
const postgres = postgresDatabases();
const ada: Caller = { agentId: "ada", actor: "test", actorType: null, runtimePath: null };
const HOUR = 3_600_000;

describe.skipIf(!postgres.available)("pruning a shared store", () => {
  test("superseded lines go, each memory's last stays, and a feed from the start still tells every memory as it is now", async () => {
    const connect = await postgres.database({ max: 3 });
    const sql = connect();
    const memory = new MemoryService(new PostgresMemoryStore(sql));
    const a = await memory.remember(ada, { content: "The release train leaves on Mondays" });
    await memory.modify(ada, a.id, { content: "The release train leaves on Tuesdays", reason: "moved" });
    await memory.modify(ada, a.id, { content: "The release train leaves on Thursdays", reason: "moved again" });
    const b = await memory.remember(ada, { content: "The VPN needs MFA" });
    await memory.forget(ada, b.id, { reason: "gone" });
    await memory.remember(ada, { content: "Staging runs on heron-7" });
    const lines = async () => Number((await sql`SELECT count(*)::int AS n FROM memory_changes`)[0].n);
    expect(await lines()).toBe(6);

    // Within the keep, nothing goes.
    expect(await new StorePruner(sql).prune()).toEqual({ memoryChanges: 0, sourceChanges: 0, daemons: 0, leases: 0 });
    const later = new StorePruner(sql, { now: () => Date.now() + HOUR });
    expect((await later.prune())!.memoryChanges).toBe(3);
    expect(await lines()).toBe(3);

    const told = new Map<number, MemoryChange>();
    const feed = new MemoryFeed(connect(), { onChange: (c) => told.set(c.seq, c), gapGraceMs: 50, pollMs: 50 });
    feeds.push(feed);
    await feed.start(0);
    expect(await eventually(() => told.size === 3, 5_000)).toBe(true);
    const seqOf = async (id: string) => (await sql`SELECT seq FROM memories WHERE id = ${id}`)[0].seq as number;
    expect(told.get(await seqOf(a.id))!.kind).toBe("modified");
    expect(told.get(await seqOf(a.id))!.text!.content).toBe("The release train leaves on Thursdays");
    expect(told.get(await seqOf(b.id))!.kind).toBe("forgotten");
    // The feed's cursor passed the numbers pruning took.
    expect(await eventually(async () => feed.cursor === Number((await sql`SELECT max(change_seq) AS n FROM memory_changes`)[0].n), 5_000)).toBe(true);
  });

  test("stale daemons' rows and ended leases go; while another daemon prunes, the round is skipped", async () => {
    const connect = await postgres.database({ max: 3 });
    const sql = connect();
    const now = Date.now();
    const iso = (ms: number) => new Date(now + ms).toISOString();
    await sql`INSERT INTO daemons (id, url, version, started_at, seen_at) VALUES
      ('d_old', 'http://a', '1', ${iso(-48 * HOUR)}, ${iso(-25 * HOUR)}), ('d_new', 'http://b', '1', ${iso(-HOUR)}, ${iso(0)})`;
    await sql`INSERT INTO work_leases (kind, item, daemon_id, lease_until) VALUES
      ('embed', 1, 'd_old', ${iso(-2 * HOUR)}), ('embed', 2, 'd_new', ${iso(60_000)})`;
    const pruner = new StorePruner(sql);
    await connect().begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(${LOCK_SPACE.pruning}, 0)`;
      expect(await pruner.prune()).toBeNull();
    });
    expect(await pruner.prune()).toEqual({ memoryChanges: 0, sourceChanges: 0, daemons: 1, leases: 1 });
    expect((await sql`SELECT id FROM daemons`).map((r: { id: string }) => r.id)).toEqual(["d_new"]);
    expect((await sql`SELECT item FROM work_leases`).map((r: { item: string }) => Number(r.item))).toEqual([2]);
  });
});
