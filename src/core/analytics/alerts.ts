// Latency alerts (docs/api.md#latency-alerts): the p95 thresholds of analytics.alerts, keyed by
// "server" or "server/tool", checked against the nearest-rank p95 over a recent window of the
// in-memory columns. A key splits at its first "/": server names cannot hold one, tool names may.
import type { LatencyAlert } from "../../contracts/analytics";
import type { InvocationColumns } from "./columns";
import { summarize } from "./query";

export interface AlertWindow {
  sinceMs: number;
  untilMs: number;
  agentId?: string;
}

export function latencyAlerts(cols: InvocationColumns, thresholds: Record<string, number>, window: AlertWindow): LatencyAlert[] {
  const keys = Object.entries(thresholds);
  if (keys.length === 0) return [];
  const usage = summarize(
    cols,
    { agentId: window.agentId, since: new Date(window.sinceMs).toISOString(), until: new Date(window.untilMs).toISOString(), limit: Infinity },
    { everyTool: true, now: window.untilMs },
  );
  const servers = new Map(usage.topServers.map((s) => [s.server, s]));
  const tools = new Map(usage.topTools.map((t) => [`${t.server}/${t.tool}`, t]));
  const alerts: LatencyAlert[] = [];
  for (const [key, threshold] of keys) {
    const slash = key.indexOf("/");
    const found = slash === -1 ? servers.get(key) : tools.get(key);
    if (!found || found.p95 <= threshold) continue;
    alerts.push({ server: found.server, ...(slash === -1 ? {} : { tool: key.slice(slash + 1) }), p95: found.p95, threshold, calls: found.calls });
  }
  return alerts.sort((a, b) => b.p95 / b.threshold - a.p95 / a.threshold || (a.server < b.server ? -1 : 1));
}
