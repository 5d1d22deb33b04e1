// MCP benchmark: memory_search over /mcp (Streamable HTTP) and over stdio (signet-mcp) against the
// same query on POST /api/memory/recall, and signet-mcp's spawn → initialize and spawn → tools/list times (beside Bun's own
// start, \`bun -e 0\`, run before each spawn). Uses the compiled
// binary (build it first: bun run build); a real daemon on a throwaway data directory.
//
//   bun scripts/bench-mcp.ts [--memories 2000] [--queries 300] [--spawns 20] [--provider none] [--json]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { parseFlags } from "./lib/args";
import { makeQueryGenerator } from "./lib/content";
import { ROOT, agentYaml, installCleanup, makeTempDir, spawnDaemon } from "./lib/daemon";
import { markdownTable, ms, verdict } from "./lib/format";
import { postJson, rememberSynthetic } from "./lib/http";
import { stats, type LatencyStats } from "./lib/stats";
import { bunStartMs } from "./lib/bun-start";

const USAGE = "usage: bun scripts/bench-mcp.ts [--memories N] [--queries N] [--spawns N] [--provider builtin|none] [--json]";
const opts = parseFlags(
  process.argv.slice(2),
  {
    memories: { kind: "int", min: 1 },
    queries: { kind: "int", min: 1 },
    spawns: { kind: "int", min: 1 },
    provider: { kind: "string", choices: ["builtin", "none"] },
    json: { kind: "bool" },
  },
  { memories: 2000, queries: 300, spawns: 20, provider: "none", json: false },
  { script: "bench-mcp", line: USAGE },
);
const progress = (line: string) => process.stderr.write(`[mcp] ${line}\n`);
installCleanup(progress);

const TARGETS = { overheadMs: 2, spawnInitMs: 150 };
const MCP_BIN = join(ROOT, "dist", "signet-mcp");
if (!existsSync(MCP_BIN)) {
  process.stderr.write(`bench-mcp: ${MCP_BIN} is missing; build it with \`bun run build\`\n`);
  process.exit(2);
}

async function timed(queries: string[], call: (q: string) => Promise<void>): Promise<LatencyStats> {
  for (const q of queries.slice(0, 20)) await call(q); // warm-up
  const latencies: number[] = [];
  const started = performance.now();
  for (const q of queries) {
    const t0 = performance.now();
    await call(q);
    latencies.push(performance.now() - t0);
  }
  return stats(latencies, performance.now() - started, 0);
}

/**
 * Times from spawning signet-mcp to its answer to `initialize` on stdout, and to its answer to the
 * `tools/list` a harness sends next (after `notifications/initialized`), as a harness's start waits.
 */
async function spawnToAnswers(env: Record<string, string>): Promise<{ initialize: number; toolsList: number }> {
  const line = (message: object) => `${JSON.stringify(message)}\n`;
  const init = line({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-03-26", clientInfo: { name: "bench", version: "1" }, capabilities: {} },
  });
  const t0 = performance.now();
  const proc = Bun.spawn([MCP_BIN], { env, stdin: "pipe", stdout: "pipe", stderr: "ignore" });
  proc.stdin.write(init);
  proc.stdin.flush();
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let initialize = 0;
  while (!text.includes('"id":2')) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    if (initialize === 0 && text.includes('"id":1')) {
      initialize = performance.now() - t0;
      proc.stdin.write(line({ jsonrpc: "2.0", method: "notifications/initialized" }) + line({ jsonrpc: "2.0", id: 2, method: "tools/list" }));
      proc.stdin.flush();
    }
  }
  const toolsList = performance.now() - t0;
  proc.stdin.end();
  await proc.exited;
  if (initialize === 0 || !text.includes('"id":2')) throw new Error(`signet-mcp did not answer initialize and tools/list: ${text.slice(0, 200)}`);
  return { initialize, toolsList };
}

const dataDir = makeTempDir("signet-bench-mcp-");
const daemon = await spawnDaemon({ dataDir, agentYaml: agentYaml(opts.provider), binary: true });
progress(`daemon ${daemon.baseUrl} (pid ${daemon.pid}), loading ${opts.memories} memories`);
await rememberSynthetic(daemon.baseUrl, opts.memories);
const qgen = makeQueryGenerator(7);
const queries = Array.from({ length: opts.queries }, () => qgen().query);

const env: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dataDir, SIGNET_PATH: dataDir, SIGNET_DAEMON_URL: daemon.baseUrl };

