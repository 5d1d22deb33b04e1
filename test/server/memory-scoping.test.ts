// Agent scoping of every memory route over real HTTP against a real daemon: isolation between agents,
// how the caller's agent is chosen, and shared agents (read policies: docs/api.md#memories).
import { describe, expect, test } from "bun:test";
import { call, expectError, freshAgent, listIds, remember, useTestDaemon } from "../helpers/memory-api";

const td = useTestDaemon();

describe("agent isolation", () => {
  test("agent B cannot see agent A's memories via the x-signet-agent-id header", async () => {
    const a = freshAgent("iso-a");
    const b = freshAgent("iso-b");
    const m = await remember(td(), a, { content: "A's secret plan" });
    expectError(await call(td(), "GET", `/api/memory/${m.id}`, { agent: b }), 404, "not_found");
    expectError(await call(td(), "GET", `/api/memory/${m.id}/history`, { agent: b }), 404, "not_found");
    expect(await listIds(td(), b)).not.toContain(m.id);
    expectError(await call(td(), "PATCH", `/api/memory/${m.id}`, { body: { reason: "r", content: "hijack" }, agent: b }), 404, "not_found");
    expectError(await call(td(), "DELETE", `/api/memory/${m.id}`, { body: { reason: "r", force: true }, agent: b }), 404, "not_found");
    expectError(await call(td(), "POST", `/api/memory/${m.id}/recover`, { body: {}, agent: b }), 404, "not_found");
    // A's memory is untouched.
    const got = (await call(td(), "GET", `/api/memory/${m.id}`, { agent: a })).body;
    expect(got.content).toBe("A's secret plan");
    expect(got.version).toBe(1);
    expect(got.deletedAt).toBeNull();
  });

  test("another agent's memory is indistinguishable from a missing one", async () => {
    const a = freshAgent("iso-a");
    const b = freshAgent("iso-b");
    const m = await remember(td(), a, { content: "hidden" });
    const hidden = await call(td(), "GET", `/api/memory/${m.id}`, { agent: b });
    const missingId = crypto.randomUUID();
    const missing = await call(td(), "GET", `/api/memory/${missingId}`, { agent: b });
    expect(hidden.status).toBe(missing.status);
    expect(hidden.body.error.replace(m.id, "ID")).toBe(missing.body.error.replace(missingId, "ID"));
  });

  test("without a header the caller is the default agent", async () => {
    const a = freshAgent("iso-a");
    const m = await remember(td(), a, { content: "not default's" });
    expectError(await call(td(), "GET", `/api/memory/${m.id}`), 404, "not_found");
    const d = await call(td(), "POST", "/api/memory/remember", { body: { content: `default agent memory ${a}` } });
    expect(d.body.agentId).toBe("default");
  });

  test("agentId in the body scopes remember, modify and forget", async () => {
    const a = freshAgent("iso-a");
    const b = freshAgent("iso-b");
    // Header says A, body says B: the body names the agent.
    const res = await call(td(), "POST", "/api/memory/remember", { body: { content: "body-scoped", agentId: b }, agent: a });
    expect(res.status).toBe(201);
    expect(res.body.agentId).toBe(b);
    expect(await listIds(td(), a)).not.toContain(res.body.id);
    expect(await listIds(td(), b)).toContain(res.body.id);

    const ma = await remember(td(), a, { content: "A owns this" });
    expectError(
      await call(td(), "PATCH", `/api/memory/${ma.id}`, { body: { reason: "r", content: "x", agentId: b }, agent: a }),
      404,
      "not_found",
    );
    expectError(await call(td(), "DELETE", `/api/memory/${ma.id}`, { body: { reason: "r", agentId: b }, agent: a }), 404, "not_found");
    expect((await call(td(), "GET", `/api/memory/${ma.id}`, { agent: a })).body.version).toBe(1);
  });

  test("agent_id in the list query scopes the list", async () => {
    const a = freshAgent("iso-a");
    const b = freshAgent("iso-b");
    const ma = await remember(td(), a, { content: "listed for A" });
    const mb = await remember(td(), b, { content: "listed for B" });
    expect(await listIds(td(), a, `agent_id=${b}`)).toEqual([mb.id]);
    expect(await listIds(td(), b, `agent_id=${a}`)).toEqual([ma.id]);
    expect(await listIds(td(), "default", `agent_id=${a}`)).toEqual([ma.id]);
  });

  test("an invalid x-signet-agent-id header -> 400", async () => {
    expectError(await call(td(), "GET", "/api/memories", { agent: "not a valid id" }), 400, "invalid_input", /agent/i);
    expectError(await call(td(), "POST", "/api/memory/remember", { body: { content: "x" }, agent: "-leading-dash" }), 400, "invalid_input");
    expectError(await call(td(), "GET", "/api/memories", { agent: "a".repeat(129) }), 400, "invalid_input");
  });

  test("provenance headers never grant anything", async () => {
    const a = freshAgent("iso-a");
    const b = freshAgent("iso-b");
    const m = await remember(td(), a, { content: "provenance is not permission" });
    const res = await call(td(), "GET", `/api/memory/${m.id}`, { agent: b, actor: a, actorType: "operator", headers: { "x-signet-runtime-path": "plugin" } });
    expectError(res, 404, "not_found");
  });
});

