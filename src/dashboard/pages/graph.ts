// Knowledge graph: the agent's entities, filtered by name, and one entity's neighbourhood: its
// claims by slot (current and superseded, each with the memory it comes from), the entities related
// to it (listed, and drawn as a star), and the latest memories that mention it.
import type { API } from "../../contracts/api";
import type { Answer } from "../../contracts/operation";
import { TYPED_ROUTES as R } from "../../contracts/typed-routes";
import { agentId, call } from "../api";
import type { Page } from "../page";
import { empty, errorLine, excerpt, h, replace, star, when } from "../ui";

type Detail = Answer<typeof API.graph.entity>;

/** Entities listed at once, most mentioned first; the search narrows past them. */
const LIST_LIMIT = 100;
/** Related entities drawn in the star; more would not be legible. The table lists all of them. */
const STAR_MAX = 12;

const entityHref = (id: string) => `#/graph/${encodeURIComponent(id)}`;
const memoryHref = (id: string) => `#/memories/${encodeURIComponent(id)}`;

function table(columns: string[], rows: HTMLElement[]): HTMLElement {
  return h("div", { class: "scroll" }, h("table", {}, h("thead", {}, h("tr", {}, columns.map((c) => h("th", { scope: "col" }, c)))), h("tbody", {}, rows)));
}

function listView(root: HTMLElement): void {
  const q = h("input", { name: "query", type: "search", size: 30, placeholder: "part of a name" });
  const results = h("div", { "aria-live": "polite" });
  async function run(): Promise<void> {
    const query = q.value.trim();
    replace(results, h("p", { class: "muted" }, "Loading…"));
    try {
      const { entities } = await call(R.graph.entities, { query, limit: LIST_LIMIT });
      replace(
        results,
        entities.length === 0
          ? empty(query ? `No entity of this agent has a name containing "${query}". Try part of a name, or clear the search.` : "No entities for this agent yet. Entities appear as memories mention people, projects and things; `signet dream` consolidates them (merges names, settles claims, relates entities).")
          : table(["Entity", "Type", "Mentions", "Other names"], entities.map((e) => h("tr", {}, h("td", {}, h("a", { href: entityHref(e.id) }, e.name)), h("td", {}, e.type), h("td", {}, e.mentions), h("td", {}, e.aliases.map((a) => h("span", { class: "tag" }, a)))))),
        entities.length === LIST_LIMIT ? h("p", { class: "muted" }, `Showing the ${LIST_LIMIT} most mentioned; narrow with the search.`) : null,
      );
    } catch (err) {
      replace(results, errorLine(err));
    }
  }
  const form = h("form", { class: "row", role: "search" }, h("label", {}, "Name", q), h("button", { type: "submit" }, "Filter"));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    void run();
  });
  replace(root, h("h1", {}, "Knowledge graph"), h("p", { class: "muted" }, "Derived from this agent's memories: who and what they mention, what they say about it, and what goes together."), form, results);
  void run();
}

/** Claims by aspect.slot, in the API's order (current first, then newest first). */
function claimGroups(claims: Detail["claims"]): HTMLElement[] {
  const groups = new Map<string, Detail["claims"]>();
  for (const c of claims) {
    const key = `${c.aspect}.${c.slot}`;
    groups.set(key, [...(groups.get(key) ?? []), c]);
  }
  return [...groups].map(([key, group]) => {
    const current = group.filter((c) => c.status === "active").length;
    return h(
      "section",
      { "aria-label": key },
      h("h3", {}, key),
      // Until a pass settles the slot, each newer statement is current next to the older ones.
      current > 1 ? h("p", { class: "muted" }, `${current} current values: the next Dreaming pass (signet dream) keeps the newest and marks the others superseded.`) : null,
      h(
        "ul",
        { class: "list" },
        group.map((c) => {
          const label = c.status === "active" ? "current" : "superseded";
          const valid = c.validUntil ? `valid from ${when(c.validFrom)} until ${when(c.validUntil)}` : `valid from ${when(c.validFrom)}`;
          return h("li", { class: `claim ${label}` }, h("span", { class: "value content" }, c.value), " ", h("span", { class: `tag ${label}` }, label), h("div", { class: "muted" }, `${valid} · confidence ${c.confidence} · `, h("a", { href: memoryHref(c.memoryId) }, `from memory ${c.memoryId.slice(0, 8)}`)));
        }),
      ),
    );
  });
}

function neighbourhood(d: Detail): HTMLElement[] {
  if (d.relations.length === 0) return [empty("Not related to anything yet. Entities mentioned in the same memories are related by a Dreaming pass (`signet dream`).")];
  const strongest = [...d.relations].sort((a, b) => b.strength - a.strength);
  const drawn = strongest.slice(0, STAR_MAX);
  return [
    h(
      "figure",
      { class: "star" },
      star(d.entity.name, drawn.map((r) => ({ label: r.entity.name, weight: r.strength, href: entityHref(r.entity.id) }))),
      h("figcaption", { class: "muted" }, `${drawn.length === strongest.length ? "Every related entity" : `The ${drawn.length} strongest of ${strongest.length}`}: the stronger the relation, the nearer and thicker.`),
    ),
    table(["Entity", "Type", "Relation", "Evidence (memories)", "Strength"], strongest.map((r) => h("tr", {}, h("td", {}, h("a", { href: entityHref(r.entity.id) }, r.entity.name)), h("td", {}, r.entity.type), h("td", {}, r.type), h("td", {}, r.evidence), h("td", {}, r.strength.toFixed(2))))),
  ];
}

function entityView(root: HTMLElement, ref: string): void {
  const title = h("h1", {}, "Entity");
  const body = h("div", {}, h("p", { class: "muted" }, "Loading…"));
  replace(root, h("p", {}, h("a", { href: "#/graph" }, "← All entities")), title, body);
  call(R.graph.entity, ref).then(
    (d) => {
      const e = d.entity;
      title.textContent = e.name;
      replace(
        body,
        h("div", { class: "card" }, h("p", {}, `${e.type} · mentioned by ${e.mentions} ${e.mentions === 1 ? "memory" : "memories"}${e.pinned ? " · pinned" : ""}`), e.aliases.length ? h("p", {}, "Also known as ", e.aliases.map((a) => h("span", { class: "tag" }, a))) : null),
        h("h2", {}, "Claims"),
        d.claims.length === 0 ? empty(`No claims about ${e.name} yet. Claims come from statements such as "the staging DB is heron-8" and from a structured payload's attributes.`) : claimGroups(d.claims),
        h("h2", {}, "Related entities"),
        neighbourhood(d),
        h("h2", {}, "Latest memories"),
        d.memories.length === 0 ? empty("No live memory mentions it any more.") : h("ul", { class: "list" }, d.memories.map((m) => h("li", {}, h("a", { href: memoryHref(m.id) }, h("span", { class: "content" }, excerpt(m.content, 240))), h("div", { class: "muted" }, when(m.createdAt))))),
      );
    },
    (err: { status?: number }) =>
      replace(body, err.status === 404 ? h("p", { class: "empty", role: "alert" }, `No such entity for agent ${agentId()}: nothing in its graph is called or has the id "${ref}". Each agent has its own graph: check the Agent field above, or find the entity in the list.`) : errorLine(err)),
  );
}

export const graphPage: Page = ({ root, args }) => {
  if (args[0]) entityView(root, args[0]);
  else listView(root);
  return undefined;
};
