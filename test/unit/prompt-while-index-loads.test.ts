// A prompt right after the daemon starts on a large store: recall's keyword index takes seconds to
// load there, and the harness gives up on a hook after 5 s. The prompt hook waits for the load only
// briefly, then answers without memories; once the index is in, prompts get theirs again. The slow
// load is the real SQLite recall store with its chunks held back until the test lets them through
// (a store of 100,000 memories would make the same wait, far slower to build).
import { expect, test } from "bun:test";
import { RecallRequestSchema } from "../../src/contracts/recall";
import { HookRequestSchema, type HookRequest } from "../../src/contracts/session";
import { SqliteAgentStore } from "../../src/core/agents/sqlite-store";
import { MemoryService, type Caller } from "../../src/core/memory/service";
import { SqliteMemoryStore } from "../../src/core/memory/sqlite-store";
import { AccessLog, SqliteAccessWrites } from "../../src/core/recall/access-log";
import { RecallService } from "../../src/core/recall/service";
import { SqliteRecallStore } from "../../src/core/recall/sqlite-store";
import type { IndexRow } from "../../src/core/recall/store";
import { SessionService } from "../../src/core/sessions/service";
import { SqliteSessionStore } from "../../src/core/sessions/sqlite-store";
import { recordingLogger } from "../helpers/log";
import { migratedDatabase } from "../helpers/sqlite";
import { tempDir } from "../helpers/temp-cleanup";

const ada: Caller = { agentId: "ada", actor: "test", actorType: null, runtimePath: null };
const hook = (over: Partial<HookRequest> & { sessionKey: string }): HookRequest => HookRequestSchema.parse({ harness: "claude-code", ...over });

/** The SQLite recall store, whose index chunks wait until `release()`. */
class HeldRecallStore extends SqliteRecallStore {
  private opened!: () => void;
  private readonly gate = new Promise<void>((resolve) => (this.opened = resolve));
  chunksAsked = 0;
  release(): void {
    this.opened();
  }
  override async indexChunk(afterSeq: number, limit: number): Promise<IndexRow[]> {
    this.chunksAsked++;
    await this.gate;
    return super.indexChunk(afterSeq, limit);
  }
}

test("while the keyword index loads, a prompt goes without memories instead of waiting; after it, prompts get them", async () => {
  const db = migratedDatabase();
  const held = new HeldRecallStore(db);
  let recall: RecallService | undefined;
  const memory = new MemoryService(new SqliteMemoryStore(db), { onChange: (c) => recall?.onChange(c) });
  await memory.remember(ada, { content: "Use pnpm for packages here, never npm or yarn", type: "preference" });
  const { log, lines } = recordingLogger();
  recall = new RecallService(held, memory, null, new AccessLog(new SqliteAccessWrites(db), log));
  const loaded = recall.start();
  const sessions = new SessionService(new SqliteSessionStore(db), memory, recall, {
    dataDir: tempDir(),
    sessionStartBudgetTokens: 2000,
    llm: undefined,
    log,
    agents: new SqliteAgentStore(db),
    promptIndexWaitMs: 50,
  });
  const prompt = async (sessionKey: string) => {
    await sessions.hook("session-start", ada, hook({ sessionKey }));
    return sessions.hook("user-prompt-submit", ada, hook({ sessionKey, prompt: "pnpm or npm for the packages?" }));
  };

  for (const key of ["early-1", "early-2"]) {
    const answer = await prompt(key);
    expect(answer).toMatchObject({ context: "", memoryIds: [] });
  }
  // Answered while the load was still held: the prompts did not wait for it.
  expect(held.chunksAsked).toBe(1);
  expect(lines.filter((l) => l.includes("keyword index is still loading"))).toEqual([
    "info a prompt got no memories: recall's keyword index is still loading (the daemon has just started)",
  ]);

  held.release();
  expect(await loaded).toBe(1);
  const later = await prompt("later");
  expect("memoryIds" in later && later.memoryIds.length).toBe(1);
  expect((later as { context: string }).context).toContain("Use pnpm for packages here");
  expect(lines.filter((l) => l.includes("still loading"))).toHaveLength(1);
});

test("a recall asked while the index loads still waits for it, and a failed load does not keep a prompt waiting", async () => {
  const db = migratedDatabase();
  const held = new HeldRecallStore(db);
  const memory = new MemoryService(new SqliteMemoryStore(db));
  await memory.remember(ada, { content: "Use pnpm for packages here, never npm or yarn", type: "preference" });
  const { log } = recordingLogger();
  const recall = new RecallService(held, memory, null, new AccessLog(new SqliteAccessWrites(db), log));
  const loaded = recall.start();
  let answered = false;
  const asked = recall.recall(ada, RecallRequestSchema.parse({ query: "pnpm" })).then((r) => {
    answered = true;
    return r;
  });
  expect(await recall.readyWithin(20)).toBe(false);
  expect(answered).toBe(false);
  held.release();
  await loaded;
  expect(await recall.readyWithin(0)).toBe(true);
  expect((await asked).results.map((r) => r.content)).toEqual(["Use pnpm for packages here, never npm or yarn"]);

  const failing = new (class extends SqliteRecallStore {
    override async indexChunk(): Promise<IndexRow[]> {
      throw new Error("the disk is gone");
    }
  })(db);
  const broken = new RecallService(failing, memory, null, new AccessLog(new SqliteAccessWrites(db), log));
  void broken.start().catch(() => {});
  expect(await broken.readyWithin(1000)).toBe(true);
});
