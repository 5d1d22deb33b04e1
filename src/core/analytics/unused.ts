// Unused tools (docs/api.md#unused-tools): each installed server's tool list against the daily
// rollups, which outlive the raw rows, so "no call in 30 days" stays right after retention prunes.
// Tool lists come from the caller (the bridge); a server that cannot list them is reported as
// such, never as "everything unused".
import type { InvocationStore } from "./store";
import { DAY_MS, type UnusedResponse, type UnusedServer } from "../../contracts/analytics";

export interface ServerToolSource {
  name: string;
  enabled: boolean;
  /** The server's tool names, or why they are not known. */
  tools: () => Promise<{ names: string[] } | { status: "unavailable" | "not_listed"; error?: string }>;
}

export async function unusedTools(store: InvocationStore, servers: ServerToolSource[], days: number, now = Date.now()): Promise<UnusedResponse> {
  const since = new Date((Math.floor(now / DAY_MS) - days + 1) * DAY_MS).toISOString().slice(0, 10);
  // Servers are listed side by side: each one's wait is bounded by its own timeout, not summed.
  const answers = await Promise.all(
    servers.map(async (s): Promise<UnusedServer> => {
      if (!s.enabled) return { server: s.name, status: "disabled", tools: 0, unused: [] };
      const listed = await s.tools().catch((err: Error) => ({ status: "unavailable" as const, error: err.message }));
      if (!("names" in listed)) return { server: s.name, ...listed, tools: 0, unused: [] };
      const calls = new Map((await store.lastCalls(s.name, since)).map((r) => [r.tool, r]));
      const names = [...new Set(listed.names)].sort();
      return {
        server: s.name,
        status: "listed",
        tools: names.length,
        unused: names.filter((t) => calls.get(t)?.recent !== 1).map((tool) => ({ tool, lastCalledAt: calls.get(tool)?.last_at ?? null })),
      };
    }),
  );
  return { days, since, servers: answers.sort((a, b) => (a.server < b.server ? -1 : a.server > b.server ? 1 : 0)) };
}
