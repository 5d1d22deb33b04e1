// The pure parts of aggregate recall (docs/api.md#aggregate): the evidence budget, the llm's citation
// labels turned into memory ids, and the extractive answer's sentences, dedupe and topics.
import { describe, expect, test } from "bun:test";
import type { RecallResult } from "../../src/contracts/recall";
import { withCitations } from "../../src/core/recall/aggregate";
import { boundedEvidence, type Evidence } from "../../src/core/recall/evidence";
import { EXTRACTIVE_LABEL, extractiveAnswer, sentencesOf } from "../../src/core/recall/extractive";

const A = "11111111-1111-4111-8111-111111111111";
const B = "22222222-2222-4222-8222-222222222222";
const ev = (id: string, content: string, tags: string[] = [], type = "fact"): Evidence => ({ id, content, tags, type, createdAt: "2026-01-01T00:00:00.000Z" });

describe("withCitations", () => {
  const evidence = [ev(A, "a"), ev(B, "b")];

  test("labels become ids; unknown labels and ids are dropped, with their brackets when nothing is left", () => {
    const out = withCitations(`One [M1]. Two [M2, M7]. Three [M9]. Four [${B}]. Five [33333333-3333-4333-8333-333333333333].`, evidence);
    expect(out.answer).toBe(`One [${A}]. Two [${B}]. Three. Four [${B}]. Five.`);
    expect(out.citations).toEqual([A, B]);
  });

  test("brackets that are not citations are left alone", () => {
    const out = withCitations("Use arr[0] and [see docs] [m1]", evidence);
    expect(out.answer).toBe(`Use arr[0] and [see docs] [${A}]`);
  });

  test("no citation at all", () => {
    expect(withCitations("Dark mode.", evidence).citations).toEqual([]);
  });
});

describe("boundedEvidence", () => {
  const result = (id: string, content: string): RecallResult => ({
    id,
    content,
    score: 1,
    type: "fact",
    tags: [],
    importance: 0.5,
    pinned: false,
    who: null,
    project: null,
    createdAt: "",
    matchedBy: "keyword",
    confidence: "strong",
  });

  test("stops at the count, and clips the memory that overruns the characters", () => {
    const rows = Array.from({ length: 5 }, (_, i) => result(String(i), "x".repeat(300)));
    expect(boundedEvidence(rows, { memories: 3, chars: 10_000 }).map((e) => e.id)).toEqual(["0", "1", "2"]);
    const clipped = boundedEvidence(rows, { memories: 10, chars: 700 });
    expect(clipped.map((e) => e.content.length)).toEqual([300, 300, 100]);
    expect(clipped[2]!.content.endsWith("…")).toBe(true);
    // Too little room left to say anything: the evidence ends instead.
    expect(boundedEvidence(rows, { memories: 10, chars: 650 }).length).toBe(2);
  });
});

describe("extractive answer", () => {
  test("sentences: lines and sentence ends, list markers dropped", () => {
    expect(sentencesOf("- First one. Second one!\n## Heading\n1. Third?")).toEqual(["First one.", "Second one!", "Heading", "Third?"]);
  });

  test("near-duplicates are written once citing all; topics by the most shared tag, then type", () => {
    const out = extractiveAnswer([
      ev(A, "The build uses Bun 1.4. CI runs twice a day.", ["build", "ci"]),
      ev(B, "The build uses Bun 1.4!", ["build"]),
      ev("c", "Deploys happen on Fridays.", [], "decision"),
    ]);
    expect(out.answer).toBe(
      [
        EXTRACTIVE_LABEL,
        "",
        "build:",
        `- The build uses Bun 1.4. [${A}, ${B}]`,
        `- CI runs twice a day. [${A}]`,
        "",
        "decision:",
        "- Deploys happen on Fridays. [c]",
      ].join("\n"),
    );
    expect(out.citations).toEqual([A, B, "c"]);
  });
});
