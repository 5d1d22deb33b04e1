// The analytics answer of docs/api.md#analytics from the in-memory columns. One filtered scan counts per tool,
// agent and (day, server) and notes the matching rows; their latencies are then gathered into one
// buffer laid out tool by tool with each server's tools side by side, so sorting a tool's segment,
// then a server's, then the whole buffer gives nearest-rank percentiles at every level.
import { ANALYTICS_DEFAULT_LIMIT, type AgentUsage, type AnalyticsResponse, type ServerUsage, type TimelinePoint, type ToolUsage, INVOCATION_SOURCES, type InvocationSource } from "../../contracts/analytics";
import { SOURCE_MASK, SUCCESS_BIT, type InvocationColumns } from "./columns";
import { DAY_MS } from "../../contracts/analytics";

export interface AnalyticsFilter {
  agentId?: string;
  server?: string;
  source?: InvocationSource;
  /** Inclusive bounds on created_at, ISO-8601. */
  since?: string;
  until?: string;
  /** How many servers, tools and agents to list (default 10). */
  limit?: number;
}

export interface SummaryOptions {
  /** List every tool, not the top `limit` (the per-server view). */
  everyTool?: boolean;
  /** Always give this server a zero-filled timeline, calls or not (the per-server view). */
  timelineServer?: string;
  /** The clock, for "the last 7 days". */
  now?: number;
}

const TIMELINE_DAYS = 7;

/** Nearest-rank percentile (rank ⌈p/100·n⌉) of an ascending array; null when it is empty. */
export function nearestRank(sorted: ArrayLike<number>, p: number): number | null {
  const n = sorted.length;
  if (n === 0) return null;
  // p·n is a whole number, so the division rounds the way the rank needs.
  return sorted[Math.max(1, Math.ceil((p * n) / 100)) - 1]!;
}

function percentiles(segment: Uint32Array): { p50: number; p95: number } {
  segment.sort();
  return { p50: nearestRank(segment, 50)!, p95: nearestRank(segment, 95)! };
}

const dayString = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** Ids with calls, most first, ties by `name`. */
function ranked(calls: Uint32Array, name: (id: number) => string): number[] {
  const ids: number[] = [];
  for (let id = 0; id < calls.length; id++) if (calls[id]! > 0) ids.push(id);
  return ids.sort((a, b) => calls[b]! - calls[a]! || (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0));
}

