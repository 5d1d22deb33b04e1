// Memories: recall search with filters, browsing (live or forgotten), and one memory's card with its
// history, modify, forget (with a reason) and recover.
import type { API } from "../../contracts/api";
import { TYPED_ROUTES as R } from "../../contracts/typed-routes";
import type { BodyOf } from "../../contracts/operation";
import type { RecallAnswerOf } from "../../contracts/recall";
import { agentId, call } from "../api";
import type { Page } from "../page";
import type { Memory, MemoryWithHistory, RecallResult } from "../types";
import { empty, errorLine, excerpt, h, replace, when, whenInvalid } from "../ui";

function memoryItem(m: Memory | RecallResult): HTMLElement {
  return h(
    "li",
    {},
    h("a", { href: `#/memories/${encodeURIComponent(m.id)}` }, h("span", { class: "content" }, excerpt(m.content, 240))),
    h("div", { class: "muted" }, [m.type, ...("score" in m ? [`score ${m.score}`, m.matchedBy, m.confidence === "weak" ? "weak match" : null] : []), m.project, "deletedAt" in m && m.deletedAt ? `forgotten ${when(m.deletedAt)}` : when(m.createdAt)].filter(Boolean).join(" · "), " ", m.tags.map((t) => h("span", { class: "tag" }, t))),
  );
}

function field(label: string, input: HTMLElement): HTMLElement {
  return h("label", {}, label, input);
}

function searchView(root: HTMLElement): void {
  const q = h("input", { name: "query", type: "search", size: 30, placeholder: "what to recall" });
  const type = h("input", { name: "type", size: 10 });
  const tags = h("input", { name: "tags", size: 12, placeholder: "a,b" });
  const project = h("input", { name: "project", size: 12 });
  // Recall filters by importance; the list API has no such filter, so browsing says so by disabling it.
  const importanceMin = h("input", { name: "importanceMin", type: "number", min: 0, max: 1, step: "any", size: 4, disabled: true, title: "Applies to searches only: type a query first" });
  const forgotten = h("input", { name: "forgotten", type: "checkbox" });
  const results = h("div", { "aria-live": "polite" });
  q.addEventListener("input", () => {
    importanceMin.disabled = !q.value.trim();
  });
  async function run(): Promise<void> {
    replace(results, h("p", { class: "muted" }, "Searching…"));
    try {
      if (q.value.trim()) {
        const body: BodyOf<typeof API.recall.recall> = { query: q.value.trim(), limit: 30, agentId: agentId() };
        if (type.value.trim()) body.type = type.value.trim();
        if (tags.value.trim()) body.tags = tags.value.trim();
        if (project.value.trim()) body.project = project.value.trim();
        if (importanceMin.value) body.importanceMin = Number(importanceMin.value);
        // No sourceOnly here: the answer is memories.
        const r = (await call(R.recall.recall, body)) as RecallAnswerOf<typeof body>;
        replace(
          results,
          h("p", { class: "muted" }, `${r.results.length} result(s) · ${r.meta.method} · ${r.meta.tookMs} ms`),
          r.results.length === 0 ? empty("Nothing relevant is stored. Try other words or fewer filters.") : h("ul", { class: "list" }, r.results.map(memoryItem)),
        );
      } else {
        const r = await call(R.memory.list, { limit: 50, type: type.value.trim(), tags: tags.value.trim(), project: project.value.trim(), forgotten: forgotten.checked ? "true" : undefined });
        replace(
          results,
          r.memories.length === 0
            ? empty(forgotten.checked ? "No forgotten memories." : "No memories match. Agents store memories through their hooks and tools; `signet remember \"…\"` adds one.")
            : h("ul", { class: "list" }, r.memories.map(memoryItem)),
          r.hasMore ? h("p", { class: "muted" }, "Showing the newest 50; narrow with filters.") : null,
        );
      }
    } catch (err) {
      replace(results, errorLine(err));
    }
  }
  const form = h("form", { class: "row", role: "search" }, field("Search (empty: browse)", q), field("Type", type), field("Tags", tags), field("Project", project), field("Min importance (search only)", importanceMin), field("Forgotten (browse)", forgotten), h("button", { type: "submit" }, "Search"));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    void run();
  });
  whenInvalid(form, (message) => replace(results, errorLine(message)));
  replace(root, h("h1", {}, "Memories"), form, results);
  void run();
}

