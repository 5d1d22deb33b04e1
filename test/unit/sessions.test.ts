// The pieces of the sessions domain that need no daemon: session keys, the search limit clamp, the
// context block's budget, reading an llm's extraction answer, and feedback's bounds on the order.
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { migrate } from "../../src/db/migrate";
import { MIGRATIONS } from "../../src/db/migrations";
import { HookRequestSchema, SessionSearchRequestSchema, normalizeSessionKey } from "../../src/contracts/session";
import { adjustment, feedbackOrder } from "../../src/core/recall/adjustment";
import { ContextBuilder, clip, memoryLine } from "../../src/core/sessions/context";
import { parseExtraction } from "../../src/core/sessions/extraction";

describe("session keys and contracts", () => {
  test("session:<uuid> and <uuid> name the same session", () => {
    expect(normalizeSessionKey("session:abc-123")).toBe("abc-123");
    expect(normalizeSessionKey("  abc-123 ")).toBe("abc-123");
    expect(normalizeSessionKey("agent:x:subagent:y")).toBe("agent:x:subagent:y");
    expect(normalizeSessionKey("session:")).toBe("session:");
  });

  test("search limit: default 10, larger clamped to 20, under 1 refused", () => {
    expect(SessionSearchRequestSchema.parse({ query: "q" }).limit).toBe(10);
    expect(SessionSearchRequestSchema.parse({ query: "q", limit: 21 }).limit).toBe(20);
    expect(SessionSearchRequestSchema.parse({ query: "q", limit: 5 }).limit).toBe(5);
    expect(SessionSearchRequestSchema.safeParse({ query: "q", limit: 0 }).success).toBe(false);
  });

  test("a hook body needs sessionKey and harness and nothing unknown", () => {
    expect(HookRequestSchema.safeParse({ sessionKey: "s", harness: "claude-code", prompt: "hi" }).success).toBe(true);
    expect(HookRequestSchema.safeParse({ sessionKey: "s" }).success).toBe(false);
    expect(HookRequestSchema.safeParse({ sessionKey: "s", harness: "codex", cwd: "/x" }).success).toBe(false);
  });
});

describe("context block", () => {
  const m = (id: string, content: string) => ({ id, content, type: "fact" });

  test("one line per memory, whitespace folded, long content cut", () => {
    expect(memoryLine(m("id-1", "two\n  lines"))).toBe("- id-1 (fact) two lines");
    const long = memoryLine(m("id-2", "x".repeat(1000)));
    expect(long.length).toBeLessThan(430);
    expect(long.endsWith("…")).toBe(true);
  });

  test("stays within the budget with whole memory lines, and never lists an id twice", () => {
    const block = new ContextBuilder(50, "# Head"); // about 200 characters
    block.text("AGENTS.md", "a".repeat(1000), 0.4);
    block.memories("Pinned", [m("p1", "first pinned"), m("p2", "second pinned"), m("p3", "y".repeat(150))]);
    block.memories("Project", [m("p1", "first pinned"), m("p4", "fourth")]);
    const text = block.build();
    expect(text.length).toBeLessThanOrEqual(200);
    expect(text.startsWith("# Head\n\n## AGENTS.md\n")).toBe(true);
    expect(block.ids).toEqual(["p1", "p2", "p4"]);
    expect(text.match(/p1/g)).toHaveLength(1);
    expect(text).not.toContain("yyyy");
  });

  test("a zero budget yields nothing", () => {
    const block = new ContextBuilder(0, "# Head");
    block.text("USER.md", "hello");
    block.memories("Pinned", [m("p1", "x")]);
    expect(block.build()).toBe("");
    expect(block.ids).toEqual([]);
  });

  test("clip cuts at a line break when one is near", () => {
    expect(clip("line one\nline two\nline three", 22)).toBe("line one\nline two\n…");
    expect(clip("short", 100)).toBe("short");
  });
});

describe("reading an extraction answer", () => {
  test("the JSON object inside prose; bad entries dropped, types, importance and hints checked", () => {
    const r = parseExtraction(
      'Sure! {"summary": " Did things. ", "memories": [{"content": " A fact ", "type": "Decision", "importance": 0.9, "hints": [" how do I a ", "", 7, "b", "c", "d", "e", "f"]},' +
        '{"content": "B", "type": "weird", "importance": 7, "hints": "not a list"}, {"content": 3}, "x", null]} Thanks.',
    );
    expect(r).toEqual({
      summary: "Did things.",
      memories: [
        { content: "A fact", type: "decision", importance: 0.9, hints: ["how do I a", "b", "c", "d", "e"] },
        { content: "B", type: "fact", importance: 0.5, hints: [] },
      ],
    });
  });

  test("no JSON, broken JSON, or the wrong shape: nothing extracted", () => {
    for (const answer of ["no json here", "{broken", '{"memories": "nope"}', "[]"]) {
      expect(parseExtraction(answer)).toEqual({ summary: null, memories: [] });
    }
  });

  test("at most 20 memories", () => {
    const memories = Array.from({ length: 30 }, (_, i) => ({ content: `fact ${i}` }));
    expect(parseExtraction(JSON.stringify({ memories })).memories).toHaveLength(20);
  });
});

describe("feedback's bounds", () => {
  const row = { importance: 0.5, pinned: 0, created_at: new Date().toISOString(), access_count: 0 };
  const now = new Date();

  test("the order moves at most 10% either way", () => {
    expect(feedbackOrder({ feedback: null })).toBe(1);
    expect(feedbackOrder({ feedback: 1 })).toBeCloseTo(1.1);
    expect(feedbackOrder({ feedback: -1 })).toBeCloseTo(0.9);
  });

  test("the score is lowered by negative feedback and never lifted by positive feedback", () => {
    const neutral = adjustment({ ...row, feedback: null }, now);
    expect(adjustment({ ...row, feedback: 1 }, now)).toBe(neutral);
    expect(adjustment({ ...row, feedback: -1 }, now)).toBeCloseTo(neutral * 0.9);
  });
});

test("migration 005 keeps the session_memories rows of earlier versions, in window 0", () => {
  const db = new Database(":memory:");
  migrate(db, MIGRATIONS.filter((m) => m.version <= 4));
  const at = "2026-01-01T00:00:00.000Z";
  db.run(
    `INSERT INTO session_memories (session_key, agent_id, memory_id, source, rank, score, relevance_score, created_at, updated_at)
     VALUES ('s', 'default', 'm1', 'recall', 1, 0.5, NULL, ?1, ?1), ('s', 'default', 'm2', 'injected', 2, NULL, 0.5, ?1, ?1)`,
    [at],
  );
  expect(migrate(db).applied[0]).toBe("005_sessions");
  expect(db.query("SELECT memory_id, injection_window, source, via, rank, relevance_score FROM session_memories ORDER BY memory_id").all()).toEqual([
    { memory_id: "m1", injection_window: 0, source: "recall", via: "recall", rank: 1, relevance_score: null },
    { memory_id: "m2", injection_window: 0, source: "injected", via: "session-start", rank: 2, relevance_score: 0.5 },
  ]);
});
