// What a deduped remember says (docs/api.md#dedupe): the stored memory comes back unchanged, and
// `dedupe.ignored` names every field sent with another value than it holds, so nothing is dropped
// without the caller being told.
import { describe, expect, test } from "bun:test";
import { call, freshAgent, remember, useTestDaemon } from "../helpers/memory-api";

const td = useTestDaemon();

describe("dedupe.ignored", () => {
  test("new tags and importance are named, not applied: no new version, the stored values stay", async () => {
    const agent = freshAgent();
    const first = await remember(td(), agent, { content: "Prefer tabs", tags: ["style"], importance: 0.5 });
    expect(first).not.toHaveProperty("dedupe");
    const res = await call(td(), "POST", "/api/memory/remember", { agent, body: { content: "prefer tabs.", tags: ["style", "editor"], importance: 0.9 } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: first.id, deduped: true, dedupe: { ignored: ["importance", "tags"] }, tags: ["style"], importance: 0.5, version: 1 });
    const stored = await call(td(), "GET", `/api/memory/${first.id}`, { agent });
    expect({ tags: stored.body.tags, importance: stored.body.importance, versions: stored.body.history.length }).toEqual({ tags: ["style"], importance: 0.5, versions: 1 });
  });

  test("the same values (tags in any order) are not named: ignored is empty", async () => {
    const agent = freshAgent();
    await remember(td(), agent, { content: "Use Bun", tags: ["a", "b"], type: "decision", pinned: true });
    const res = await call(td(), "POST", "/api/memory/remember", { agent, body: { content: "use bun", tags: "b, a", type: "DECISION", pinned: true } });
    expect(res.body.dedupe).toEqual({ ignored: [] });
  });

  test("every other field sent differently is named, in a fixed order", async () => {
    const agent = freshAgent();
    await remember(td(), agent, { content: "Every field" });
    const body = {
      content: "every field",
      type: "rule",
      importance: 0.7,
      tags: ["t"],
      pinned: true,
      who: "ana",
      sessionKey: "s",
      hints: ["h"],
      transcript: "x",
      structured: { a: 1 },
      reviewAfter: "2030-01-01",
      createdAt: "2020-01-01",
    };
    const res = await call(td(), "POST", "/api/memory/remember", { agent, body });
    expect(res.body.dedupe.ignored).toEqual([
      "type",
      "importance",
      "tags",
      "pinned",
      "who",
      "sessionKey",
      "hints",
      "transcript",
      "structured",
      "reviewAfter",
      "createdAt",
    ]);
  });

  test("a note repeated with new tags says so too", async () => {
    const agent = freshAgent();
    await call(td(), "POST", "/api/memory/note", { agent, body: { content: "note text", title: "T" } });
    const res = await call(td(), "POST", "/api/memory/note", { agent, body: { content: "note text", title: "T", tags: "new" } });
    expect(res.body).toMatchObject({ deduped: true, dedupe: { ignored: ["tags"] } });
  });
});