function cardView(root: HTMLElement, id: string): void {
  const body = h("div", {}, h("p", { class: "muted" }, "Loading…"));
  const status = h("p", { role: "status" });
  replace(root, h("p", {}, h("a", { href: "#/memories" }, "← All memories")), h("h1", {}, "Memory"), status, body);
  function showProblem(message: string): void {
    status.className = "error";
    status.textContent = message;
  }
  async function act(change: () => Promise<unknown>, done: string): Promise<void> {
    try {
      await change();
      status.className = "ok";
      status.textContent = done;
      await load();
    } catch (err) {
      showProblem(err instanceof Error ? err.message : String(err));
    }
  }
  async function load(): Promise<void> {
    let m: MemoryWithHistory;
    try {
      m = await call(R.memory.get, id);
    } catch (err) {
      replace(body, errorLine(err));
      return;
    }
    const content = h("textarea", { name: "content", rows: 4 });
    content.value = m.content;
    const type = h("input", { name: "type", value: m.type, size: 10 });
    // Any value in 0..1: decay leaves importances such as 0.33, which a step would refuse.
    const importance = h("input", { name: "importance", type: "number", required: true, min: 0, max: 1, step: "any", value: m.importance });
    const tags = h("input", { name: "tags", value: m.tags.join(","), size: 20 });
    const pinned = h("input", { name: "pinned", type: "checkbox", checked: m.pinned });
    const reason = h("input", { name: "reason", required: true, size: 30, placeholder: "why" });
    const edit = h("form", { class: "card", "aria-label": "Modify" }, h("h2", {}, "Modify"), field("Content", content), h("div", { class: "row" }, field("Type", type), field("Importance", importance), field("Tags", tags), field("Pinned", pinned), field("Reason (required)", reason), h("button", { type: "submit" }, "Save")));
    edit.addEventListener("submit", (e) => {
      e.preventDefault();
      const patch: BodyOf<typeof API.memory.modify> = { reason: reason.value.trim(), ifVersion: m.version };
      // A textarea reads back "\r\n" and "\r" as "\n": compare in that form, so content goes only when the user changed it.
      if (content.value !== m.content.replace(/\r\n?/g, "\n")) patch.content = content.value;
      if (type.value.trim() !== m.type) patch.type = type.value.trim();
      if (Number(importance.value) !== m.importance) patch.importance = Number(importance.value);
      const newTags = tags.value.split(",").map((t) => t.trim()).filter(Boolean);
      if (newTags.join(",") !== m.tags.join(",")) patch.tags = newTags;
      if (pinned.checked !== m.pinned) patch.pinned = pinned.checked;
      void act(() => call(R.memory.modify, m.id, patch), "Saved.");
    });
    whenInvalid(edit, showProblem);
    let actions: HTMLElement;
    if (m.deletedAt) {
      const recover = h("button", { type: "button" }, "Recover");
      recover.addEventListener("click", () => void act(() => call(R.memory.recover, m.id, { reason: "recovered from the dashboard" }), "Recovered."));
      actions = h("div", { class: "card" }, h("h2", {}, "Forgotten"), h("p", {}, `Forgotten ${when(m.deletedAt)}: ${m.deleteReason ?? ""}`), recover);
    } else {
      const why = h("input", { name: "forget-reason", required: true, size: 30, placeholder: "why" });
      const force = h("input", { name: "force", type: "checkbox" });
      actions = h("form", { class: "card row", "aria-label": "Forget" }, h("h2", {}, "Forget"), field("Reason (required)", why), m.pinned ? field("Force (pinned)", force) : null, h("button", { type: "submit", class: "danger" }, "Forget"));
      actions.addEventListener("submit", (e) => {
        e.preventDefault();
        void act(() => call(R.memory.forget, m.id, { reason: why.value.trim(), ...(force.checked ? { force: true } : {}) }), "Forgotten. It can be recovered for 30 days.");
      });
      whenInvalid(actions as HTMLFormElement, showProblem);
    }
    replace(
      body,
      h("div", { class: "card" }, h("p", { class: "content", id: "memory-content" }, m.content), h("p", { class: "muted" }, `${m.type} · importance ${m.importance} · version ${m.version} · ${m.pinned ? "pinned · " : ""}${m.project ?? "no project"} · by ${m.who ?? "?"} · created ${when(m.createdAt)}`), m.tags.map((t) => h("span", { class: "tag" }, t))),
      m.deletedAt ? null : edit,
      actions,
      h("h2", {}, "History"),
      h("div", { class: "scroll" }, h("table", {}, h("thead", {}, h("tr", {}, ["Version", "Action", "Content", "Reason", "Actor", "When"].map((c) => h("th", { scope: "col" }, c)))), h("tbody", {}, (m.history ?? []).map((v) => h("tr", {}, h("td", {}, v.version), h("td", {}, v.action), h("td", { class: "content" }, excerpt(v.content, 200)), h("td", {}, v.reason ?? ""), h("td", {}, v.actor ?? ""), h("td", {}, when(v.createdAt))))))),
    );
  }
  void load();
}

export const memoriesPage: Page = ({ root, args }) => {
  if (args[0]) cardView(root, args[0]);
  else searchView(root);
  return undefined;
};
