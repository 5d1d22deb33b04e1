// The MCP usage boost of recall (docs/api.md#usage-boost) over a real daemon's memories and
// invocation rollups: a memory tagged `mcp:<server>` (or naming the server) rises as the server's
// use grows, by a bounded factor on the order only; its score never changes, and a clearly stronger
// text match stays above it at any use.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RecallRequestSchema, type RecallResponse } from "../../src/contracts/recall";
import { AccessLog, SqliteAccessWrites } from "../../src/core/recall/access-log";
import { SqliteRecallStore } from "../../src/core/recall/sqlite-store";
import { RecallService } from "../../src/core/recall/service";
import { UsageBoost, usageStrength } from "../../src/core/recall/usage-boost";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon";

let d: TestDaemon;

beforeAll(async () => {
  d = await startTestDaemon({ yaml: "analytics:\n  flushMs: 50\n" });
});

afterAll(async () => {
  await d.stop();
});

async function use(server: string, calls: number): Promise<void> {
  const at = new Date(Date.now() - 60_000).toISOString();
  for (let i = 0; i < calls; i++) {
    d.daemon.context.analytics.record({ server, tool: "t", agentId: "default", source: "cli", latencyMs: 1, success: true, createdAt: at });
  }
  await d.daemon.context.analytics.flush();
}

/**
 * A clearly stronger match (every query term), then a tagged and a plain one holding the same three
 * terms, the plain one newer. The plain one is tagged for a server no one calls, so its words are as
 * specific as the tagged one's (recall's specificity factor counts tags' words too).
 */
async function memories(words: string[], server: string): Promise<{ strong: string; tagged: string; plain: string }> {
  const client = d.client();
  const [a, b, c, extra] = words;
  const strong = (await client.memory.remember({ content: `${a} ${b} ${c} ${extra} steps` })).id;
  const tagged = (await client.memory.remember({ content: `${a} ${b} ${c} weekly`, tags: [`mcp:${server}`] })).id;
  await Bun.sleep(5);
  const plain = (await client.memory.remember({ content: `${a} ${b} ${c} monthly`, tags: [`mcp:${server}q`] })).id;
  return { strong, tagged, plain };
}

const ids = (r: RecallResponse) => r.results.map((x) => x.id);
const scoreOf = (r: RecallResponse, id: string) => r.results.find((x) => x.id === id)!.score;

describe("the usage boost", () => {
  test("the daemon's recall applies it", async () => {
    const m = await memories(["deploy", "pipeline", "notes", "rollback"], "ghw");
    // Before the daemon's first recall (it reads the features then, and at most every 60 s after).
    await use("ghw", 200);
    const r: RecallResponse = await d.client().memory.recall({ query: "deploy pipeline notes rollback", minScore: 0 });
    expect(ids(r)).toEqual([m.strong, m.tagged, m.plain]);
  });

  test("a memory tagged mcp:<server> rises as the server's use grows, never above a stronger match, and its score stays", async () => {
    const { memory, analytics, log } = d.daemon.context;
    const db = d.daemon.context.stores.sqlite!;
    const boost = new UsageBoost(async () => (await analytics.features()).servers, { refreshMs: 0 });
    const accessLog = new AccessLog(new SqliteAccessWrites(db), log);
    const recall = new RecallService(new SqliteRecallStore(db), memory, null, accessLog, { usage: boost });
    const caller = { agentId: "default", actor: null, actorType: null, runtimePath: null };
    const ask = () => recall.recall(caller, RecallRequestSchema.parse({ query: "backup schedule report restore", minScore: 0 }));
    const m = await memories(["backup", "schedule", "report", "restore"], "ghp");
    const row = (id: string) => db.query("SELECT tags, content FROM memories WHERE id = ?").get(id) as { tags: string; content: string };

    const unused = await ask();
    expect(ids(unused)).toEqual([m.strong, m.plain, m.tagged]);
    expect(boost.order(row(m.tagged))).toBe(1);

    await use("ghp", 7); // one call a day over the last 7 days
    await boost.refresh();
    const some = await ask();
    expect(ids(some)).toEqual([m.strong, m.tagged, m.plain]);
    expect(boost.order(row(m.tagged))).toBeCloseTo(1 + 0.1 * (Math.log(2) / Math.log(21)), 12);

    await use("ghp", 63); // ten a day
    await boost.refresh();
    const more = boost.order(row(m.tagged));
    expect(more).toBeCloseTo(1 + 0.1 * (Math.log(11) / Math.log(21)), 12);
    await use("ghp", 10_000); // far past saturation: the bound
    await boost.refresh();
    expect(boost.order(row(m.tagged))).toBe(1.1);
    expect(more).toBeLessThan(1.1);
    const saturated = await ask();
    expect(ids(saturated)).toEqual([m.strong, m.tagged, m.plain]);
    // The order moved; no score did.
    for (const id of [m.strong, m.tagged, m.plain]) expect(scoreOf(saturated, id)).toBe(scoreOf(unused, id));
    expect(boost.order(row(m.plain))).toBe(1);
    // Written now, while the daemon's database is open (its timer would fire after the daemon stops).
    accessLog.flush();
  });

  test("naming the server in the text counts as a whole word; other servers and partial words do not", () => {
    const servers = [
      { server: "ghn", callsPerDay7: 20, callsPerDay30: 1 },
      { server: "idle", callsPerDay7: 0, callsPerDay30: 0 },
    ];
    const boost = new UsageBoost(() => servers);
    const order = (content: string, tags: string[] = []) => boost.order({ content, tags: JSON.stringify(tags) });
    expect(order("ran the GHN tool.")).toBe(1.1);
    expect(order("ghn/search failed")).toBe(1.1);
    expect(order("ghnx and xghn and ghn-extra and ghn.sh")).toBe(1);
    expect(order("idle for a while", ["mcp:idle"])).toBe(1);
    expect(order("nothing", ["MCP:ghn"])).toBe(1.1);
    expect(usageStrength({ callsPerDay7: 0, callsPerDay30: 0 })).toBe(0);
    expect(usageStrength({ callsPerDay7: 5, callsPerDay30: 1 })).toBeLessThan(usageStrength({ callsPerDay7: 6, callsPerDay30: 1 }));
  });

  test("the features are read at most every refreshMs, and a failing read keeps the last ones", () => {
    let reads = 0;
    let fail = false;
    let now = 0;
    const boost = new UsageBoost(
      () => {
        reads++;
        if (fail) throw new Error("database closed");
        return [{ server: "ghc", callsPerDay7: 20, callsPerDay30: 20 }];
      },
      { refreshMs: 60_000, now: () => now },
    );
    const row = { content: "", tags: '["mcp:ghc"]' };
    for (let i = 0; i < 100; i++) boost.order(row);
    expect(reads).toBe(1);
    now = 60_000;
    fail = true;
    expect(boost.order(row)).toBe(1.1);
    expect(reads).toBe(2);
  });
});
