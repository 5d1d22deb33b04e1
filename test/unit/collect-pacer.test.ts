// The daemon's collection pacer: a full collection after every so many memory changes, none between.
import { expect, test } from "bun:test";
import { CHANGES_PER_COLLECTION, collectionPacer } from "../../src/server/collect-pacer";

test("collects once every `every` changes, and not before", () => {
  let collections = 0;
  const pace = collectionPacer(3, () => collections++);
  const seen: number[] = [];
  for (let i = 0; i < 10; i++) {
    pace();
    seen.push(collections);
  }
  expect(seen).toEqual([0, 0, 1, 1, 1, 2, 2, 2, 3, 3]);
});

test("by default every CHANGES_PER_COLLECTION changes", () => {
  let collections = 0;
  const pace = collectionPacer(undefined, () => collections++);
  for (let i = 0; i < CHANGES_PER_COLLECTION - 1; i++) pace();
  expect(collections).toBe(0);
  pace();
  expect(collections).toBe(1);
});

test("counts a batch as its size", () => {
  let collections = 0;
  const pace = collectionPacer(10, () => collections++);
  pace(16);
  expect(collections).toBe(1);
  pace(9);
  expect(collections).toBe(1);
  pace(1);
  expect(collections).toBe(2);
});