export function summarize(cols: InvocationColumns, filter: AnalyticsFilter, options: SummaryOptions = {}): AnalyticsResponse {
  const limit = filter.limit ?? ANALYTICS_DEFAULT_LIMIT;
  const { length, tool, agent, flags, latency, at } = cols.view();
  const toolServer = Uint32Array.from(cols.toolServer);
  const nTools = toolServer.length;
  const nServers = cols.servers.length;
  const sinceMs = filter.since === undefined ? -Infinity : Date.parse(filter.since);
  const untilMs = filter.until === undefined ? Infinity : Date.parse(filter.until);
  const wantSource = filter.source === undefined ? -1 : INVOCATION_SOURCES.indexOf(filter.source);
  // An agent or server never seen matches nothing: -2 and an all-zero tool mask.
  const wantAgent = filter.agentId === undefined ? -1 : (cols.agentId(filter.agentId) ?? -2);
  const wantServer = filter.server === undefined ? -1 : (cols.serverId(filter.server) ?? -2);
  const toolOk = new Uint8Array(nTools);
  for (let t = 0; t < nTools; t++) toolOk[t] = wantServer === -1 || toolServer[t] === wantServer ? 1 : 0;

  const toolCalls = new Uint32Array(nTools);
  const toolFails = new Uint32Array(nTools);
  const agentCalls = new Uint32Array(cols.agents.length);
  const agentFails = new Uint32Array(cols.agents.length);
  // Per day: calls and failures of each server, interleaved. Rows arrive mostly in time order, so
  // the last day's cells are kept at hand.
  const days = new Map<number, Uint32Array>();
  let lastDay = NaN;
  let cells: Uint32Array = new Uint32Array(0);
  const matched = new Uint32Array(length);
  let m = 0;
  for (let i = 0; i < length; i++) {
    const t = tool[i]!;
    if (toolOk[t] === 0) continue;
    const f = flags[i]!;
    if (wantSource !== -1 && (f & SOURCE_MASK) !== wantSource) continue;
    const a = agent[i]!;
    if (wantAgent !== -1 && a !== wantAgent) continue;
    const ms = at[i]!;
    if (ms < sinceMs || ms > untilMs) continue;
    const failed = f & SUCCESS_BIT ? 0 : 1;
    toolCalls[t]!++;
    toolFails[t]! += failed;
    agentCalls[a]!++;
    agentFails[a]! += failed;
    const day = Math.floor(ms / DAY_MS);
    if (day !== lastDay) {
      let found = days.get(day);
      if (!found) days.set(day, (found = new Uint32Array(nServers * 2)));
      cells = found;
      lastDay = day;
    }
    const s = toolServer[t]! * 2;
    cells[s]!++;
    cells[s + 1]! += failed;
    matched[m++] = i;
  }

  // Segments: servers in id order, each server's tools in id order.
  const serverCalls = new Uint32Array(nServers);
  const serverFails = new Uint32Array(nServers);
  const toolsOf: number[][] = Array.from({ length: nServers }, () => []);
  for (let t = 0; t < nTools; t++) {
    const s = toolServer[t]!;
    serverCalls[s]! += toolCalls[t]!;
    serverFails[s]! += toolFails[t]!;
    toolsOf[s]!.push(t);
  }
  const toolStart = new Uint32Array(nTools);
  const serverStart = new Uint32Array(nServers);
  let offset = 0;
  for (let s = 0; s < nServers; s++) {
    serverStart[s] = offset;
    for (const t of toolsOf[s]!) {
      toolStart[t] = offset;
      offset += toolCalls[t]!;
    }
  }
  const lat = new Uint32Array(m);
  const next = toolStart.slice();
  for (let j = 0; j < m; j++) {
    const r = matched[j]!;
    lat[next[tool[r]!]!++] = latency[r]!;
  }

  // Tools first, then servers, then everything: each sort only reorders within what the next level covers.
  const toolIds = ranked(toolCalls, (t) => `${cols.servers[toolServer[t]!]}\u0000${cols.toolNames[t]}`);
  const topTools: ToolUsage[] = (options.everyTool ? toolIds : toolIds.slice(0, limit)).map((t) => ({
    server: cols.servers[toolServer[t]!]!,
    tool: cols.toolNames[t]!,
    calls: toolCalls[t]!,
    successCount: toolCalls[t]! - toolFails[t]!,
    failureCount: toolFails[t]!,
    ...percentiles(lat.subarray(toolStart[t]!, toolStart[t]! + toolCalls[t]!)),
  }));
  const serverIds = ranked(serverCalls, (s) => cols.servers[s]!).slice(0, limit);
  const topServers: ServerUsage[] = serverIds.map((s) => ({
    server: cols.servers[s]!,
    calls: serverCalls[s]!,
    failures: serverFails[s]!,
    ...percentiles(lat.subarray(serverStart[s]!, serverStart[s]! + serverCalls[s]!)),
  }));
  lat.sort();
  let failureCount = 0;
  for (const n of serverFails) failureCount += n;

  const agents: AgentUsage[] = ranked(agentCalls, (a) => cols.agents[a]!)
    .slice(0, limit)
    .map((a) => ({ agentId: cols.agents[a]!, calls: agentCalls[a]!, failures: agentFails[a]! }));

  const listed = topServers.map((s) => s.server);
  if (options.timelineServer !== undefined && !listed.includes(options.timelineServer)) listed.push(options.timelineServer);
  const timeline = buildTimeline(cols, days, listed, { sinceMs, untilMs, now: options.now ?? Date.now() });

  return {
    totalCalls: m,
    successCount: m - failureCount,
    failureCount,
    failureRate: m === 0 ? 0 : failureCount / m,
    latency: { p50: nearestRank(lat, 50), p95: nearestRank(lat, 95) },
    topServers,
    topTools,
    agents,
    timeline,
  };
}

function buildTimeline(
  cols: InvocationColumns,
  days: Map<number, Uint32Array>,
  servers: string[],
  range: { sinceMs: number; untilMs: number; now: number },
): TimelinePoint[] {
  const points: TimelinePoint[] = [];
  const ids = servers.map((server) => ({ server, id: cols.serverId(server) }));
  const point = (day: number, server: string, id: number | undefined): TimelinePoint => {
    const cells = id === undefined ? undefined : days.get(day);
    return { day: dayString(day), server, calls: cells?.[id! * 2] ?? 0, failures: cells?.[id! * 2 + 1] ?? 0 };
  };
  const today = Math.floor(range.now / DAY_MS);
  const firstRecent = today - TIMELINE_DAYS + 1;
  for (let day = firstRecent; day <= today; day++) {
    // Only days the filter's range touches.
    if (day * DAY_MS > range.untilMs || (day + 1) * DAY_MS - 1 < range.sinceMs) continue;
    for (const { server, id } of ids) points.push(point(day, server, id));
  }
  for (const [day, cells] of days) {
    if (day >= firstRecent && day <= today) continue;
    for (const { server, id } of ids) if (id !== undefined && cells[id * 2]! > 0) points.push(point(day, server, id));
  }
  return points.sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : a.server < b.server ? -1 : a.server > b.server ? 1 : 0));
}
