// Analytics benchmark: the in-memory invocation store at scale (docs/api.md#analytics). Seeds a throwaway
// database with realistic rows, then measures load, queries, retention and recording in process.
//
//   bun scripts/bench-analytics.ts                 1,000,000 rows
//   bun scripts/bench-analytics.ts --rows 100000   a quicker run
//   bun scripts/bench-analytics.ts --json          machine-readable results on stdout
//
// Progress goes to stderr; the results table (markdown) or JSON goes to stdout. Warm figures are
// nearest-rank over 10 runs after the first (cold) one.
import { parseFlags } from "./lib/args";
import { benchAnalytics } from "./lib/analytics-bench";
import { installCleanup } from "./lib/daemon";
import { int, markdownTable, mib, ms, verdict } from "./lib/format";

const USAGE = "usage: bun scripts/bench-analytics.ts [--rows N] [--json]";
const opts = parseFlags(
  process.argv.slice(2),
  { rows: { kind: "int", min: 1 }, json: { kind: "bool" } },
  { rows: 1_000_000, json: false },
  { script: "bench-analytics", line: USAGE },
);
const progress = (line: string) => process.stderr.write(`[analytics] ${line}\n`);
installCleanup(progress);

/** Warm query target at 1 M rows. */
const QUERY_TARGET_MS = 200;

const f = await benchAnalytics({ rows: opts.rows, progress });
if (opts.json) {
  process.stdout.write(`${JSON.stringify(f, null, 2)}\n`);
} else {
  const us = (v: number) => `${v.toFixed(2)} µs`;
  const rows: string[][] = [
    ["seed (insert + rollups)", ms(f.seedMs), ""],
    ["SQLite GROUP BY server, tool (reference)", ms(f.sqliteGroupByMs), ""],
    ["store load at start", ms(f.loadMs), `${int(f.rows)} rows, ${mib(f.storeBytes)}`],
    ["longest event-loop wait during the load", ms(f.loadMaxBlockMs), ""],
    ...f.queries.flatMap((q) => [
      [`${q.name}: cold`, ms(q.coldMs), ""],
      [`${q.name}: warm p50 / max`, `${ms(q.warmP50Ms)} / ${ms(q.warmMaxMs)}`, verdict(q.warmMaxMs < QUERY_TARGET_MS)],
    ]),
    ["prune the oldest day", ms(f.prune.ms), `${int(f.prune.deletedRows)} rows deleted`],
    ["record() per call", us(f.record.recordUsPerCall), `${int(f.record.calls)} calls`],
    ["flush per row (amortized)", us(f.record.flushUsPerRow), "batched, with rollups"],
  ];
  process.stdout.write(`${markdownTable(["measure", "time", "note"], rows, ["l", "r", "l"])}\n`);
}
