// Agents: who is present now, and the message feed (messages to the selected agent, broadcasts, and its own).
import { TYPED_ROUTES as R } from "../../contracts/typed-routes";
import { call } from "../api";
import type { Page } from "../page";
import { empty, errorLine, h, replace, when } from "../ui";

export const agentsPage: Page = ({ root, refreshMs }) => {
  const presence = h("div", {});
  const feed = h("div", { "aria-live": "polite" });
  replace(root, h("h1", {}, "Agents"), h("h2", {}, "Present now"), presence, h("h2", {}, "Messages"), feed);
  async function load(): Promise<void> {
    try {
      const [p, m] = await Promise.all([
        call(R.agents.presence, { include_self: true, limit: 100 }),
        call(R.agents.inbox, { include_sent: true, limit: 100 }),
      ]);
      replace(
        presence,
        p.sessions.length === 0
          ? empty("No agent is present. Agents appear here while a session with Signet's hooks is open.")
          : h("div", { class: "scroll" }, h("table", {}, h("thead", {}, h("tr", {}, ["Agent", "Session", "Harness", "Project", "Last seen"].map((c) => h("th", { scope: "col" }, c)))), h("tbody", {}, p.sessions.map((s) => h("tr", {}, h("td", {}, s.agentId), h("td", {}, s.sessionKey), h("td", {}, s.harness), h("td", {}, s.project ?? ""), h("td", {}, when(s.lastSeenAt))))))),
      );
      const items = [...m.items].reverse();
      replace(
        feed,
        items.length === 0
          ? empty("No messages for this agent. Agents talk with the agent_message_send tool.")
          : h("ul", { class: "list" }, items.map((x) => h("li", {}, h("div", { class: "muted" }, `${x.fromAgentId} → ${x.broadcast ? "everyone" : (x.toAgentId ?? "?")} · ${x.type} · ${x.deliveryStatus} · ${when(x.createdAt)}`), h("div", { class: "content" }, x.content)))),
      );
    } catch (err) {
      replace(presence, errorLine(err));
    }
  }
  void load();
  const timer = setInterval(load, refreshMs);
  return () => clearInterval(timer);
};
