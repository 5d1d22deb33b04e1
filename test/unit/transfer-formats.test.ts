// Reading foreign files as memories (src/core/transfer, docs/api.md#foreign-formats): what becomes a
// memory, its tags and type, and the ids that make a second import find the first one's memories.
import { describe, expect, test } from "bun:test";
import { basicMemoryMemories } from "../../src/core/transfer/basic-memory";
import { foreignRecord } from "../../src/core/transfer/foreign";
import { serverMemoryMemories } from "../../src/core/transfer/server-memory";
import type { Caller } from "../../src/core/memory/service";

const caller = (agentId = "me"): Caller => ({ agentId, actor: "cli", actorType: "operator", runtimePath: "cli" });
const NOW = "2026-01-01T00:00:00.000Z";

describe("foreign records", () => {
  const m = { origin: "entity\u0000Ada", content: "Wrote a program", type: "fact", tags: ["Ada"], structured: { source: "x" } };

  test("the id is a UUID made from format, agent, origin and text: the same every time, different for any other", () => {
    const one = foreignRecord("server-memory", caller(), m, NOW, NOW);
    const again = foreignRecord("server-memory", caller(), m, NOW, "2027-01-01T00:00:00.000Z");
    expect("id" in one && "id" in again && one.id === again.id).toBe(true);
    const ids = new Set(
      [
        foreignRecord("basic-memory", caller(), m, NOW, NOW),
        foreignRecord("server-memory", caller("you"), m, NOW, NOW),
        foreignRecord("server-memory", caller(), { ...m, origin: "entity\u0000Bob" }, NOW, NOW),
        foreignRecord("server-memory", caller(), { ...m, content: "Wrote two programs" }, NOW, NOW),
      ].map((r) => ("id" in r ? r.id : r.reason)),
    );
    expect(ids.size).toBe(4);
    expect(ids.has("id" in one ? one.id : "")).toBe(false);
    expect("id" in one ? one.id : "").toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  test("a record as an import writes it: created by the caller, version 1, its history saying where it came from", () => {
    const r = foreignRecord("server-memory", caller(), m, "2025-01-01T00:00:00Z", NOW);
    expect(r).toMatchObject({
      kind: "memory",
      agentId: "me",
      who: "me",
      source: "server-memory",
      createdAt: "2025-01-01T00:00:00.000Z",
      updatedAt: NOW,
      version: 1,
      history: [{ version: 1, action: "create", actor: "cli", actorType: "operator", runtimePath: "cli", reason: "imported from server-memory", createdAt: NOW }],
    });
  });

  test("source names are made valid tags (no commas, at most 100 characters, no repeats); other types become fact", () => {
    const r = foreignRecord("server-memory", caller(), { ...m, type: "Person Of Interest", tags: ["Smith, John", "Smith  John", "x".repeat(150), " ", "a"] }, NOW, NOW);
    expect("tags" in r && r.tags).toEqual(["Smith John", "x".repeat(100), "a"]);
    expect("type" in r && r.type).toBe("fact");
    expect("type" in foreignRecord("basic-memory", caller(), { ...m, type: "Decision" }, NOW, NOW) && foreignRecord("basic-memory", caller(), { ...m, type: "Decision" }, NOW, NOW)).toMatchObject({ type: "decision" });
  });

  test("what cannot be a memory is a reason, not a throw", () => {
    const r = foreignRecord("server-memory", caller(), { ...m, content: "x".repeat(100_001) }, NOW, NOW);
    expect(r).toEqual({ reason: expect.stringContaining("longer than 100000 characters") });
  });
});

describe("server-memory", () => {
  test("observations, a bare entity, a relation", () => {
    expect(serverMemoryMemories({ type: "entity", name: "Ada", entityType: "person", observations: ["a", "b"] }).map((x) => [x.content, x.tags])).toEqual([
      ["Ada: a", ["Ada", "person"]],
      ["Ada: b", ["Ada", "person"]],
    ]);
    expect(serverMemoryMemories({ type: "entity", name: "Engine", entityType: "machine", observations: [] })[0]!.content).toBe("Engine (machine)");
    expect(serverMemoryMemories({ type: "relation", from: "Ada", to: "Engine", relationType: "programmed" })[0]).toMatchObject({
      content: "Ada programmed Engine",
      tags: ["Ada", "Engine"],
      structured: { source: "server-memory", relation: { from: "Ada", relationType: "programmed", to: "Engine" } },
    });
  });

  test("an observation names its entity: it is kept as written when it does, else the entity leads it", () => {
    const observations = ["Leads the platform team", "Alice moved to Berlin", "Reports to alice's manager", "Knows Alicex"];
    expect(serverMemoryMemories({ type: "entity", name: "Alice", entityType: "person", observations }).map((x) => x.content)).toEqual([
      "Alice: Leads the platform team",
      "Alice moved to Berlin",
      "Reports to alice's manager",
      "Alice: Knows Alicex",
    ]);
  });
});

describe("basic-memory", () => {
  const note = (text: string, path = "n.md") => basicMemoryMemories({ path, text });

  test("tags as a YAML list, a flow list or a comma-separated string, # dropped", () => {
    // (Unquoted, " #b" would start a YAML comment.)
    for (const tags of ["[a, b]", "\n  - a\n  - '#b'", "a, b,", "'#a, #b'"]) {
      expect(note(`---\ntitle: T\ntags: ${tags}\n---\n- [fact] x`)[0]!.tags).toEqual(["a", "b", "T"]);
    }
  });

  test("no frontmatter: the title is the file's name; observations are found anywhere, outside code fences", () => {
    const out = note("Intro\n* [idea] first\n```md\n- [idea] fenced\n```\n~~~\n- [idea] also fenced\n~~~\n- [x] done task\n- [idea] last", "dir/My Note.md");
    expect(out.map((x) => [x.content, x.type, x.tags])).toEqual([
      ["first", "idea", ["My Note"]],
      ["last", "idea", ["My Note"]],
    ]);
    expect(out[0]!.structured).toMatchObject({ note: "My Note", path: "dir/My Note.md", permalink: null, noteType: "note" });
  });

  test("a relation with context; a heading-led note keeps its text as is", () => {
    expect(note("---\ntitle: A\n---\n- depends_on [[B C]] (since 2024)")[0]).toMatchObject({
      content: "A depends_on B C",
      structured: { relation: { type: "depends_on", target: "B C", context: "since 2024" } },
    });
    expect(note("---\ntitle: A\n---\n# A\n\ntext")[0]!.content).toBe("# A\n\ntext");
    expect(note("---\ntitle: A\n---\n\n")).toEqual([]);
  });

  test("frontmatter that is not YAML, or not a mapping, is refused naming the problem", () => {
    expect(() => note("---\ntitle: [x\n---\nbody")).toThrow("frontmatter is not valid YAML");
    expect(() => note("---\n- a\n- b\n---\nbody")).toThrow("not a YAML mapping");
  });
});
