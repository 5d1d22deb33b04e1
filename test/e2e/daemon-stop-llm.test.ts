// `signet daemon stop` while a recall waits for the configured llm, with the compiled binary: the
// daemon aborts the call, the recall answers with its fallback, and the daemon stops cleanly (its
// log ends with "stopped", its pid file removed), long before stop's SIGKILL. The llm is a local fake
// of the OpenAI chat API (a paid service stands behind the real one) that holds every call until its
// caller gives up on it.
import { afterAll, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { json, run, sandbox, startDaemonIn } from "../helpers/binary";
import { silentChat } from "../helpers/silent-llm";
import { eventually } from "../helpers/wait";

const llm = silentChat();
afterAll(() => llm.stop());

test("a recall waiting for the llm answers in its own order, and the daemon stops cleanly", async () => {
  const s = await sandbox(llm.yaml);
  await startDaemonIn(s);
  try {
    for (const content of ["The staging database is heron-8", "The staging database runs Postgres 16"]) {
      expect((await run(["remember", content], { env: s.env })).code).toBe(0);
    }
    const recall = fetch(`http://127.0.0.1:${s.port}/api/memory/recall`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: "staging database" }),
    });
    expect(await eventually(() => llm.calls() > 0, 15_000)).toBe(true);
    const stop = await run(["daemon", "stop"], { env: s.env });
    expect(stop.code).toBe(0);
    expect(json(stop)).toMatchObject({ stopped: true });
    const res = await recall;
    expect(res.status).toBe(200);
    const body = (await res.json()) as { results: unknown[]; meta: { rerank: { status: string; reason: string } } };
    expect(body.results).toHaveLength(2);
    expect(body.meta.rerank).toMatchObject({ status: "failed", reason: expect.stringContaining("the daemon is stopping") });
    const log = readFileSync(join(s.dataDir, ".daemon", "logs", "daemon.log"), "utf8").trimEnd().split("\n");
    expect(log.at(-1)).toContain("stopped");
    expect(existsSync(join(s.dataDir, ".daemon", "daemon.pid"))).toBe(false);
  } finally {
    await run(["daemon", "stop"], { env: s.env });
  }
}, 30_000);
