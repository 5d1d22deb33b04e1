// Sessions: recent sessions with the bypass toggle, transcript search, and one session's tool usage
// and the memories that reached it.
import { TYPED_ROUTES as R } from "../../contracts/typed-routes";
import { agentId, call } from "../api";
import type { Page } from "../page";
import type { SessionMemory, SessionSummary } from "../types";
import { empty, errorLine, excerpt, h, replace, when } from "../ui";

/** Characters of a memory shown in a session's list; the whole memory is a click away. */
const MEMORY_EXCERPT = 160;

/** What the session's hooks do now, in words, and a button that says what it will change. */
function hooksControl(s: SessionSummary, after: () => void): HTMLElement {
  const state = s.bypassed
    ? "Hooks bypassed: this session gets no memories from Signet and nothing of it is recorded."
    : "Hooks on: Signet injects memories into this session and records it.";
  const button = h("button", { type: "button", class: "secondary" }, s.bypassed ? "Turn hooks back on" : "Bypass hooks");
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      await call(R.sessions.bypass, s.key, { enabled: !s.bypassed });
      after();
    } catch (err) {
      button.replaceWith(errorLine(err));
    }
  });
  return h("div", {}, h("span", {}, state), " ", button);
}

/**
 * The memories that reached a session, each by its content (cut short, as text) with its id and how
 * it came; one the caller cannot read (now another agent's, or gone) by its id alone.
 */
async function memoryList(memories: SessionMemory[]): Promise<HTMLElement> {
  if (memories.length === 0) return empty("No memories were injected or recalled in this session.");
  const ids = [...new Set(memories.map((m) => m.memoryId))];
  const found = await Promise.all(ids.map((id) => call(R.memory.get, id).catch(() => null)));
  const byId = new Map(ids.map((id, i) => [id, found[i]]));
  return h(
    "ul",
    { class: "list" },
    memories.map((m) => {
      const memory = byId.get(m.memoryId);
      const text = memory ? excerpt(memory.content.replace(/\s+/g, " ").trim(), MEMORY_EXCERPT) : "(not readable by this agent)";
      const notes = [m.memoryId, m.via, when(m.at), memory?.deletedAt ? `forgotten ${when(memory.deletedAt)}` : null].filter(Boolean).join(" · ");
      return h("li", {}, h("a", { href: `#/memories/${encodeURIComponent(m.memoryId)}` }, h("span", { class: "content" }, text)), h("div", { class: "muted" }, notes));
    }),
  );
}

function listView(root: HTMLElement): void {
  const list = h("div", {});
  const q = h("input", { name: "query", type: "search", size: 30, required: true });
  const hits = h("div", { "aria-live": "polite" });
  const form = h("form", { class: "row", role: "search" }, h("label", {}, "Search transcripts", q), h("button", { type: "submit" }, "Search"));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      const r = await call(R.sessions.search, { query: q.value.trim(), agentId: agentId(), limit: 20 });
      replace(hits, r.hits.length === 0 ? empty("No transcript matches. Transcripts are stored by the session-end hook.") : h("ul", { class: "list" }, r.hits.map((x) => h("li", {}, h("a", { href: `#/sessions/${encodeURIComponent(x.sessionKey)}` }, x.sessionKey), h("div", { class: "content" }, x.excerpt), h("div", { class: "muted" }, `${x.project ?? "no project"} · ${when(x.updatedAt)}`)))));
    } catch (err) {
      replace(hits, errorLine(err));
    }
  });
  async function load(): Promise<void> {
    try {
      const r = await call(R.sessions.list, { limit: 50, agent_id: agentId() });
      replace(
        list,
        r.sessions.length === 0
          ? empty("No sessions for this agent yet. Install the hooks into a harness (signet install) and start a session.")
          : h("div", { class: "scroll" }, h("table", {}, h("thead", {}, h("tr", {}, ["Session", "Harness", "Project", "Updated", "State", "Hooks"].map((c) => h("th", { scope: "col" }, c)))), h("tbody", {}, r.sessions.map((s) => h("tr", {}, h("td", {}, h("a", { href: `#/sessions/${encodeURIComponent(s.key)}` }, s.key)), h("td", {}, s.harness ?? ""), h("td", {}, s.project ?? ""), h("td", {}, when(s.updatedAt)), h("td", {}, s.endedAt ? "ended" : "active"), h("td", {}, hooksControl(s, load))))))),
      );
    } catch (err) {
      replace(list, errorLine(err));
    }
  }
  replace(root, h("h1", {}, "Sessions"), form, hits, h("h2", {}, "Recent"), list);
  void load();
}

function detailView(root: HTMLElement, key: string): void {
  const body = h("div", {}, h("p", { class: "muted" }, "Loading…"));
  replace(root, h("p", {}, h("a", { href: "#/sessions" }, "← All sessions")), h("h1", {}, `Session ${key}`), body);
  async function load(): Promise<void> {
    try {
      const [s, tools] = await Promise.all([call(R.sessions.get, key), call(R.analytics.sessionTools, key)]);
      const memories = await memoryList(s.memories);
      replace(
        body,
        h("div", { class: "card" }, h("p", {}, `${s.harness ?? "?"} · ${s.project ?? "no project"} · started ${when(s.startedAt)} · ${s.endedAt ? `ended ${when(s.endedAt)}` : "active"} · transcript ${s.transcriptChars} characters`), hooksControl(s, load)),
        h("h2", {}, `Tool usage (${tools.totalCalls} calls, ${tools.failures} failed)`),
        tools.tools.length === 0 ? empty("No tool calls recorded for this session.") : h("div", { class: "scroll" }, h("table", {}, h("thead", {}, h("tr", {}, ["Server", "Tool", "Calls", "Failures", "p50 ms", "p95 ms"].map((c) => h("th", { scope: "col" }, c)))), h("tbody", {}, tools.tools.map((t) => h("tr", {}, h("td", {}, t.server), h("td", {}, t.tool), h("td", {}, t.calls), h("td", {}, t.failures), h("td", {}, t.p50 ?? "—"), h("td", {}, t.p95 ?? "—")))))),
        h("h2", {}, `Memories that reached it (${s.memories.length})`),
        memories,
      );
    } catch (err) {
      replace(body, errorLine(err));
    }
  }
  void load();
}

export const sessionsPage: Page = ({ root, args }) => {
  if (args[0]) detailView(root, args[0]);
  else listView(root);
  return undefined;
};
