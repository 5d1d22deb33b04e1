// `signet mcp analytics [server]`: usage of MCP tools (docs/api.md#analytics) as JSON, or with --pretty as
// tables and a 7-day sparkline per server, led by the latency alerts breached now (GET /api/mcp/alerts).
// With a server, that server's every tool and alerts. The daemon checks the filters with the
// operations' schemas and its refusal names the one it refuses (exit 2): checking them here first
// would load zod at every command (docs/benchmarks.md#cli-start).
import { defineCommand } from "./command";
import type { AlertsResponse, AnalyticsResponse, InvocationSource, TimelinePoint } from "../contracts/analytics";
import { defined } from "../contracts/parse";
import { clientArgs, clientFor, configFromFlags } from "./context";
import { UsageError } from "./errors";
import { emit } from "./output";
import { textTable } from "./table";

const BARS = "▁▂▃▄▅▆▇█";

const count = (n: number) => n.toLocaleString("en-US");
const latency = (n: number | null) => (n === null ? "-" : `${count(n)} ms`);
const percent = (rate: number) => `${(rate * 100).toFixed(1)}%`;

/** One character per day: · for none, else a bar scaled to the server's busiest day. */
export function sparkline(values: number[]): string {
  const max = Math.max(...values);
  return values.map((v) => (v === 0 ? "·" : BARS[Math.max(1, Math.ceil((v / max) * BARS.length)) - 1])).join("");
}

function renderTimeline(timeline: TimelinePoint[], now: number): string {
  const today = new Date(now);
  const day = (back: number) => new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - back)).toISOString().slice(0, 10);
  const days = Array.from({ length: 7 }, (_, i) => day(6 - i));
  const servers = [...new Set(timeline.map((p) => p.server))];
  if (servers.length === 0) return "";
  const calls = new Map(timeline.map((p) => [`${p.day} ${p.server}`, p.calls]));
  const rows = servers.map((server) => {
    const values = days.map((day) => calls.get(`${day} ${server}`) ?? 0);
    return [server, sparkline(values), count(values.reduce((a, b) => a + b, 0))];
  });
  return `last 7 days (UTC ${days[0]!.slice(5)} → ${days[6]!.slice(5)})\n${textTable(["server", "calls/day", "total"], rows, ["l", "l", "r"])}`;
}

/** Breached thresholds of analytics.alerts, or nothing when none is. */
function renderAlerts(a: AlertsResponse): string {
  if (a.alerts.length === 0) return "";
  return `latency alerts (p95 over the last ${a.window.hours} h above analytics.alerts)\n${textTable(
    ["server/tool", "p95", "threshold", "calls"],
    a.alerts.map((x) => [x.tool === undefined ? x.server : `${x.server}/${x.tool}`, latency(x.p95), latency(x.threshold), count(x.calls)]),
    ["l", "r", "r", "r"],
  )}`;
}

export function renderAnalytics(r: AnalyticsResponse, now = Date.now(), alerts?: AlertsResponse): string {
  const alertText = alerts ? renderAlerts(alerts) : "";
  if (r.totalCalls === 0) return [alertText, "no calls recorded for this selection"].filter(Boolean).join("\n\n");
  const sections = [
    alertText,
    `${count(r.totalCalls)} calls · ${count(r.successCount)} ok · ${count(r.failureCount)} failed (${percent(r.failureRate)}) · ` +
      `p50 ${latency(r.latency.p50)} · p95 ${latency(r.latency.p95)}`,
    textTable(
      ["server", "calls", "failures", "p50", "p95"],
      r.topServers.map((s) => [s.server, count(s.calls), count(s.failures), latency(s.p50), latency(s.p95)]),
      ["l", "r", "r", "r", "r"],
    ),
    textTable(
      ["tool", "calls", "ok", "failed", "p50", "p95"],
      r.topTools.map((t) => [`${t.server}/${t.tool}`, count(t.calls), count(t.successCount), count(t.failureCount), latency(t.p50), latency(t.p95)]),
      ["l", "r", "r", "r", "r", "r"],
    ),
    textTable(
      ["agent", "calls", "failures"],
      r.agents.map((a) => [a.agentId, count(a.calls), count(a.failures)]),
      ["l", "r", "r"],
    ),
    renderTimeline(r.timeline, now),
  ];
  return sections.filter(Boolean).join("\n\n");
}

export const analyticsCommand = defineCommand({
  meta: { name: "analytics", description: "Usage of MCP tools: calls, failures, latency, per server, tool and agent" },
  args: {
    name: { type: "positional", description: "A server: its usage with every tool", required: false },
    server: { type: "string", description: "Same as the positional server" },
    "agent-id": { type: "string", description: "Only this agent's calls" },
    source: { type: "string", description: "Only calls from cli (operators), agent (agents' bridged calls) or mcp (Signet's own tools)" },
    since: { type: "string", description: "Calls at or after this ISO time" },
    until: { type: "string", description: "Calls at or before this ISO time" },
    limit: { type: "string", description: "How many servers, tools and agents to list (default 10, max 100)" },
    "alert-hours": { type: "string", description: "The window latency alerts look at, in hours (default 24, max 720)" },
    ...clientArgs,
  },
  async run({ args }) {
    if (args.name && args.server && args.name !== args.server) {
      throw new UsageError(`two servers given (${args.name} and --server ${args.server}): give one`);
    }
    const server = (args.name || args.server)?.trim();
    if (server === "") throw new UsageError("the server's name cannot be empty");
    const query = defined({
      agent_id: args["agent-id"],
      // Any other word is the daemon's to refuse, naming the field.
      source: args.source as InvocationSource | undefined,
      since: args.since,
      until: args.until,
      limit: args.limit,
    });
    const alertQuery = defined({ hours: args["alert-hours"], agent_id: query.agent_id });
    const client = clientFor(configFromFlags(args)).analytics;
    const [usage, alerts] = await Promise.all([
      server === undefined ? client.summary(query) : client.server(server, query),
      client.alerts(alertQuery),
    ]);
    if (server !== undefined) alerts.alerts = alerts.alerts.filter((a) => a.server === server);
    emit({ ...usage, alerts }, args, ({ alerts: shown, ...r }) => renderAnalytics(r, Date.now(), shown));
  },
});
