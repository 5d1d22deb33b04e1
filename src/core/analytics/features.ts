// Scorer features (docs/api.md#scorer-features): calls per day over 7 and 30 days, days since the
// last call and the success rate, per server and tool. Read from the daily rollups, not the raw rows:
// a few rows per (day, server, tool, agent, source), so the answer is cheap and outlives retention.
import type { InvocationStore, ToolTotals } from "./store";
import { DAY_MS, type FeaturesResponse, type ServerFeatures, type UsageFeatures } from "../../contracts/analytics";

export interface FeaturesFilter {
  agentId?: string;
  server?: string;
}

const dayString = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function features(calls7: number, calls30: number, failures30: number, lastAt: string | null, now: number): UsageFeatures {
  return {
    callsPerDay7: calls7 / 7,
    callsPerDay30: calls30 / 30,
    daysSinceLastCall: lastAt === null ? null : Math.max(0, Math.floor((now - Date.parse(lastAt)) / DAY_MS)),
    lastCallAt: lastAt,
    successRate: calls30 === 0 ? null : (calls30 - failures30) / calls30,
  };
}

export async function usageFeatures(store: InvocationStore, filter: FeaturesFilter, now = Date.now()): Promise<FeaturesResponse> {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const rows: ToolTotals[] = await store.toolTotals({
    from7: dayString(today - 6 * DAY_MS),
    from30: dayString(today - 29 * DAY_MS),
    until: dayString(today),
    agentId: filter.agentId ?? null,
    server: filter.server ?? null,
  });
  const servers: ServerFeatures[] = [];
  const byServer = new Map<string, { calls7: number; calls30: number; failures30: number; lastAt: string; tools: ServerFeatures["tools"] }>();
  for (const r of rows) {
    let s = byServer.get(r.server);
    if (!s) byServer.set(r.server, (s = { calls7: 0, calls30: 0, failures30: 0, lastAt: "", tools: [] }));
    s.tools.push({ tool: r.tool, ...features(r.calls7, r.calls30, r.failures30, r.last_at, now) });
    s.calls7 += r.calls7;
    s.calls30 += r.calls30;
    s.failures30 += r.failures30;
    if (r.last_at > s.lastAt) s.lastAt = r.last_at;
  }
  for (const [server, s] of byServer) servers.push({ server, ...features(s.calls7, s.calls30, s.failures30, s.lastAt, now), tools: s.tools });
  return { day: dayString(today), servers };
}
