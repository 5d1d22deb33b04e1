// A reader that stops early (`signet export | head -1`): the compiled binary ends quietly with exit 0
// (src/cli/output.ts, for every command), whether the command writes through a stream writer
// (export) or process.stdout (daemon logs -f, which also sees the reader leave while it waits for
// the next line).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, json, run, sandbox, type Sandbox } from "../helpers/binary";
import { eventually } from "../helpers/wait";

let s: Sandbox;

beforeAll(async () => {
  s = await sandbox("embedding:\n  provider: none\n");
  expect((await run(["daemon", "start"], { env: s.env })).code).toBe(0);
  // Far more than a pipe holds (64 KiB): the writer is still writing when the reader leaves.
  const graph = join(s.home, "..", "graph.jsonl");
  const lines = Array.from({ length: 20 }, (_, e) =>
    JSON.stringify({ type: "entity", name: `Entity ${e}`, entityType: "thing", observations: Array.from({ length: 50 }, (_, i) => `observation ${i} ${"lorem ipsum ".repeat(40)}`) }),
  );
  writeFileSync(graph, lines.join("\n"));
  const imported = await run(["import", "--from", "server-memory", graph], { env: s.env, timeoutMs: 60_000 });
  expect(json(imported)).toMatchObject({ imported: 1000 });
});

afterAll(async () => {
  await run(["daemon", "stop"], { env: s.env });
});

/**
 * Runs signet with its stdout on a pipe, reads the first chunk, then closes the pipe as `head` does;
 * `meanwhile` runs until signet has exited (10 s at most). Its exit code and stderr, and the chunk.
 */
async function readOneChunk(args: string[], meanwhile: () => void = () => {}): Promise<{ first: string; code: number | null; stderr: string }> {
  const proc = Bun.spawn([BIN, ...args], { env: s.env, stdout: "pipe", stderr: "pipe" });
  try {
    const reader = proc.stdout.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    await eventually(() => {
      meanwhile();
      return proc.exitCode !== null;
    }, 10_000);
    return { first, code: proc.exitCode, stderr: proc.exitCode === null ? "(still running)" : await new Response(proc.stderr).text() };
  } finally {
    if (proc.exitCode === null) proc.kill("SIGKILL");
  }
}

describe("piped into a reader that stops early", () => {
  test("signet export: the header arrives, then the command ends quietly with exit 0", async () => {
    const r = await readOneChunk(["export"]);
    expect(JSON.parse(r.first.split("\n")[0]!)).toMatchObject({ kind: "signet-export", count: 1000 });
    expect(r).toMatchObject({ code: 0, stderr: "" });
  });

  test("signet daemon logs -f: the next line written ends it quietly with exit 0", async () => {
    const log = join(s.dataDir, ".daemon", "logs", "daemon.log");
    // Lines keep coming: the first reaches the reader, one after it meets the closed pipe.
    const r = await readOneChunk(["daemon", "logs", "-f"], () => appendFileSync(log, "a line written while the follower runs\n"));
    expect(r.first).not.toBe("");
    expect(r).toMatchObject({ code: 0, stderr: "" });
  });

  test("signet daemon logs -f: with no line written after the reader left, it ends all the same, promptly", async () => {
    const started = performance.now();
    const r = await readOneChunk(["daemon", "logs", "-f"]);
    expect(r.first).not.toBe("");
    expect(r).toMatchObject({ code: 0, stderr: "" });
    // It polls the pipe every 250 ms; a daemon that writes nothing would have held it forever.
    expect(performance.now() - started).toBeLessThan(5000);
  });
});
