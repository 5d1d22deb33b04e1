// A request the daemon does not answer in time (a stopped or swapping daemon) may still be carried
// out when it runs again: the client's error says so for a request that changes something, not for
// a read; neither says the daemon is not running. A real server on loopback that holds every request past the client's timeout.
import { afterAll, expect, test } from "bun:test";
import { DaemonUnreachableError, SignetClient } from "../../src/client/client";

const held: Promise<void>[] = [];
const slow = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: async () => {
    const wait = Bun.sleep(1500);
    held.push(wait);
    await wait;
    return Response.json({ id: "late" }, { status: 201 });
  },
});
afterAll(async () => {
  await Promise.all(held);
  await slow.stop(true);
});

test("a write with no answer in time says it may still be carried out; a read does not", async () => {
  const client = new SignetClient({ baseUrl: `http://127.0.0.1:${slow.port}`, timeoutMs: 200 });
  const write = await client.memory.remember({ content: "a memory the daemon is slow to take" }).catch((e: unknown) => e);
  expect(write).toBeInstanceOf(DaemonUnreachableError);
  expect((write as Error).message).toContain("no answer within 200 ms; the request was sent, so the daemon may still carry it out: check before sending it again");
  const read = await client.memory.list({ limit: 1 }).catch((e: unknown) => e);
  // A recall is a POST, and only reads.
  const recall = await client.memory.recall({ query: "anything" }).catch((e: unknown) => e);
  expect((recall as Error).message).toContain("no answer within 200 ms");
  expect((recall as Error).message).not.toContain("may still carry it out");
  expect(read).toBeInstanceOf(DaemonUnreachableError);
  expect((read as Error).message).toContain("no answer within 200 ms");
  expect((read as Error).message).not.toContain("may still carry it out");
  // Something took each request: the daemon runs, it was slow.
  for (const e of [write, recall, read]) {
    expect((e as Error).message).toStartWith(`the daemon at http://127.0.0.1:${slow.port} did not answer (no answer within 200 ms`);
    expect((e as Error).message).not.toContain("not running");
  }
});
