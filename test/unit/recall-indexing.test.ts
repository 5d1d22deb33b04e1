// Keyword indexing that waits for the writes to pause (RecallService's `pause` option, the daemon's
// core/foreground.ts): a burst of writes asks for one pause, not one per write, and a recall always
// sees every committed write, whether or not the pause has come.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { RecallRequestSchema } from "../../src/contracts/recall";
import { SqliteMemoryStore } from "../../src/core/memory/sqlite-store";
import { MemoryService, type Caller } from "../../src/core/memory/service";
import { AccessLog, SqliteAccessWrites } from "../../src/core/recall/access-log";
import { SqliteRecallStore } from "../../src/core/recall/sqlite-store";
import { RecallService } from "../../src/core/recall/service";
import { migrate } from "../../src/db/migrate";
import { openDatabase } from "../../src/db/open";
import { tempDir } from "../helpers/daemon";
import { recordingLogger } from "../helpers/log";

const ada: Caller = { agentId: "ada", actor: "test", actorType: null, runtimePath: null };

/** A recall service whose pauses come only when the test opens them. */
async function setup() {
  const db = openDatabase(join(tempDir("signet-recall-indexing-"), "memories.db"));
  migrate(db);
  const pauses: (() => void)[] = [];
  let recall: RecallService | undefined;
  const memory = new MemoryService(new SqliteMemoryStore(db), { onChange: (c) => recall?.onChange(c) });
  recall = new RecallService(new SqliteRecallStore(db), memory, null, new AccessLog(new SqliteAccessWrites(db), recordingLogger().log), {
    pause: () => new Promise<void>((resolve) => pauses.push(resolve)),
  });
  await recall.start();
  const found = async (query: string) => (await recall!.recall(ada, RecallRequestSchema.parse({ query, minScore: 0 }))).results.map((r) => r.content);
  return { memory, recall, pauses, found };
}

describe("keyword indexing while writes come", () => {
  test("a burst asks for one pause; a recall meanwhile finds every committed write, changed and forgotten ones as they are now", async () => {
    const { memory, pauses, found } = await setup();
    const written = [];
    for (let i = 0; i < 10; i++) written.push(await memory.remember(ada, { content: `zebrafish tank ${i} telemetry` }));
    expect(pauses).toHaveLength(1);
    await memory.modify(ada, written[0]!.id, { content: "axolotl tank telemetry", reason: "renamed" });
    await memory.forget(ada, written[1]!.id, { reason: "gone" });
    // The pause has not come: the recall indexes what waits first.
    expect((await found("zebrafish")).length).toBe(8);
    expect(await found("axolotl")).toEqual(["axolotl tank telemetry"]);
    expect(await found("tank 1 telemetry")).not.toContain("zebrafish tank 1 telemetry");
    expect(pauses).toHaveLength(1);
    // Once the pause comes nothing is left; the next write asks for a new one.
    pauses[0]!();
    await Bun.sleep(0);
    await memory.remember(ada, { content: "quokka habitat" });
    expect(pauses).toHaveLength(2);
    expect(await found("quokka")).toEqual(["quokka habitat"]);
  });

  test("without a pause each change is indexed as it is told", async () => {
    const db = openDatabase(join(tempDir("signet-recall-indexing-"), "memories.db"));
    migrate(db);
    let recall: RecallService | undefined;
    const memory = new MemoryService(new SqliteMemoryStore(db), { onChange: (c) => recall?.onChange(c) });
    recall = new RecallService(new SqliteRecallStore(db), memory, null, new AccessLog(new SqliteAccessWrites(db), recordingLogger().log));
    await recall.start();
    await memory.remember(ada, { content: "wombat burrow" });
    expect(recall.keywordIndexSize).toBe(1);
  });
});
