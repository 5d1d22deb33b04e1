// MCP servers: the installed servers, each with an Enable/Disable button (it needs the owner's admin
// token, asked for when the daemon refuses the change) and the CLI command that does the same; each
// server's tools with their parameters, and a form to call one (recorded as a `cli` call from
// `dashboard`). Adding and removing servers stay in the terminal.
import { TYPED_ROUTES as R } from "../../contracts/typed-routes";
import { askForSignIn, call } from "../api";
import type { Page } from "../page";
import type { BridgeTool, ListedServer } from "../types";
import { empty, errorLine, h, replace, whenInvalid } from "../ui";

function listView(root: HTMLElement): void {
  const body = h("div", {}, h("p", { class: "muted" }, "Loading…"));
  replace(
    root,
    h("h1", {}, "MCP servers"),
    h(
      "p",
      { class: "muted" },
      "Enabling and disabling a server changes the installation: the page asks for the owner's admin token ($SIGNET_PATH/.daemon/admin.token) and keeps it in this tab only, or run the command shown in a terminal. Adding and removing servers is done in a terminal.",
    ),
    body,
  );
  call(R.bridge.list).then(
    ({ servers }) =>
      replace(
        body,
        servers.length === 0
          ? empty("No MCP servers installed. Add one in a terminal: signet mcp add <name> -- <command> [args…]")
          : h("div", { class: "scroll" }, h("table", {}, h("thead", {}, h("tr", {}, ["Server", "Transport", "State", "Change it"].map((c) => h("th", { scope: "col" }, c)))), h("tbody", {}, servers.map((s) => h("tr", {}, h("td", {}, h("a", { href: `#/servers/${encodeURIComponent(s.name)}` }, s.name), s.description ? h("div", { class: "muted" }, s.description) : null), h("td", {}, s.transport.type === "http" ? (s.transport.url ?? "") : [s.transport.command, ...(s.transport.args ?? [])].join(" ")), h("td", {}, `${s.enabled ? "enabled" : "disabled"}${s.running ? " · running" : ""}`), h("td", {}, toggleButton(root, s), " ", h("code", {}, `signet mcp ${s.enabled ? "disable" : "enable"} ${s.name}`))))))),
      ),
    (err) => replace(body, errorLine(err)),
  );
}

/**
 * Enable or disable. Without the owner's admin token the daemon refuses: 401 when no token was sent
 * (the sign-in form comes up by itself), 403 when the token signed in is another one (an operator's,
 * in team mode); either way the sign-in form asks for the admin token, then the page comes again.
 */
function toggleButton(root: HTMLElement, server: ListedServer): HTMLElement {
  const label = `${server.enabled ? "Disable" : "Enable"} ${server.name}`;
  const button = h("button", { type: "button", "aria-label": label }, server.enabled ? "Disable" : "Enable");
  button.addEventListener("click", () => {
    button.setAttribute("disabled", "");
    call(R.bridge.update, server.name, { enabled: !server.enabled }).then(
      () => listView(root),
      (err: { status?: number; message?: string }) => {
        button.removeAttribute("disabled");
        if (err.status === 403) askForSignIn(`Enabling or disabling a server needs the owner's admin token ($SIGNET_PATH/.daemon/admin.token). ${err.message ?? ""}`);
        else if (err.status !== 401) button.parentElement?.append(errorLine(err));
      },
    );
  });
  return button;
}

/** A tool's input property as the pages read it; the server's JSON Schema is passed through unchecked. */
type PropertySpec = { type?: string | string[]; description?: string };

function typeOf(spec: PropertySpec): string {
  return Array.isArray(spec.type) ? (spec.type.find((t) => t !== "null") ?? "string") : (spec.type ?? "string");
}

function callForm(server: string, tool: BridgeTool): HTMLElement {
  const props = Object.entries(tool.inputSchema?.properties ?? {}) as [string, PropertySpec][];
  const required = new Set(tool.inputSchema?.required ?? []);
  const inputs = props.map(([name, spec]) => {
    const kind = typeOf(spec);
    const numeric = kind === "number" || kind === "integer";
    // An integer keeps the number input's step of 1; a number takes any value (0.7).
    const input = h("input", { name, type: kind === "boolean" ? "checkbox" : numeric ? "number" : "text", step: kind === "number" ? "any" : undefined, required: required.has(name) && kind !== "boolean", size: 24, placeholder: kind === "object" || kind === "array" ? "JSON" : kind });
    return { name, kind, input, label: h("label", {}, `${name}${required.has(name) ? " *" : ""}`, input, spec.description ? h("span", { class: "muted" }, spec.description) : null) };
  });
  const out = h("div", { "aria-live": "polite" });
  const form = h("form", { class: "row", "aria-label": `Call ${tool.name}` }, inputs.map((i) => i.label), h("button", { type: "submit" }, `Call ${tool.name}`));
  whenInvalid(form, (message) => replace(out, errorLine(message)));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const args: Record<string, unknown> = {};
    try {
      for (const { name, kind, input } of inputs) {
        if (kind === "boolean") args[name] = input.checked;
        else if (input.value === "") continue;
        else if (kind === "number" || kind === "integer") args[name] = Number(input.value);
        else if (kind === "object" || kind === "array") args[name] = JSON.parse(input.value);
        else args[name] = input.value;
      }
      replace(out, h("p", { class: "muted" }, "Calling…"));
      const result = await call(R.bridge.call, server, { tool: tool.name, arguments: args, source: "cli", client: "dashboard" });
      replace(out, h("p", { class: result.isError ? "error" : "ok" }, result.isError ? "The tool reported a failure:" : "Result:"), h("pre", {}, JSON.stringify(result, null, 2)));
    } catch (err) {
      replace(out, errorLine(err));
    }
  });
  return h("div", {}, form, out);
}

function detailView(root: HTMLElement, name: string): void {
  const body = h("div", {}, h("p", { class: "muted" }, "Starting the server and listing its tools…"));
  replace(root, h("p", {}, h("a", { href: "#/servers" }, "← All servers")), h("h1", {}, `Server ${name}`), body);
  call(R.bridge.tools, name).then(
    ({ tools }) =>
      replace(
        body,
        tools.length === 0
          ? empty("This server lists no tools.")
          : tools.map((t) => h("details", { class: "card" }, h("summary", {}, h("strong", {}, t.name), t.description ? ` — ${t.description}` : ""), callForm(name, t))),
      ),
    (err) => replace(body, errorLine(err), h("p", { class: "muted" }, `A disabled server is started again with: signet mcp enable ${name}`)),
  );
}

export const serversPage: Page = ({ root, args }) => {
  if (args[0]) detailView(root, args[0]);
  else listView(root);
  return undefined;
};
