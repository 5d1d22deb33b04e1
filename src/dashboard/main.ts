// The dashboard's entry: hash routes to pages, the agent selector, and the token prompt.
import { agentId, hasToken, setAgentId, setToken, whenUnauthorized } from "./api";
import { agentsPage } from "./pages/agents";
import { graphPage } from "./pages/graph";
import { memoriesPage } from "./pages/memories";
import { overviewPage } from "./pages/overview";
import { serversPage } from "./pages/servers";
import { sessionsPage } from "./pages/sessions";
import { usagePage } from "./pages/usage";
import { h, replace } from "./ui";
import type { Page } from "./page";

const PAGES: Record<string, Page> = {
  overview: overviewPage,
  memories: memoriesPage,
  graph: graphPage,
  sessions: sessionsPage,
  agents: agentsPage,
  servers: serversPage,
  usage: usagePage,
};

const main = document.getElementById("main")!;
let stop: (() => void) | undefined;

/** Refresh period of live panels in ms: `?refresh=<seconds>` (tests use 1), default 30. */
function refreshMs(): number {
  const s = Number(new URLSearchParams(location.search).get("refresh"));
  return Number.isFinite(s) && s > 0 ? s * 1000 : 30_000;
}

/** The page a route names: only the table's own entries (`#/toString` names no page). */
function pageNamed(name: string): Page | undefined {
  return Object.hasOwn(PAGES, name) ? PAGES[name] : undefined;
}

/** A path segment decoded; a malformed escape (`%E0%A4%A`) is kept as typed rather than throwing. */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

const notFoundPage: Page = ({ root }) => {
  replace(root, h("h1", {}, "Not found"), h("p", {}, `There is no page ${location.hash}. The pages are in the menu above; `, h("a", { href: "#/overview" }, "the overview"), " is the start."));
  return undefined;
};

function route(): void {
  stop?.();
  stop = undefined;
  const [name = "", ...rest] = location.hash.replace(/^#\/?/, "").split("/");
  const current = name === "" ? "overview" : name;
  const page = pageNamed(current) ?? notFoundPage;
  for (const a of Array.from(document.querySelectorAll("nav a"))) {
    if (a.getAttribute("href") === `#/${current}`) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  replace(main);
  const stops = page({ root: main, args: rest.map(decodeSegment), refreshMs: refreshMs() });
  stop = typeof stops === "function" ? stops : undefined;
}

function askForToken(message: string): void {
  // The first refusal's reason stays: the page's other requests, refused after it, say less.
  if (document.getElementById("token-form")) return;
  stop?.();
  const input = h("input", { id: "token", type: "password", autocomplete: "off", required: true, size: 40 });
  const problem = h("p", { id: "token-message", role: "alert" }, message);
  const form = h(
    "form",
    { id: "token-form", class: "card" },
    h("h1", {}, "Sign in"),
    problem,
    h("p", { class: "muted" }, "This daemon needs an API token (signet token create, or the owner's admin token). It is kept in this tab only (sessionStorage) and sent as a Bearer token."),
    h("label", {}, "API token", input),
    " ",
    h("button", { type: "submit" }, "Sign in"),
  );
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    try {
      setToken(input.value.trim());
    } catch (err) {
      problem.textContent = err instanceof Error ? err.message : String(err);
      input.focus();
      return;
    }
    route();
  });
  replace(main, form);
  input.focus();
}

whenUnauthorized((message) => askForToken(hasToken() ? `The token was refused: ${message}` : message));

const agentInput = document.getElementById("agent-id") as HTMLInputElement;
agentInput.value = agentId();
agentInput.addEventListener("change", () => {
  setAgentId(agentInput.value);
  route();
});

window.addEventListener("hashchange", () => {
  route();
  // Keyboard and screen-reader users land on the new page's content, not back in the nav.
  main.focus();
});
route();
