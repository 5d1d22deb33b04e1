// The compiled daemon with the builtin embedding model loads the model when there is first
// something to embed (core/embed/lazy.ts): until then it runs no more threads than a keyword-only
// daemon, and its first memory starts the model's compute threads.
import { afterAll, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { json, run, sandbox, type Sandbox } from "../helpers/binary";
import { eventually } from "../helpers/wait";

const started: Sandbox[] = [];
afterAll(async () => {
  for (const s of started) await run(["daemon", "stop"], { env: s.env });
});

async function startDaemon(provider: string): Promise<{ s: Sandbox; pid: number }> {
  const s = await sandbox(`embedding:\n  provider: ${provider}\n`);
  started.push(s);
  const r = await run(["daemon", "start", "--json"], { env: s.env });
  expect(r.code).toBe(0);
  return { s, pid: json<{ pid: number }>(r).pid };
}

/** The process's Web Worker threads (Bun names them "Worker"); the model runs one per core. */
function webWorkerThreads(pid: number): number {
  let n = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      if (readFileSync(`/proc/${pid}/task/${task}/comm`, "utf8").trim() === "Worker") n++;
    } catch {
      // the thread ended meanwhile
    }
  }
  return n;
}

const health = async (s: Sandbox) => (await (await fetch(`http://127.0.0.1:${s.port}/health`)).json()) as { embedding: Record<string, unknown> };

test("a builtin daemon that embeds nothing runs the threads of a keyword-only one; its first memory starts the model", async () => {
  const [builtin, keywordOnly] = await Promise.all([startDaemon("builtin"), startDaemon("none")]);
  expect(await eventually(async () => (await health(builtin.s)).embedding.model !== null, 30_000)).toBe(true);
  expect((await health(builtin.s)).embedding).toEqual({ provider: "builtin", model: "use-lite-512", ok: true, loaded: false, pending: 0 });
  const status = await run(["embed", "status", "--pretty"], { env: builtin.s.env });
  expect(status.stdout).toContain("provider builtin, model use-lite-512: ok, model not loaded yet (it loads when there is first something to embed)");
  const doctor = json<{ checks: { area: string; status: string; detail: string }[] }>(await run(["doctor", "--json"], { env: builtin.s.env }));
  expect(doctor.checks.find((c) => c.area === "embedder")).toEqual({
    area: "embedder",
    status: "ok",
    detail: "builtin (use-lite-512): ok, model not loaded yet (it loads when there is first something to embed), 0 pending",
  });
  expect(webWorkerThreads(builtin.pid)).toBe(webWorkerThreads(keywordOnly.pid));

  expect((await run(["remember", "The kitten is asleep on the sofa"], { env: builtin.s.env })).code).toBe(0);
  const embedded = async () => {
    const { embedding } = await health(builtin.s);
    return embedding.loaded === true && embedding.pending === 0;
  };
  expect(await eventually(embedded, 60_000)).toBe(true);
  expect(webWorkerThreads(builtin.pid)).toBeGreaterThan(webWorkerThreads(keywordOnly.pid));
}, 90_000);
