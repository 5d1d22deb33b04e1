// Overview: health, counts, embedding status and recent activity.
import { TYPED_ROUTES as R } from "../../contracts/typed-routes";
import { call } from "../api";
import type { Page } from "../page";
import { empty, errorLine, h, replace, when } from "../ui";

export const overviewPage: Page = ({ root, refreshMs }) => {
  const body = h("div", {}, h("p", { class: "muted" }, "Loading…"));
  replace(root, h("h1", {}, "Overview"), body);
  async function load(): Promise<void> {
    try {
      const [health, memories, sessions, servers] = await Promise.all([
        call(R.health.health),
        call(R.memory.list, { limit: 8 }),
        call(R.sessions.list, { limit: 1000 }),
        call(R.bridge.list),
      ]);
      const e = health.embedding;
      const card = (label: string, value: string | number, note = "") => h("div", { class: "card" }, h("div", { class: "muted" }, label), h("div", { class: "big" }, value), note ? h("div", { class: "muted" }, note) : null);
      replace(
        body,
        h(
          "div",
          { class: "cards" },
          card("Daemon", health.status, `v${health.version}, up ${Math.round((health.uptimeS ?? 0) / 60)} min`),
          card("Memories", health.db?.memories ?? "?", health.dataDir ?? ""),
          card("Embedding", e ? e.provider : "?", e ? `${e.model ?? "no model"} · ${e.ok ? "ok" : "not ok"}${e.loaded ? "" : " · not loaded yet"} · ${e.pending} pending${e.rejected ? ` · ${e.rejected} rejected` : ""}${e.reindex ? ` · reindex ${e.reindex.state} ${e.reindex.done}/${e.reindex.total}` : ""}` : ""),
          card("Sessions", sessions.count >= 1000 ? "1000+" : sessions.count, "this agent's"),
          card("MCP servers", servers.servers.length, "installed"),
        ),
        h("div", { class: "grid2" },
          h("section", {}, h("h2", {}, "Recent memories"),
            memories.memories.length === 0
              ? empty("No memories yet. Agents store them through their hooks and the memory_store tool; try `signet remember \"…\"`.")
              : h("ul", { class: "list" }, memories.memories.map((m) => h("li", {}, h("a", { href: `#/memories/${encodeURIComponent(m.id)}` }, m.content.slice(0, 120)), h("div", { class: "muted" }, `${m.type} · ${when(m.createdAt)}`))))),
          h("section", {}, h("h2", {}, "Recent sessions"),
            sessions.sessions.length === 0
              ? empty("No sessions yet. Install the hooks into a harness (signet install) and start a session.")
              : h("ul", { class: "list" }, sessions.sessions.slice(0, 5).map((s) => h("li", {}, h("a", { href: `#/sessions/${encodeURIComponent(s.key)}` }, s.key), h("div", { class: "muted" }, `${s.harness ?? "?"} · ${s.project ?? "no project"} · ${when(s.updatedAt)}`))))),
        ),
      );
    } catch (err) {
      replace(body, errorLine(err));
    }
  }
  void load();
  const timer = setInterval(load, refreshMs);
  return () => clearInterval(timer);
};
