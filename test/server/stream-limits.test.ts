// Long-lived streams (GET /api/cross-agent/stream, GET /mcp): a token's open streams end when it is
// revoked or expires, and how many one agent and the daemon hold open is capped (docs/security.md).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon";
import { call, expectError, expectForgedRefused, readRes } from "../helpers/memory-api";
import { openSse, type SseReader } from "../helpers/sse";
import { eventually } from "../helpers/wait";

/** The caps of both kinds of stream (src/core/auth/open-streams.ts). */
const PER_AGENT = 16;
const TOTAL = 64;

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const agentHeader = (agent: string) => ({ "x-signet-agent-id": agent });

/** Whether the server ends the stream within `ms` (a bounded wait, not a timing). */
function endsWithin(sse: SseReader, ms = 10_000): Promise<boolean> {
  return Promise.race([sse.ended.then(() => true), Bun.sleep(ms).then(() => false)]);
}

async function connected(sse: SseReader): Promise<SseReader> {
  expect(sse.status).toBe(200);
  await sse.next((e) => e.comment === "connected");
  return sse;
}

describe("a token's streams end with the token", () => {
  let td: TestDaemon;
  const open: SseReader[] = [];
  beforeAll(async () => {
    td = await startTestDaemon({ yaml: "auth:\n  mode: team\n" });
  });
  afterAll(async () => {
    for (const s of open) s.close();
    await td.stop();
  });

  async function createToken(body: Record<string, unknown>): Promise<{ token: string; id: string }> {
    const res = await call(td, "POST", "/api/tokens", { body, headers: td.ownerHeaders });
    expect(res.status).toBe(201);
    return res.body;
  }

  /** A message stream and an /mcp stream of `token`, both connected. */
  async function streamsOf(token: string, headers: Record<string, string> = {}): Promise<SseReader[]> {
    const pair = await Promise.all([
      openSse(`${td.url}/api/cross-agent/stream`, { ...bearer(token), ...headers }),
      openSse(`${td.url}/mcp`, { ...bearer(token), ...headers }),
    ]);
    open.push(...pair);
    return Promise.all(pair.map(connected));
  }

  test("revoking a token ends its message and /mcp streams; another agent's token keeps its own", async () => {
    const doomed = await createToken({ role: "agent", agentId: "revoked-agent" });
    const kept = await createToken({ role: "agent", agentId: "kept-agent" });
    // The forged part: the doomed token naming the kept agent in the header still is the doomed one.
    const [message, mcp] = await streamsOf(doomed.token, agentHeader("kept-agent"));
    const [keptMessage] = await streamsOf(kept.token);
    expect(td.daemon.context.mcpStreams.size).toBe(2);

    expect((await call(td, "DELETE", `/api/tokens/${doomed.id}`, { headers: td.ownerHeaders })).status).toBe(200);
    expect(await endsWithin(message!)).toBe(true);
    expect(await endsWithin(mcp!)).toBe(true);

    // The other token's streams are still open: a message to its agent arrives.
    expect(td.daemon.context.mcpStreams.size).toBe(1);
    const sent = await call(td, "POST", "/api/cross-agent/messages", { body: { toAgentId: "kept-agent", content: "still here?" }, headers: td.ownerHeaders });
    expect(sent.status).toBe(201);
    expect(JSON.parse((await keptMessage!.next((e) => e.event === "message")).data!).content).toBe("still here?");
    // And the revoked token opens nothing new.
    expectError(await readRes(await td.fetch("/api/cross-agent/stream", { headers: bearer(doomed.token) }), "GET"), 401, "unauthorized", "was revoked");
    await expectForgedRefused(td, "GET", "/api/cross-agent/stream");
  });

  test("a token bound to no agent that names one takes a share of its own: it cannot use up that agent's streams", async () => {
    const readonly = await createToken({ role: "readonly" });
    const alice = await createToken({ role: "agent", agentId: "share-alice" });
    const forged = { ...bearer(readonly.token), ...agentHeader("share-alice") };
    const held: SseReader[] = [];
    for (let i = 0; i < PER_AGENT; i++) {
      const sse = await openSse(`${td.url}/mcp`, forged);
      open.push(sse);
      held.push(await connected(sse));
    }
    // The readonly token's own share is full, whichever agent it names...
    const res = await td.fetch("/mcp", { headers: { accept: "text/event-stream", ...forged } });
    expect(res.status).toBe(429);
    expect(((await res.json()) as any).error.message).toContain(`token ${readonly.id} already has ${PER_AGENT} notification streams open`);
    // ...and the agent it named still opens its own.
    const [message, mcp] = await streamsOf(alice.token);
    expect(message!.status).toBe(200);
    expect(mcp!.status).toBe(200);
    for (const s of [...held, message!, mcp!]) s.close();
  });

  test("a token's streams end when it expires", async () => {
    const aging = await createToken({ role: "agent", agentId: "aging-agent", expires: "1m" });
    // A minute is the shortest lifetime the API gives: bring the expiry to a few seconds from now
    // (in the database), before the streams open.
    const at = new Date(Date.now() + 4000).toISOString();
    td.daemon.context.stores.sqlite!.query("UPDATE api_tokens SET expires_at = ? WHERE id = ?").run(at, aging.id);
    const [message, mcp] = await streamsOf(aging.token);
    expect(await endsWithin(message!, 20_000)).toBe(true);
    expect(await endsWithin(mcp!, 20_000)).toBe(true);
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(at));
    expectError(await readRes(await td.fetch("/api/cross-agent/stream", { headers: bearer(aging.token) }), "GET"), 401, "unauthorized", "has expired");
  });
});

