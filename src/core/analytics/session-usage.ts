// One session's tool usage (docs/api.md#per-session-tool-usage): calls, failures and latency per
// tool, from the raw rows (session_key is not rolled up), so it covers what retention keeps.
import type { InvocationStore } from "./store";
import type { SessionToolsResponse, SessionToolUsage } from "../../contracts/analytics";
import { nearestRank } from "./query";

export interface SessionUsageFilter {
  agentId: string;
  /** The key as stored and as the caller spells it (`session:<id>` and `<id>` are one session). */
  sessionKeys: string[];
  since?: string;
  until?: string;
}

export async function sessionToolUsage(store: InvocationStore, sessionKey: string, filter: SessionUsageFilter): Promise<SessionToolsResponse> {
  const rows = await store.sessionCalls(filter.agentId, [...new Set(filter.sessionKeys)], filter.since ?? null, filter.until ?? null);
  const byTool = new Map<string, { server: string; tool: string; latencies: number[]; failures: number }>();
  for (const r of rows) {
    const key = `${r.server}\u0000${r.tool}`;
    let t = byTool.get(key);
    if (!t) byTool.set(key, (t = { server: r.server, tool: r.tool, latencies: [], failures: 0 }));
    t.latencies.push(r.latency_ms);
    if (r.success !== 1) t.failures++;
  }
  const tools: SessionToolUsage[] = [...byTool.values()]
    .map((t) => {
      const sorted = Float64Array.from(t.latencies).sort();
      return { server: t.server, tool: t.tool, calls: sorted.length, failures: t.failures, p50: nearestRank(sorted, 50)!, p95: nearestRank(sorted, 95)! };
    })
    .sort((a, b) => b.calls - a.calls || (a.server < b.server ? -1 : a.server > b.server ? 1 : a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0));
  let failures = 0;
  for (const t of tools) failures += t.failures;
  return { sessionKey, agentId: filter.agentId, totalCalls: rows.length, failures, tools };
}
