// Short ids (docs/api.md#short-ids): every route that takes a memory id takes a unique prefix of at
// least 6 characters, resolved within the caller's scope; an ambiguous or too short prefix is a 400
// naming the problem (the candidates, for an ambiguous one), an unknown one a 404.
import { beforeAll, describe, expect, test } from "bun:test";
import { exportRecord } from "../helpers/export-record";
import { call, expectError, useTestDaemon } from "../helpers/memory-api";

const td = useTestDaemon({ yaml: "agents:\n  team:\n    readPolicy: shared\n" });

const ID = {
  mine1: "abcdef01-1111-4111-8111-111111111111",
  mine2: "abcdef02-2222-4222-8222-222222222222",
  team: "abcdee00-3333-4333-8333-333333333333",
  private: "abcded00-4444-4444-8444-444444444444",
};

beforeAll(async () => {
  const records = [
    exportRecord(ID.mine1, "first of mine", "me"),
    exportRecord(ID.mine2, "second of mine", "me"),
    exportRecord(ID.team, "the team's", "team"),
    exportRecord(ID.private, "someone else's", "other"),
  ];
  expect((await td().client().transfer.import({ format: "signet", records })).imported).toBe(4);
});

const get = (id: string, agent = "me") => call(td(), "GET", `/api/memory/${id}`, { agent });

describe("a unique prefix names the memory", () => {
  test("get, history, modify, forget and recover by prefix (any case, dashes included)", async () => {
    expect((await get("abcdef01")).body.id).toBe(ID.mine1);
    expect((await get("ABCDEF01-11")).body.id).toBe(ID.mine1);
    expect((await call(td(), "GET", "/api/memory/abcdef02/history", { agent: "me" })).body.memoryId).toBe(ID.mine2);
    const modified = await call(td(), "PATCH", "/api/memory/abcdef02", { agent: "me", body: { reason: "r", tags: ["t"] } });
    expect({ status: modified.status, id: modified.body.id, version: modified.body.version }).toEqual({ status: 200, id: ID.mine2, version: 2 });
    expect((await call(td(), "DELETE", "/api/memory/abcdef02", { agent: "me", body: { reason: "r" } })).body.id).toBe(ID.mine2);
    expect((await call(td(), "POST", "/api/memory/abcdef02/recover", { agent: "me", body: {} })).body.deletedAt).toBeNull();
  });

  test("the full id still works, and a shared agent's memory is found by prefix but stays read-only", async () => {
    expect((await get(ID.mine1)).body.id).toBe(ID.mine1);
    expect((await get("abcdee")).body.id).toBe(ID.team);
    expectError(await call(td(), "PATCH", "/api/memory/abcdee", { agent: "me", body: { reason: "r", content: "mine now" } }), 403, "forbidden");
  });
});

describe("refused prefixes", () => {
  test("ambiguous: 400 listing the candidates", async () => {
    const res = await get("abcdef0");
    expectError(res, 400, "invalid_input", "ambiguous");
    expect(res.body.error).toContain(ID.mine1);
    expect(res.body.error).toContain(ID.mine2);
    expect(res.body.error).toContain('"first of mine"');
    expect(res.body.error).toContain("give more characters");
    // Writes are refused the same way, and change nothing.
    expectError(await call(td(), "DELETE", "/api/memory/abcdef", { agent: "me", body: { reason: "which?" } }), 400, "invalid_input", "ambiguous");
    expect((await get(ID.mine1)).body.deletedAt).toBeNull();
  });

  test("ambiguity is judged within the caller's scope: another agent's private memory neither counts nor shows", async () => {
    // "abcde" starts all four ids; "abcded" only the private one.
    expectError(await get("abcded"), 404, "not_found", "no memory has an id starting with abcded");
    expect((await get("abcded", "other")).body.id).toBe(ID.private);
    const res = await get("abcdee", "other");
    expect(res.body.id).toBe(ID.team);
    expect((await get("abcdef0")).body.error).not.toContain(ID.private);
  });

  test("too short: fewer than 6 characters is 400 saying how many are needed", async () => {
    for (const short of ["abcde", "abc", "a", "abcd-"]) {
      expectError(await get(short), 400, "invalid_input", "at least its first 6 characters");
    }
  });

  test("unknown: 404, for a prefix and for a whole id alike", async () => {
    expectError(await get("fedcba98"), 404, "not_found", "fedcba98");
    expectError(await get(crypto.randomUUID()), 404, "not_found");
    expectError(await get("not-an-id"), 404, "not_found");
  });
});