describe("how many streams one agent and the daemon hold open", () => {
  let td: TestDaemon;
  const open: SseReader[] = [];
  beforeAll(async () => {
    td = await startTestDaemon();
  });
  afterAll(async () => {
    for (const s of open) s.close();
    await td.stop();
  });

  async function stream(path: string, headers: Record<string, string>): Promise<SseReader> {
    const sse = await openSse(`${td.url}${path}`, headers);
    open.push(sse);
    return sse;
  }

  /** Opens streams until one is accepted (a closed stream's slot is freed once the daemon sees it go). */
  async function acceptedOnce(path: string, headers: Record<string, string>): Promise<SseReader> {
    let accepted: SseReader | undefined;
    expect(
      await eventually(async () => {
        const sse = await stream(path, headers);
        if (sse.status === 200) accepted = sse;
        else sse.close();
        return accepted !== undefined;
      }),
    ).toBe(true);
    return connected(accepted!);
  }

  const refusal = async (path: string, headers: Record<string, string>) =>
    readRes(await td.fetch(path, { headers: { accept: "text/event-stream", ...headers } }), "GET");

  test("message streams: past the cap per agent 429, past the total 503; a closed stream frees its slot", async () => {
    const path = "/api/cross-agent/stream";
    const mine: SseReader[] = [];
    for (let i = 0; i < PER_AGENT; i++) mine.push(await connected(await stream(path, agentHeader("cap-a"))));
    const tooMany = await refusal(path, agentHeader("cap-a"));
    expectError(tooMany, 429, "rate_limited", `agent cap-a already has ${PER_AGENT} message streams open`);
    // Other agents still get theirs, up to the total.
    for (const agent of ["cap-b", "cap-c", "cap-d"]) {
      for (let i = 0; i < PER_AGENT; i++) await connected(await stream(path, agentHeader(agent)));
    }
    const full = await td.fetch(path, { headers: { accept: "text/event-stream", ...agentHeader("cap-e") } });
    expect(full.headers.get("retry-after")).toBe("1");
    expectError(await readRes(full, "GET"), 503, "unavailable", `${TOTAL} message streams are already open`);

    // One of cap-a's ends: its slot goes to whoever asks next, and the total is full again.
    mine.shift()!.close();
    const fresh = await acceptedOnce(path, agentHeader("cap-e"));
    expectError(await refusal(path, agentHeader("cap-e")), 503, "unavailable");
    // The stream that took the slot works: a message reaches it.
    await call(td, "POST", "/api/cross-agent/messages", { body: { toAgentId: "cap-e", content: "made it" }, agent: "cap-f" });
    expect(JSON.parse((await fresh.next((e) => e.event === "message")).data!).content).toBe("made it");
    // Refusals held nothing: after one more of cap-a's ends, cap-a opens one again.
    mine.shift()!.close();
    await acceptedOnce(path, agentHeader("cap-a"));
  });

  test("/mcp streams: past the cap per agent a 429 JSON-RPC error; another agent still opens one; a closed stream frees its slot", async () => {
    const mine: SseReader[] = [];
    for (let i = 0; i < PER_AGENT; i++) mine.push(await connected(await stream("/mcp", agentHeader("mcp-a"))));
    const res = await td.fetch("/mcp", { headers: { accept: "text/event-stream", ...agentHeader("mcp-a") } });
    expect(res.status).toBe(429);
    const body = (await res.json()) as any;
    expect(body.jsonrpc).toBe("2.0");
    expect(body.error.code).toBe(-32000);
    expect(body.error.message).toContain(`agent mcp-a already has ${PER_AGENT} notification streams open`);
    await connected(await stream("/mcp", agentHeader("mcp-b")));
    mine.shift()!.close();
    await acceptedOnce("/mcp", agentHeader("mcp-a"));
  });
});
