// Import's check that each record is the memory it says it is (docs/api.md#post-apiimport): a history
// that does not end in the record's state, another agent's entry, or a time later than the daemon's
// clock rejects that record, naming it, and the rest of the batch is imported. Every export a store
// makes passes it: forgotten, recovered, modified, pinned, tagged and decayed memories included.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon";
import { exportRecord, type ExportRecordLine } from "../helpers/export-record";
import { call } from "../helpers/memory-api";

let a: TestDaemon;
let b: TestDaemon;

beforeAll(async () => {
  a = await startTestDaemon();
  b = await startTestDaemon();
});

afterAll(async () => {
  await a.stop();
  await b.stop();
});

async function exportText(td: TestDaemon): Promise<string[]> {
  const lines: string[] = [];
  for await (const line of td.client().transfer.export({ forgotten: true })) lines.push(line);
  return lines;
}

describe("every export a store makes imports whole", () => {
  test("forgotten, recovered, modified, pinned, tagged and decayed memories: imported into a fresh store, exported again, the same lines", async () => {
    const me = a.client("ada");
    // Unused for two years: dreaming decays its importance without a new version.
    const old = await me.memory.remember({ content: "The staging database is heron-8", importance: 0.9, createdAt: "2024-01-01T00:00:00Z" });
    const busy = await me.memory.remember({ content: "Deploys go out on Tuesdays", tags: ["deploy"] });
    await me.memory.modify(busy.id, { reason: "moved", content: "Deploys go out on Wednesdays" });
    await me.memory.modify(busy.id, { reason: "tag it", tags: ["deploy", "schedule"] });
    await me.memory.modify(busy.id, { reason: "pin it", pinned: true });
    await me.memory.forget(busy.id, { reason: "gone", force: true });
    await me.memory.recover(busy.id, { reason: "back" });
    await me.memory.modify(busy.id, { reason: "matters less", importance: 0.3, type: "decision" });
    const gone = await me.memory.remember({ content: "A passing thought" });
    await me.memory.forget(gone.id, { reason: "noise" });
    const twice = await me.memory.remember({ content: "Forgotten twice" });
    await me.memory.forget(twice.id, { reason: "one" });
    await me.memory.recover(twice.id, { reason: "two" });
    await me.memory.forget(twice.id, { reason: "three" });
    const dream = await call(a, "POST", "/api/graph/dream", { body: { agentId: "ada" }, headers: a.ownerHeaders });
    expect(dream.status).toBe(200);

    const [, ...lines] = await exportText(a);
    const records = lines.map((l) => JSON.parse(l));
    const decayed = records.find((r) => r.id === old.id);
    expect(decayed.importance).toBeLessThan(decayed.history.at(-1).importance);
    expect(records.find((r) => r.id === busy.id).history.map((h: { action: string }) => h.action)).toEqual([
      "create",
      "modify",
      "modify",
      "modify",
      "forget",
      "recover",
      "modify",
    ]);

    const answer = await b.client().transfer.import({ format: "signet", records });
    expect(answer).toEqual({ imported: 4, skipped: 0, duplicates: [], conflicts: [], rejected: [] });
    const [, ...again] = await exportText(b);
    expect(again).toEqual(lines);
  });
});

describe("a record whose history is not its own is rejected, naming it; the rest of the batch is imported", () => {
  const later = "2025-03-02T10:00:00.000Z";
  const future = () => new Date(Date.now() + 24 * 60 * 60 * 1000).toISOString();
  /** A record changed once after it was created: version 2, its last entry `action`. */
  const changed = (content: string, action: "modify" | "forget" | "recover", edit: Partial<ExportRecordLine> = {}): ExportRecordLine => {
    const r = exportRecord(crypto.randomUUID(), content);
    const entry = { ...r.history[0]!, version: 2, action, reason: "changed", createdAt: later };
    return { ...r, version: 2, updatedAt: later, history: [...r.history, entry], ...edit };
  };

  test.each<[string, () => ExportRecordLine, (r: ExportRecordLine) => string]>([
    ["content other than its last entry's", () => changed("What the record says", "modify", { content: "Something else" }), () => "its content differs from its last history entry's (version 2)"],
    [
      "forgotten, its last entry not a forget",
      () => changed("Forgotten without a forget", "modify", { deletedAt: later, deleteReason: "x" }),
      () => `it is forgotten (deletedAt ${later}), but its last history entry (version 2) is a modify, not a forget`,
    ],
    ["live, its last entry a forget", () => changed("Live after a forget", "forget"), () => "it is not forgotten (deletedAt is null), but its last history entry (version 2) forgets it"],
    [
      "an entry of another agent",
      () => {
        const r = changed("Whose is it", "modify");
        return { ...r, history: [r.history[0]!, { ...r.history[1]!, agentId: "mallory" }] };
      },
      () => "history version 2 belongs to agent mallory, the memory to agent default",
    ],
    [
      "an entry dated later than the daemon's clock",
      () => {
        const r = changed("Changed tomorrow", "modify");
        return { ...r, history: [r.history[0]!, { ...r.history[1]!, createdAt: future() }] };
      },
      (r) => `history version 2: createdAt ${r.history[1]!.createdAt} is in the future`,
    ],
    [
      "forgotten later than the daemon's clock",
      () => {
        const when = future();
        return changed("Forgotten tomorrow", "forget", { deletedAt: when, deleteReason: "x" });
      },
      (r) => `deletedAt ${r.deletedAt} is in the future`,
    ],
  ])("%s", async (_, make, reason) => {
    const bad = make();
    const fine = exportRecord(crypto.randomUUID(), `Imported beside: ${bad.content}`);
    const answer = await b.client().transfer.import({ format: "signet", records: [bad, fine] });
    expect(answer).toEqual({ imported: 1, skipped: 0, duplicates: [], conflicts: [], rejected: [{ source: `memory ${bad.id}`, reason: reason(bad) }] });
    expect((await call(b, "GET", `/api/memory/${bad.id}`, { headers: b.ownerHeaders })).status).toBe(404);
    expect((await call(b, "GET", `/api/memory/${fine.id}`, { headers: b.ownerHeaders })).status).toBe(200);
  });
});
