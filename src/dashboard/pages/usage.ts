// Usage: calls per server over 7 days (sparklines), top tools with success/failure, per-agent
// breakdown, p50/p95 bars, latency alerts and unused tools; filters for agent, server and window;
// refreshed every refreshMs (30 s unless ?refresh=<s>).
import { TYPED_ROUTES as R } from "../../contracts/typed-routes";
import { call } from "../api";
import type { Page } from "../page";
import { bar, empty, errorLine, h, replace, sparkline } from "../ui";

const WINDOWS: Record<string, number> = { "24 hours": 24, "7 days": 168, "30 days": 720 };

export const usagePage: Page = ({ root, refreshMs }) => {
  const agent = h("input", { name: "agent", size: 10, placeholder: "all agents" });
  const server = h("input", { name: "server", size: 10, placeholder: "all servers" });
  const windowSel = h("select", { name: "window" }, Object.keys(WINDOWS).map((k) => h("option", { value: String(WINDOWS[k]), selected: k === "7 days" }, k)));
  const form = h("form", { class: "row", "aria-label": "Filters" }, h("label", {}, "Agent", agent), h("label", {}, "Server", server), h("label", {}, "Window", windowSel), h("button", { type: "submit" }, "Apply"));
  const stamp = h("p", { class: "muted", id: "usage-updated" });
  const body = h("div", {}, h("p", { class: "muted" }, "Loading…"));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    void load();
  });
  replace(root, h("h1", {}, "Usage"), form, stamp, body);

  async function load(): Promise<void> {
    const hours = Number(windowSel.value);
    const since = new Date(Date.now() - hours * 3600_000).toISOString();
    const filters = { agent_id: agent.value.trim(), server: server.value.trim() };
    try {
      const [a, week, alerts, unused] = await Promise.all([
        call(R.analytics.summary, { ...filters, since, limit: 20 }),
        // The sparklines always cover the last 7 days: the timeline has a zero for every day.
        call(R.analytics.summary, { ...filters, since: new Date(Date.now() - 7 * 86400_000).toISOString(), limit: 20 }),
        call(R.analytics.alerts, { hours, agent_id: filters.agent_id }),
        // start=false: looking at the dashboard never starts a server.
        call(R.analytics.unused, { start: false }),
      ]);
      const days = [...new Set(week.timeline.map((t) => t.day))].sort().slice(-7);
      const maxP95 = Math.max(1, ...a.topTools.map((t) => t.p95 ?? 0));
      const maxCalls = Math.max(1, ...a.agents.map((x) => x.calls));
      const unusedRows = unused.servers.filter((s) => s.unused.length > 0 || s.status === "unavailable");
      stamp.textContent = `Updated ${new Date().toLocaleTimeString()} · ${a.totalCalls} calls · ${a.failureCount} failed · p50 ${a.latency.p50 ?? "—"} ms · p95 ${a.latency.p95 ?? "—"} ms`;
      replace(
        body,
        a.totalCalls === 0 ? empty("No tool calls in this window. Calls appear here as agents and `signet mcp <server> <tool>` use installed servers.") : null,
        alerts.alerts.length > 0 ? h("section", { "aria-label": "Alerts" }, h("h2", {}, "Latency alerts"), h("ul", { class: "list" }, alerts.alerts.map((x) => h("li", { class: "error" }, `${x.server}${x.tool ? `/${x.tool}` : ""}: p95 ${x.p95} ms over ${x.threshold} ms (${x.calls} calls)`)))) : null,
        h("div", { class: "grid2" },
          h("section", {}, h("h2", {}, "Servers, last 7 days"),
            week.topServers.length === 0 ? empty("No server was called in the last 7 days.") : h("table", {}, h("tbody", {}, week.topServers.map((s) => h("tr", { "data-server": s.server }, h("th", { scope: "row" }, s.server), h("td", {}, sparkline(days.map((d) => week.timeline.find((t) => t.day === d && t.server === s.server)?.calls ?? 0), `${s.server}: calls per day over 7 days`)), h("td", {}, `${s.calls} calls`)))))),
          h("section", {}, h("h2", {}, "Agents"),
            a.agents.length === 0 ? empty("No agent made calls in this window.") : a.agents.map((x) => bar(x.agentId, x.calls, maxCalls, `${x.calls} calls, ${x.failures} failed`))),
        ),
        h("h2", {}, "Top tools"),
        a.topTools.length === 0 ? empty("No tool calls yet.") : h("div", { class: "scroll" }, h("table", { id: "top-tools" }, h("thead", {}, h("tr", {}, ["Tool", "Calls", "OK / failed", "Latency p50 / p95"].map((c) => h("th", { scope: "col" }, c)))), h("tbody", {}, a.topTools.map((t) => h("tr", { "data-tool": `${t.server}/${t.tool}` }, h("td", {}, `${t.server}/${t.tool}`), h("td", {}, t.calls), h("td", {}, `${t.successCount} / ${t.failureCount} (${Math.round((t.successCount / Math.max(1, t.calls)) * 100)}% ok)`), h("td", {}, bar("p50", t.p50 ?? 0, maxP95, `${t.p50 ?? "—"} ms`), bar("p95", t.p95 ?? 0, maxP95, `${t.p95 ?? "—"} ms`, "p95"))))))),
        h("h2", {}, "Unused tools (30 days)"),
        unusedRows.length === 0 ? empty("No unused tools among the servers used since the daemon started.") : h("ul", { class: "list" }, unusedRows.map((s) => h("li", {}, h("strong", {}, s.server), s.status === "unavailable" ? h("span", { class: "error" }, ` unavailable: ${s.error ?? ""}`) : `: ${s.unused.map((u) => u.tool).join(", ")}`))),
      );
    } catch (err) {
      replace(body, errorLine(err));
    }
  }
  void load();
  const timer = setInterval(load, refreshMs);
  return () => clearInterval(timer);
};
