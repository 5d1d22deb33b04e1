// The memories' change feed on a real PostgreSQL (a throwaway cluster): one daemon's writes reach
// another daemon's feed, in order, once each; a number taken by a write that has not committed holds
// the cursor without holding back what comes after it; a rolled-back one is passed after its grace;
// a feed started at the head tells nothing older; a stopped feed stops listening.
import { afterAll, describe, expect, test } from "bun:test";
import type { SQL } from "bun";
import { MemoryFeed } from "../../src/core/memory/postgres-feed";
import { PostgresMemoryStore } from "../../src/core/memory/postgres-store";
import { MemoryService, type Caller } from "../../src/core/memory/service";
import type { MemoryChange } from "../../src/core/memory/store";
import { listeningConnections, postgresDatabases } from "../helpers/postgres-databases";
import { eventually } from "../helpers/wait";

// Registered before the cluster's clean-up, so the feeds stop listening before their clients close.
const feeds: MemoryFeed[] = [];
afterAll(async () => {
  for (const f of feeds.splice(0)) await f.stop();
});
const postgres = postgresDatabases();

const ada: Caller = { agentId: "ada", actor: "test", actorType: null, runtimePath: null };

interface Pair {
  connect: () => SQL;
  writer: MemoryService;
  heard: MemoryChange[];
  feed: MemoryFeed;
}

/** A daemon that writes, and another whose feed, started at the head, hears it. */
async function pair(options: { gapGraceMs?: number; pollMs?: number } = {}): Promise<Pair> {
  const connect = await postgres.database({ max: 4 });
  const writer = new MemoryService(new PostgresMemoryStore(connect()));
  const heard: MemoryChange[] = [];
  const reader = connect();
  const feed = new MemoryFeed(reader, { onChange: (c) => heard.push(c), ...options });
  feeds.push(feed);
  await feed.start(await MemoryFeed.head(reader));
  return { connect, writer, heard, feed };
}

describe.skipIf(!postgres.available)("the memories' change feed", () => {
  test("another daemon's writes are heard when notified, in order, once each, as the memory is now", async () => {
    const { writer, heard, feed } = await pair({ pollMs: 60_000 });
    const m = await writer.remember(ada, { content: "The staging DB is heron-7", project: "/work/web" });
    // The poll is a minute: only the notification can bring it this soon.
    expect(await eventually(() => heard.length === 1, 5_000)).toBe(true);
    expect(heard[0]).toMatchObject({ kind: "created", agentId: "ada", project: "/work/web" });
    expect(heard[0]!.text!.content).toBe("The staging DB is heron-7");
    await writer.modify(ada, m.id, { content: "The staging DB is heron-8", reason: "moved" });
    await writer.forget(ada, m.id, { reason: "gone" });
    expect(await eventually(() => heard.length === 3, 5_000)).toBe(true);
    // Each line tells the memory as it is when read: by then it may be further on.
    expect(heard.map((c) => c.seq)).toEqual([heard[0]!.seq, heard[0]!.seq, heard[0]!.seq]);
    expect(heard[2]).toMatchObject({ kind: "forgotten", text: null });
    await feed.read();
    expect(heard).toHaveLength(3);
    expect(feed.cursor).toBe(3);
  });

  test("a number a write has taken but not committed holds the cursor, not the lines after it", async () => {
    const { connect, writer, heard, feed } = await pair({ gapGraceMs: 60_000, pollMs: 100 });
    const first = await writer.remember(ada, { content: "first" });
    expect(await eventually(() => heard.length === 1, 5_000)).toBe(true);
    // A write in flight: it took the next number and holds its transaction open.
    const other = connect();
    let commit!: () => void;
    const committed = new Promise<void>((resolve) => (commit = resolve));
    let took!: () => void;
    const taken = new Promise<void>((resolve) => (took = resolve));
    const inFlight = other.begin(async (tx) => {
      await tx`INSERT INTO memory_changes (memory_seq, changed_at) SELECT seq, 'now' FROM memories WHERE id = ${first.id}`;
      took();
      await committed;
    });
    await taken;
    await writer.remember(ada, { content: "second" });
    expect(await eventually(() => heard.length === 2, 5_000)).toBe(true);
    await feed.read();
    expect(feed.cursor).toBe(1);
    commit();
    await inFlight;
    expect(await eventually(() => heard.length === 3, 5_000)).toBe(true);
    await feed.read();
    expect(feed.cursor).toBe(3);
    expect(heard.map((c) => c.kind)).toEqual(["created", "created", "created"]);
  });

  test("a number whose write rolled back is passed once its grace is over", async () => {
    const { connect, writer, heard, feed } = await pair({ gapGraceMs: 300 });
    const first = await writer.remember(ada, { content: "first" });
    await connect()
      .begin(async (tx) => {
        await tx`INSERT INTO memory_changes (memory_seq, changed_at) SELECT seq, 'now' FROM memories WHERE id = ${first.id}`;
        throw new Error("rolled back");
      })
      .catch(() => undefined);
    await writer.remember(ada, { content: "third" });
    expect(await eventually(() => heard.length === 2, 5_000)).toBe(true);
    await feed.read();
    expect(feed.cursor).toBe(1);
    await Bun.sleep(350);
    await feed.read();
    expect(feed.cursor).toBe(3);
    expect(heard).toHaveLength(2);
  });

  test("a feed started at the head tells nothing older; a stopped one stops listening", async () => {
    const connect = await postgres.database({ max: 4 });
    const writer = new MemoryService(new PostgresMemoryStore(connect()));
    for (let i = 0; i < 5; i++) await writer.remember(ada, { content: `before ${i}` });
    const reader = connect();
    const heard: MemoryChange[] = [];
    const feed = new MemoryFeed(reader, { onChange: (c) => heard.push(c) });
    const head = await MemoryFeed.head(reader);
    expect(head).toBe(5);
    await feed.start(head);
    await writer.remember(ada, { content: "after" });
    expect(await eventually(() => heard.length === 1, 5_000)).toBe(true);
    expect(heard[0]!.text!.content).toBe("after");
    const listening = () => listeningConnections(reader);
    expect(await listening()).toBe(1);
    await feed.stop();
    expect(await eventually(async () => (await listening()) === 0, 2_000)).toBe(true);
    await writer.remember(ada, { content: "unheard" });
    await Bun.sleep(200);
    expect(heard).toHaveLength(1);
  });
});
