// Auth benchmark: what the request guard (src/server/guard.ts) costs per request, in process, with
// no network: the guard wraps a handler that answers at once, over a real SQLite database holding
// --tokens API tokens. Compares a local-mode request without a token, a team-mode request with a
// valid token (a SHA-256 and one indexed lookup), the owner's credential, and a refused unknown token.
//
//   bun scripts/bench-auth.ts                    20,000 requests per case, 1,000 stored tokens
//   bun scripts/bench-auth.ts --requests 5000 --tokens 10000 --json
//
// Percentiles are nearest-rank over every request; times come from performance.now().
import { rmSync } from "node:fs";
import { join } from "node:path";
import { TokenService } from "../src/core/auth/tokens";
import { SqliteTokenStore } from "../src/core/auth/sqlite-token-store";
import { RateLimiter } from "../src/core/auth/rate-limit";
import { migrate } from "../src/db/migrate";
import { openDatabase } from "../src/db/open";
import { createGuard, type AuthMode } from "../src/server/guard";
import { parseFlags } from "./lib/args";
import { makeTempDir } from "./lib/daemon";
import { markdownTable, ms } from "./lib/format";
import { stats, type LatencyStats } from "./lib/stats";

const opts = parseFlags(
  process.argv.slice(2),
  { requests: { kind: "int", min: 100 }, tokens: { kind: "int", min: 1 }, json: { kind: "bool" } },
  { requests: 20_000, tokens: 1_000, json: false },
  { script: "bench-auth.ts", line: "usage: bun scripts/bench-auth.ts [--requests N] [--tokens N] [--json]" },
);

const PORT = 3850;
const dir = makeTempDir("signet-bench-auth-");
const db = openDatabase(join(dir, "memories.db"));
migrate(db);
const tokens = new TokenService(new SqliteTokenStore(db));
let live = "";
db.run("BEGIN");
for (let i = 0; i < opts.tokens; i++) live = (await tokens.create({ role: "operator" })).token;
db.run("COMMIT");
const credentials = { adminToken: "owner-credential-for-the-benchmark-0123456789", instanceKey: "instance" };

function guardFor(mode: AuthMode) {
  return createGuard({
    port: () => PORT,
    bind: "127.0.0.1",
    allowedHosts: [],
    allowedOrigins: [],
    credentials,
    mode,
    peerAddress: () => "127.0.0.1",
    checkToken: (t) => tokens.check(t),
    // Reads are not rate limited; a limiter that never refuses keeps mutations out of the picture.
    rateLimiter: new RateLimiter({ mutationsPerMinute: 0, burst: 1 }),
    log: console,
  })(async () => new Response("ok"));
}

const url = `http://127.0.0.1:${PORT}/api/memories`;
const request = (authorization?: string) =>
  new Request(url, { headers: authorization ? { host: `127.0.0.1:${PORT}`, authorization } : { host: `127.0.0.1:${PORT}` } });

const cases: { name: string; mode: AuthMode; authorization?: string; status: number }[] = [
  { name: "local mode, no token", mode: "local", status: 200 },
  { name: "team mode, valid token", mode: "team", authorization: `Bearer ${live}`, status: 200 },
  { name: "team mode, owner credential", mode: "team", authorization: `Bearer ${credentials.adminToken}`, status: 200 },
  { name: "team mode, unknown token (401)", mode: "team", authorization: "Bearer sgt_unknown-token-value-of-ordinary-length-000000", status: 401 },
  { name: "team mode, no token (401)", mode: "team", status: 401 },
];

async function measure(c: (typeof cases)[number]): Promise<LatencyStats> {
  const handle = guardFor(c.mode);
  // Warm up the JIT and the prepared statement.
  for (let i = 0; i < 500; i++) await handle(request(c.authorization));
  const lat = new Float64Array(opts.requests);
  let errors = 0;
  const started = performance.now();
  for (let i = 0; i < opts.requests; i++) {
    const req = request(c.authorization);
    const t = performance.now();
    const res = await handle(req);
    lat[i] = performance.now() - t;
    if (res.status !== c.status) errors++;
  }
  return stats(lat, performance.now() - started, errors);
}

const results: { name: string; stats: LatencyStats }[] = [];
for (const c of cases) {
  results.push({ name: c.name, stats: await measure(c) });
  process.stderr.write(`measured: ${c.name}\n`);
}
db.close();
rmSync(dir, { recursive: true, force: true });

if (opts.json) {
  console.log(JSON.stringify({ requests: opts.requests, storedTokens: opts.tokens, results }, null, 2));
} else {
  const us = (v: number) => `${(v * 1000).toFixed(1)} µs`;
  // Medians: the means carry the odd garbage-collection pause, which no case owns.
  const base = results[0]!.stats.p50Ms;
  console.log(`guard cost per request, in process (${opts.requests} requests per case, ${opts.tokens} stored tokens)\n`);
  console.log(
    markdownTable(
      ["case", "mean", "p50", "p99", "p50 over local mode", "wrong status"],
      results.map(({ name, stats: s }) => [name, us(s.meanMs), us(s.p50Ms), us(s.p99Ms), us(s.p50Ms - base), String(s.errors)]),
      ["l", "r", "r", "r", "r", "r"],
    ),
  );
  console.log(`\n(local mode's median is ${ms(base)}; each Request is built before its timing starts)`);
}
