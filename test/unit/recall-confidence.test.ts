// When a recall result is strong (src/core/recall/confidence.ts, docs/api.md#scores): from 0.2, with
// evidence of its own under 0.3. The developer-store cases run for real in
// test/server/recall-calibration.test.ts; here the rule itself, case by case.
import { expect, test } from "bun:test";
import { confidenceOf, hasOwnEvidence } from "../../src/core/recall/confidence";

const BACKGROUND = 0.3;

test("a cosine standing 0.03 above the store's background is evidence of its own", () => {
  expect(hasOwnEvidence({ keyword: 0, cosine: 0.33 }, BACKGROUND)).toBe(true);
  expect(hasOwnEvidence({ keyword: 0, cosine: 0.32 }, BACKGROUND)).toBe(false);
});

test("30% of the query's term weight is, unless the vector leg places the memory below the background", () => {
  expect(hasOwnEvidence({ keyword: 0.3, cosine: 0.3 }, BACKGROUND)).toBe(true);
  expect(hasOwnEvidence({ keyword: 0.3, cosine: 0.29 }, BACKGROUND)).toBe(false);
  // Not among the vector leg's best at all: below its background.
  expect(hasOwnEvidence({ keyword: 0.6, cosine: null }, BACKGROUND)).toBe(false);
  expect(hasOwnEvidence({ keyword: 0.29, cosine: 0.31 }, BACKGROUND)).toBe(false);
});

test("without a vector leg (provider none, or the model down) keyword evidence stands alone", () => {
  expect(hasOwnEvidence({ keyword: 0.3, cosine: null }, null)).toBe(true);
  expect(hasOwnEvidence({ keyword: 0.29, cosine: null }, null)).toBe(false);
});

test("strong from 0.2 with evidence of its own, from 0.3 whatever the evidence; never under 0.2", () => {
  expect(confidenceOf(0.25, true)).toBe("strong");
  expect(confidenceOf(0.25, false)).toBe("weak");
  expect(confidenceOf(0.3, false)).toBe("strong");
  expect(confidenceOf(0.19, true)).toBe("weak");
});
