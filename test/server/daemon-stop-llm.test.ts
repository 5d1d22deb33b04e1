// Stopping the daemon while requests wait for the configured llm (docs/architecture.md#lifecycle):
// every llm call in flight is aborted, so each request answers with its documented fallback at once
// and the stop does not wait for the model's own timeouts (10 s to 120 s). The llm is a local fake
// of the OpenAI chat API (a paid service stands behind the real one) that never answers on its own:
// it holds each call until the caller gives up on it.
import { afterEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load";
import { startDaemon, type RunningDaemon } from "../../src/server/daemon";
import { SignetClient } from "../../src/client/client";
import { recordingLogger } from "../helpers/log";
import { tempDir } from "../helpers/temp-cleanup";
import { silentChat } from "../helpers/silent-llm";
import { eventually } from "../helpers/wait";

interface Running {
  daemon: RunningDaemon;
  lines: string[];
  client: SignetClient;
  post(path: string, body: unknown): Promise<Response>;
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startWithSilentLlm(): Promise<Running & { llm: ReturnType<typeof silentChat> }> {
  const llm = silentChat();
  cleanups.push(() => llm.stop());
  const dataDir = tempDir();
  writeFileSync(join(dataDir, "agent.yaml"), llm.yaml);
  const config = loadConfig({ env: { SIGNET_PATH: dataDir, HOME: dataDir } });
  const { log, lines } = recordingLogger();
  const daemon = await startDaemon({ ...config, daemon: { ...config.daemon, port: 0 } }, { log });
  cleanups.push(() => daemon.stop());
  const headers = {
    "content-type": "application/json",
    authorization: `Bearer ${daemon.context.credentials.adminToken}`,
    "x-signet-instance-key": daemon.context.credentials.instanceKey,
  };
  return {
    llm,
    daemon,
    lines,
    client: new SignetClient({ baseUrl: daemon.url, agentId: "default", actor: "test", actorType: "operator", dataDir }),
    post: (path, body) => fetch(`${daemon.url}${path}`, { method: "POST", headers, body: JSON.stringify(body) }),
  };
}

/** Sends the request, waits until the llm has it, stops the daemon, and answers the request's answer. */
async function stopWhileWaiting(d: Running & { llm: ReturnType<typeof silentChat> }, path: string, body: unknown) {
  const before = d.llm.calls();
  const pending = d.post(path, body);
  expect(await eventually(() => d.llm.calls() > before, 15_000)).toBe(true);
  await d.daemon.stop();
  const res = await pending;
  return { status: res.status, body: (await res.json()) as any };
}

describe("stopping the daemon aborts the llm calls in flight", () => {
  test("a recall waiting for the rerank answers in its own order, saying why", async () => {
    const d = await startWithSilentLlm();
    await d.client.memory.remember({ content: "The staging database is heron-8" });
    await d.client.memory.remember({ content: "The staging database runs Postgres 16" });
    const res = await stopWhileWaiting(d, "/api/memory/recall", { query: "staging database" });
    expect(res.status).toBe(200);
    expect(res.body.results).toHaveLength(2);
    expect(res.body.meta.rerank).toMatchObject({ model: "openai/fake", status: "failed" });
    expect(res.body.meta.rerank.reason).toContain("the daemon is stopping");
  }, 30_000);

  test("an aggregate recall answers with the extractive fallback, saying why", async () => {
    const d = await startWithSilentLlm();
    await d.client.memory.remember({ content: "The staging database is heron-8" });
    const res = await stopWhileWaiting(d, "/api/memory/recall", { query: "staging database", aggregate: true, saveAggregate: false });
    expect(res.status).toBe(200);
    expect(res.body.aggregate).toMatchObject({ mode: "extractive", fallback: { reason: "unreachable" } });
    expect(res.body.aggregate.fallback.message).toContain("the daemon is stopping");
    expect(res.body.aggregate.answer).toContain("heron-8");
  }, 30_000);

  test("a Dreaming pass reports the model step failed and runs the rest", async () => {
    const d = await startWithSilentLlm();
    await d.client.memory.remember({ content: "We run Postgres 15 for the orders service.", project: "orders" });
    await d.client.memory.remember({ content: "PostgreSQL backs the billing ledger.", project: "billing" });
    await d.daemon.context.graph.settled();
    const res = await stopWhileWaiting(d, "/api/graph/dream", {});
    expect(res.status).toBe(200);
    expect(res.body.dream.llm).toMatchObject({ model: "openai/fake", status: "failed" });
    expect(res.body.dream.llm.reason).toContain("the daemon is stopping");
  }, 30_000);

  test("a session-end extraction ends as a logged failure, the transcript kept", async () => {
    const d = await startWithSilentLlm();
    const res = await d.post("/api/hooks/session-end", { sessionKey: "ending", harness: "claude-code", transcript: "user: keep the kiln logs for 30 days" });
    expect((await res.json()) as object).toMatchObject({ transcriptStored: true, extraction: "started" });
    expect(await eventually(() => d.llm.calls() > 0, 15_000)).toBe(true);
    await d.daemon.stop();
    expect(d.lines.filter((l) => l.includes("extraction failed"))).toEqual([
      expect.stringMatching(/^warn session ending: extraction failed: the daemon is stopping/),
    ]);
  }, 30_000);
});
