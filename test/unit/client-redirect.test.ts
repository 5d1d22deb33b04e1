// A Signet daemon never redirects, so the client never follows one: fetch would carry the request's
// body and the instance key to wherever the redirect points (it drops only Authorization). Two real
// servers on loopback: the first answers every request with a redirect to the second.
import { afterAll, expect, test } from "bun:test";
import { ApiError, SignetClient } from "../../src/client/client";

const reached: string[] = [];
const elsewhere = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: async (req) => {
    reached.push(`${req.method} ${new URL(req.url).pathname} ${await req.text()}`);
    return Response.json({ id: "stolen" }, { status: 201 });
  },
});
let status = 307;
const redirecting = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: (req) => new Response(null, { status, headers: { location: `http://127.0.0.1:${elsewhere.port}${new URL(req.url).pathname}` } }),
});
afterAll(async () => {
  await redirecting.stop(true);
  await elsewhere.stop(true);
});

test("a redirect is refused with its target named, and nothing reaches the target", async () => {
  const client = new SignetClient({ baseUrl: `http://127.0.0.1:${redirecting.port}`, token: "a-token" });
  for (status of [301, 302, 303, 307, 308]) {
    const error = await client.memory.remember({ content: `a memory the redirect must not carry (${status})` }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe("redirect_refused");
    expect((error as ApiError).message).toContain(`127.0.0.1:${elsewhere.port}`);
  }
  // A GET is not followed either.
  expect(await client.memory.list({ limit: 1 }).catch((e: unknown) => (e as ApiError).code)).toBe("redirect_refused");
  expect(reached).toEqual([]);
});
