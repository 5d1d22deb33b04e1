// The client makes an area's methods (memory, hooks, bridge, ...) the first time it is used, and
// keeps them: a command uses one or two of the thirteen (docs/benchmarks.md#cli-start).
import { expect, test } from "bun:test";
import { SignetClient } from "../../src/client/client";

test("each area is made once, at its first use, and its methods call the daemon's routes", async () => {
  const asked: string[] = [];
  const client = new SignetClient({
    baseUrl: "http://127.0.0.1:9",
    fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
      asked.push(`${init?.method ?? "GET"} ${new URL(String(input)).pathname}`);
      return Response.json({ memories: [] });
    }) as typeof fetch,
  });
  expect(client.memory).toBe(client.memory);
  expect(client.hooks).toBe(client.hooks);
  expect(client.bridge).toBe(client.bridge);
  await client.memory.list({ limit: 1 });
  await client.hooks.sessionStart({ sessionKey: "s1", harness: "claude-code" });
  expect(asked).toEqual(["GET /api/memories", "POST /api/hooks/session-start"]);
});
