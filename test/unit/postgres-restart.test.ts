// PostgreSQL restarted under load (an immediate shutdown, then a start on the same data): writes
// through two daemons fail while it is down (the HTTP layer answers those 503, http-errors.ts), every
// daemon recovers by itself once it is back (Bun's client reconnects; the change feed reads again on
// its next poll), and no acknowledged write is lost. Its own cluster, so restarting it disturbs no
// other test file.
import { afterAll, describe, expect, test } from "bun:test";
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

describe.skipIf(!postgres.available)("PostgreSQL restarted under load", () => {
  test("writes fail while it is down, recover by themselves after, and every acknowledged one is there; the feed catches up", async () => {
    const connect = await postgres.database({ max: 4 });
    const daemons = [new MemoryService(new PostgresMemoryStore(connect())), new MemoryService(new PostgresMemoryStore(connect()))];
    const reader = connect();
    const heard = new Set<number>();
    const errors: string[] = [];
    const feed = new MemoryFeed(reader, { onChange: (c: MemoryChange) => heard.add(c.seq), pollMs: 100, onError: (m) => errors.push(m) });
    feeds.push(feed);
    await feed.start(await MemoryFeed.head(reader));

    const acknowledged: string[] = [];
    let failed = 0;
    let writing = true;
    let n = 0;
    // Four writers through each daemon, one write at a time each, until told to stop.
    const writers = Array.from({ length: 8 }, async (_, w) => {
      while (writing) {
        const content = `write ${n++} by writer ${w}`;
        try {
          acknowledged.push((await daemons[w % 2]!.remember(ada, { content })).id);
        } catch {
          failed++;
          await Bun.sleep(20);
        }
      }
    });
    await eventually(() => acknowledged.length >= 50, 10_000);
    await postgres.restart(1_000);
    const afterRestart = acknowledged.length;
    // Both daemons write again by themselves.
    expect(await eventually(() => acknowledged.length >= afterRestart + 100, 20_000)).toBe(true);
    writing = false;
    await Promise.all(writers);

    expect(failed).toBeGreaterThan(0);
    for (const id of acknowledged) expect((await daemons[0]!.get(ada, id)).id).toBe(id);
    // A write cut off between its commit and its answer is stored unacknowledged: more, never fewer.
    const stored = (await daemons[1]!.list(ada, { limit: 10_000, offset: 0 })).memories.length;
    expect(stored).toBeGreaterThanOrEqual(acknowledged.length);
    // The feed read through the outage and heard every stored write.
    expect(await eventually(() => heard.size === stored, 10_000)).toBe(true);
    expect(errors.length).toBeGreaterThan(0);
  }, 60_000);
});
