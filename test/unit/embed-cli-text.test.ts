// How `signet embed status` words a re-embedding under way (src/cli/embed.ts): which vectors still
// answer recall, the old model's or, after a change of embedding.dimensions, the same model's at
// its old size.
import { expect, test } from "bun:test";
import { reindexLine } from "../../src/cli/embed";

const running = { state: "running" as const, total: 3, done: 1, startedAt: "2026-12-04T10:00:00.000Z" };

test("a model change names the old model; a size change names the old size", () => {
  expect(reindexLine({ ...running, model: "bag-3", previousModel: "nomic-embed-text", previousDimensions: 768 })).toBe(
    "re-embedding with bag-3: 1/3 done since 2026-12-04T10:00:00.000Z (recall also answers from nomic-embed-text vectors until each is replaced)",
  );
  expect(reindexLine({ ...running, model: "bag-3", previousModel: "bag-3", previousDimensions: 64 })).toBe(
    "re-embedding with bag-3: 1/3 done since 2026-12-04T10:00:00.000Z (recall also answers from bag-3 64-dimension vectors until each is replaced)",
  );
  expect(reindexLine({ ...running, model: "bag-3" })).toBe("re-embedding with bag-3: 1/3 done since 2026-12-04T10:00:00.000Z");
});
