// The servers /mcp keeps between requests: per caller, a few each, for the callers seen last.
import { describe, expect, test } from "bun:test";
import { IdleServers } from "../../src/mcp/idle-servers";

describe("IdleServers", () => {
  test("a server given back for a caller is taken by that caller only", () => {
    const idle = new IdleServers<string>();
    idle.give("a", "server of a");
    expect(idle.take("b")).toBeUndefined();
    expect(idle.take("a")).toBe("server of a");
    expect(idle.take("a")).toBeUndefined();
    expect(idle.size).toBe(0);
  });

  test("a caller keeps at most perCaller servers", () => {
    const idle = new IdleServers<number>(8, 2);
    for (let i = 0; i < 5; i++) idle.give("a", i);
    expect(idle.size).toBe(2);
    expect([idle.take("a"), idle.take("a"), idle.take("a")]).toEqual([1, 0, undefined]);
  });

  test("past maxCallers, the caller used least recently loses its servers", () => {
    const idle = new IdleServers<string>(2, 4);
    idle.give("a", "a1");
    idle.give("b", "b1");
    idle.give("a", "a2"); // a is now the more recent
    idle.give("c", "c1"); // b goes
    expect(idle.take("b")).toBeUndefined();
    expect(idle.take("a")).toBe("a2");
    expect(idle.take("c")).toBe("c1");
    expect(idle.size).toBe(1);
  });
});
