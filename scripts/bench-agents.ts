// Cross-agent benchmark (docs/api.md#live-stream): how long a message takes from POST to the
// recipient's open stream, and how long a restart's replay with Last-Event-ID takes. An in-process
// daemon on a throwaway data directory; the stream is read with fetch like any client.
//
//   bun scripts/bench-agents.ts               200 messages, replay of 2,000
//   bun scripts/bench-agents.ts --messages 50 --replay 500
//   bun scripts/bench-agents.ts --json
//
// Target: every message delivered in under 1 s (SPEC §8).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/config/load";
import { startDaemon } from "../src/server/daemon";
import { parseFlags } from "./lib/args";
import { markdownTable, ms, verdict } from "./lib/format";
import { stats } from "./lib/stats";

const USAGE = "usage: bun scripts/bench-agents.ts [--messages N] [--replay N] [--json]";
const opts = parseFlags(
  process.argv.slice(2),
  { messages: { kind: "int", min: 1 }, replay: { kind: "int", min: 1 }, json: { kind: "bool" } },
  { messages: 200, replay: 2000, json: false },
  { script: "bench-agents", line: USAGE },
);
const TARGET_MS = 1000;
const progress = (line: string) => process.stderr.write(`[agents] ${line}\n`);

const dataDir = mkdtempSync(join(tmpdir(), "signet-bench-agents-"));
writeFileSync(join(dataDir, "agent.yaml"), "embedding:\n  provider: none\n");
const config = loadConfig({ env: { SIGNET_PATH: dataDir, HOME: dataDir } });
const daemon = await startDaemon({ ...config, daemon: { ...config.daemon, port: 0 } });

const post = (content: string) =>
  fetch(`${daemon.url}/api/cross-agent/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-signet-agent-id": "bench-ada" },
    body: JSON.stringify({ content, toAgentId: "bench-bob" }),
  }).then((r) => r.json() as Promise<{ id: number }>);

/** Opens bob's stream; `onEvent` hears each message id as it is read. */
async function openStream(headers: Record<string, string>, onEvent: (id: number) => void): Promise<AbortController> {
  const abort = new AbortController();
  const res = await fetch(`${daemon.url}/api/cross-agent/stream`, { headers: { "x-signet-agent-id": "bench-bob", ...headers }, signal: abort.signal });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  void (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        buffer += decoder.decode(value, { stream: true });
        for (let end = buffer.indexOf("\n\n"); end !== -1; end = buffer.indexOf("\n\n")) {
          const id = /^id: (\d+)$/m.exec(buffer.slice(0, end))?.[1];
          buffer = buffer.slice(end + 2);
          if (id) onEvent(Number(id));
        }
      }
    } catch {
      // aborted
    }
  })();
  return abort;
}

try {
  progress(`live delivery of ${opts.messages} messages, one at a time`);
  let waiting: ((id: number) => void) | null = null;
  const live = await openStream({}, (id) => waiting?.(id));
  const latencies: number[] = [];
  const liveStart = performance.now();
  for (let i = 0; i < opts.messages; i++) {
    const started = performance.now();
    const arrived = new Promise<number>((resolve) => (waiting = resolve));
    const { id } = await post(`bench message ${i}`);
    // One message is in flight at a time, so the next event is this one.
    const seen = await arrived;
    if (seen !== id) throw new Error(`expected message ${id} on the stream, read ${seen}`);
    latencies.push(performance.now() - started);
  }
  const liveStats = stats(latencies, performance.now() - liveStart, 0);
  live.abort();

  progress(`replay of ${opts.replay} missed messages with Last-Event-ID`);
  const from = (await post("replay marker")).id;
  for (let i = 0; i < opts.replay; i++) await post(`missed ${i}`);
  let got = 0;
  const replayStart = performance.now();
  const done = new Promise<void>((resolve) => {
    void openStream({ "last-event-id": String(from) }, () => {
      if (++got === opts.replay) resolve();
    }).then((c) => done.finally(() => c.abort()));
  });
  await done;
  const replayMs = performance.now() - replayStart;

  const figures = {
    live: { ...liveStats, targetMs: TARGET_MS, pass: liveStats.maxMs < TARGET_MS },
    replay: { messages: opts.replay, ms: replayMs, perSec: opts.replay / (replayMs / 1000) },
  };
  if (opts.json) process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
  else {
    process.stdout.write(
      `${markdownTable(
        ["measure", "value", "target"],
        [
          ["delivery p50 (POST to stream)", ms(liveStats.p50Ms), ""],
          ["delivery p99", ms(liveStats.p99Ms), ""],
          ["delivery max", ms(liveStats.maxMs), `< ${TARGET_MS} ms: ${verdict(figures.live.pass)}`],
          [`replay of ${opts.replay} missed`, ms(replayMs), ""],
        ],
        ["l", "r", "l"],
      )}\n`,
    );
  }
} finally {
  await daemon.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