progress("POST /api/memory/recall");
const api = await timed(queries, async (query) => {
  const r = await postJson(daemon.baseUrl, "/api/memory/recall", { query, limit: 10 });
  if (r.status !== 200) throw new Error(`recall answered ${r.status}`);
});

const search = (client: Client) => async (query: string) => {
  const r = await client.callTool({ name: "memory_search", arguments: { query, limit: 10 } });
  if (r.isError) throw new Error(`memory_search failed: ${JSON.stringify(r.content)}`);
};

progress("memory_search over /mcp");
const httpClient = new Client({ name: "bench-mcp", version: "1" });
await httpClient.connect(new StreamableHTTPClientTransport(new URL(`${daemon.baseUrl}/mcp`)));
const overHttp = await timed(queries, search(httpClient));
await httpClient.close();

progress("memory_search over stdio");
const stdioClient = new Client({ name: "bench-mcp", version: "1" });
await stdioClient.connect(new StdioClientTransport({ command: MCP_BIN, args: [], env, stderr: "ignore" }));
const overStdio = await timed(queries, search(stdioClient));
await stdioClient.close();

progress(`spawn → initialize → tools/list × ${opts.spawns}, each after a \`bun -e 0\``);
await spawnToAnswers(env); // warm the page cache
await bunStartMs();
const spawnTimes: number[] = [];
const listTimes: number[] = [];
const floorTimes: number[] = [];
for (let i = 0; i < opts.spawns; i++) {
  floorTimes.push(await bunStartMs());
  const answered = await spawnToAnswers(env);
  spawnTimes.push(answered.initialize);
  listTimes.push(answered.toolsList);
}
const spawn = stats(spawnTimes, spawnTimes.reduce((a, b) => a + b, 0), 0);
const toolsList = stats(listTimes, listTimes.reduce((a, b) => a + b, 0), 0);
const floor = stats(floorTimes, floorTimes.reduce((a, b) => a + b, 0), 0);
await daemon.stop();

const result = {
  memories: opts.memories,
  queries: opts.queries,
  provider: opts.provider,
  api,
  mcpHttp: overHttp,
  mcpStdio: overStdio,
  overheadP50Ms: { http: overHttp.p50Ms - api.p50Ms, stdio: overStdio.p50Ms - api.p50Ms },
  spawnToInitialize: spawn,
  spawnToToolsList: toolsList,
  bareBunStart: floor,
  spawnToInitializeRatio: spawn.p50Ms / floor.p50Ms,
};

if (opts.json) {
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} else {
  const row = (name: string, s: LatencyStats, overhead?: number) => [
    name,
    ms(s.p50Ms),
    ms(s.p99Ms),
    overhead === undefined ? "" : ms(overhead),
  ];
  process.stdout.write(
    `Signet MCP benchmark: ${opts.memories} memories, ${opts.queries} sequential memory_search calls per transport, provider ${opts.provider}\n\n`,
  );
  process.stdout.write(
    `${markdownTable(
      ["path", "p50", "p99", "p50 overhead vs API"],
      [
        row("POST /api/memory/recall", api),
        row("memory_search over /mcp", overHttp, result.overheadP50Ms.http),
        row("memory_search over stdio (signet-mcp)", overStdio, result.overheadP50Ms.stdio),
      ],
      ["l", "r", "r", "r"],
    )}\n\n`,
  );
  process.stdout.write(
    `${markdownTable(
      ["target", "result", "target", ""],
      [
        ["/mcp overhead (p50)", ms(result.overheadP50Ms.http), `< ${TARGETS.overheadMs} ms`, verdict(result.overheadP50Ms.http < TARGETS.overheadMs)],
        ["stdio overhead (p50)", ms(result.overheadP50Ms.stdio), `< ${TARGETS.overheadMs} ms`, verdict(result.overheadP50Ms.stdio < TARGETS.overheadMs)],
        [
          "signet-mcp spawn → initialize (p50 / p99)",
          `${ms(spawn.p50Ms)} / ${ms(spawn.p99Ms)} (${result.spawnToInitializeRatio.toFixed(2)}× \`bun -e 0\`, ${ms(floor.p50Ms)})`,
          `< ${TARGETS.spawnInitMs} ms`,
          verdict(spawn.p50Ms < TARGETS.spawnInitMs),
        ],
        ["signet-mcp spawn → tools/list, sent after the initialize answer (p50 / p99)", `${ms(toolsList.p50Ms)} / ${ms(toolsList.p99Ms)}`, "", ""],
      ],
      ["l", "r", "r", "l"],
    )}\n`,
  );
}