describe("shared agents (agents.<id>.readPolicy: shared)", () => {
  const shared = useTestDaemon({ yaml: "agents:\n  shared-a:\n    readPolicy: shared\n" });

  test("agent B can read shared-a's memories (get, history and list)", async () => {
    const m = await remember(shared(), "shared-a", { content: "team convention: tabs", tags: ["style"] });
    const got = await call(shared(), "GET", `/api/memory/${m.id}`, { agent: "agent-b" });
    expect(got.status).toBe(200);
    expect(got.body.content).toBe("team convention: tabs");
    expect(got.body.agentId).toBe("shared-a");
    expect((await call(shared(), "GET", `/api/memory/${m.id}/history`, { agent: "agent-b" })).status).toBe(200);
    expect(await listIds(shared(), "agent-b")).toContain(m.id);
    expect(await listIds(shared(), "agent-b", "tags=style")).toContain(m.id);
  });

  test("agent B cannot modify, forget or recover shared-a's memories: 403 forbidden", async () => {
    const m = await remember(shared(), "shared-a", { content: "read only for others" });
    expectError(await call(shared(), "PATCH", `/api/memory/${m.id}`, { body: { reason: "r", content: "changed" }, agent: "agent-b" }), 403, "forbidden");
    expectError(await call(shared(), "DELETE", `/api/memory/${m.id}`, { body: { reason: "r" }, agent: "agent-b" }), 403, "forbidden");
    expectError(await call(shared(), "DELETE", `/api/memory/${m.id}`, { body: { reason: "r", force: true }, agent: "agent-b" }), 403, "forbidden");
    expect((await call(shared(), "DELETE", `/api/memory/${m.id}`, { body: { reason: "owner forgets" }, agent: "shared-a" })).status).toBe(200);
    expectError(await call(shared(), "POST", `/api/memory/${m.id}/recover`, { body: {}, agent: "agent-b" }), 403, "forbidden");
    const got = (await call(shared(), "GET", `/api/memory/${m.id}`, { agent: "shared-a" })).body;
    expect(got.content).toBe("read only for others");
    expect(got.history.map((h: any) => h.action)).toEqual(["create", "forget"]);
  });

  test("forgotten shared memories are not listed for others", async () => {
    const m = await remember(shared(), "shared-a", { content: "shared then forgotten" });
    await call(shared(), "DELETE", `/api/memory/${m.id}`, { body: { reason: "x" }, agent: "shared-a" });
    expect(await listIds(shared(), "agent-b")).not.toContain(m.id);
  });

  test("B's own memories stay private from shared-a and from other agents", async () => {
    const mb = await remember(shared(), "agent-b", { content: "B's private note" });
    expectError(await call(shared(), "GET", `/api/memory/${mb.id}`, { agent: "shared-a" }), 404, "not_found");
    expectError(await call(shared(), "GET", `/api/memory/${mb.id}`, { agent: "agent-c" }), 404, "not_found");
    expect(await listIds(shared(), "shared-a")).not.toContain(mb.id);
  });

  test("a private agent's memories stay invisible even with sharing configured", async () => {
    const mc = await remember(shared(), "private-c", { content: "C is private" });
    expectError(await call(shared(), "GET", `/api/memory/${mc.id}`, { agent: "agent-b" }), 404, "not_found");
    expect(await listIds(shared(), "agent-b")).not.toContain(mc.id);
  });

  test("B writing the same content as shared-a makes B's own memory (dedupe is per agent)", async () => {
    const ma = await remember(shared(), "shared-a", { content: "same content shared" });
    const res = await call(shared(), "POST", "/api/memory/remember", { body: { content: "same content shared" }, agent: "agent-b" });
    expect(res.status).toBe(201);
    expect(res.body.id).not.toBe(ma.id);
    expect(res.body.agentId).toBe("agent-b");
  });
});
