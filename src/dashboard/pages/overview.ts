// Overview: health, counts, embedding status and recent activity. Each card reads on its own, so a
// token whose role may not read one part (a readonly token and the MCP servers) still sees the rest.
import { TYPED_ROUTES as R } from "../../contracts/typed-routes";
import { call } from "../api";
import type { Page } from "../page";
import { empty, errorLine, excerpt, h, replace, when } from "../ui";

/** What a card shows when its read failed: a refusal for the token's role says so, anything else is an error. */
function unavailable(err: unknown): HTMLElement {
  const status = (err as { status?: number }).status;
  if (status === 403) return h("p", { class: "muted" }, `This token's role does not allow it: ${err instanceof Error ? err.message : String(err)}`);
  return errorLine(err);
}

/** The result of a read, or the element saying why there is none. */
async function settle<T>(read: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; shown: HTMLElement }> {
  try {
    return { ok: true, value: await read };
  } catch (err) {
    return { ok: false, shown: unavailable(err) };
  }
}

function card(label: string, value: string | number | HTMLElement, note = ""): HTMLElement {
  return h("div", { class: "card" }, h("div", { class: "muted" }, label), value instanceof HTMLElement ? value : h("div", { class: "big" }, value), note ? h("div", { class: "muted" }, note) : null);
}

export const overviewPage: Page = ({ root, refreshMs }) => {
  const body = h("div", {}, h("p", { class: "muted" }, "Loading…"));
  replace(root, h("h1", {}, "Overview"), body);
  async function load(): Promise<void> {
    const [health, memories, sessions, servers] = await Promise.all([
      settle(call(R.health.health)),
      settle(call(R.memory.list, { limit: 8 })),
      settle(call(R.sessions.list, { limit: 1000 })),
      settle(call(R.bridge.list)),
    ]);
    const e = health.ok ? health.value.embedding : undefined;
    replace(
      body,
      h(
        "div",
        { class: "cards" },
        health.ok ? card("Daemon", health.value.status, `v${health.value.version}, up ${Math.round((health.value.uptimeS ?? 0) / 60)} min`) : card("Daemon", health.shown),
        // /health counts the whole store; the list API gives no count of one agent's memories.
        health.ok ? card("Memories (all agents)", health.value.db?.memories ?? "?", `live, every agent's${health.value.dataDir ? ` · ${health.value.dataDir}` : ""}`) : card("Memories (all agents)", health.shown),
        health.ok ? card("Embedding", e ? e.provider : "?", e ? `${e.model ?? "no model"} · ${e.ok ? "ok" : "not ok"}${e.loaded ? "" : " · not loaded yet"} · ${e.pending} pending${e.rejected ? ` · ${e.rejected} rejected` : ""}${e.reindex ? ` · reindex ${e.reindex.state} ${e.reindex.done}/${e.reindex.total}` : ""}` : "") : card("Embedding", health.shown),
        sessions.ok ? card("Sessions", sessions.value.count >= 1000 ? "1000+" : sessions.value.count, "this agent's") : card("Sessions", sessions.shown),
        servers.ok ? card("MCP servers", servers.value.servers.length, "installed") : card("MCP servers", servers.shown),
      ),
      h(
        "div",
        { class: "grid2" },
        h(
          "section",
          {},
          h("h2", {}, "Recent memories"),
          !memories.ok
            ? memories.shown
            : memories.value.memories.length === 0
              ? empty("No memories yet. Agents store them through their hooks and the memory_store tool; try `signet remember \"…\"`.")
              : h("ul", { class: "list" }, memories.value.memories.map((m) => h("li", {}, h("a", { href: `#/memories/${encodeURIComponent(m.id)}` }, excerpt(m.content, 120)), h("div", { class: "muted" }, `${m.type} · ${when(m.createdAt)}`)))),
        ),
        h(
          "section",
          {},
          h("h2", {}, "Recent sessions"),
          !sessions.ok
            ? sessions.shown
            : sessions.value.sessions.length === 0
              ? empty("No sessions yet. Install the hooks into a harness (signet install) and start a session.")
              : h("ul", { class: "list" }, sessions.value.sessions.slice(0, 5).map((s) => h("li", {}, h("a", { href: `#/sessions/${encodeURIComponent(s.key)}` }, s.key), h("div", { class: "muted" }, `${s.harness ?? "?"} · ${s.project ?? "no project"} · ${when(s.updatedAt)}`)))),
        ),
      ),
    );
  }
  void load();
  const timer = setInterval(load, refreshMs);
  return () => clearInterval(timer);
};
