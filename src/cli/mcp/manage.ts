// Installing and managing MCP servers: list, add, remove, enable, disable, import (docs/api.md#bridge).
import { defineCommand } from "../command";
import { anchorPaths, InstallServerRequestSchema, type InstalledServer } from "../../contracts/bridge";
import { parseInput } from "../../contracts/parse";
import { ApiError } from "../../client/client";
import { readHarnessServers } from "../../harness/mcp-import";
import { HARNESS_NAMES, type HarnessName } from "../../harness/types";
import { clientArgs, clientFor, configFromFlags } from "../context";
import { UsageError } from "../errors";
import { emit, outputArgs } from "../output";
import { renderServerList, renderUnusedHints } from "./render";

const nameArg = { name: { type: "positional", description: "Installed server name", required: true } } as const;

/** A repeatable flag's KEY=VALUE words (declared `multiple`: parse-args.ts gives them as a list). */
function keyValues(flag: string, given: unknown): Record<string, string> {
  const pairs: [string, string][] = [];
  for (const pair of (given as string[] | undefined) ?? []) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw new UsageError(`--${flag} expects KEY=VALUE, got ${JSON.stringify(pair)}`);
    pairs.push([pair.slice(0, eq), pair.slice(eq + 1)]);
  }
  // fromEntries, not assignment: a key `__proto__` stays a key, for the contract to refuse by name.
  return Object.fromEntries(pairs);
}

function describe(server: InstalledServer): string {
  return renderServerList([server]);
}

export const list = defineCommand({
  // The hint under the table covers servers whose tool list the daemon already holds: listing starts
  // no server (docs/api.md#get-apimcpunused).
  meta: { name: "list", description: "List installed MCP servers, enabled or not" },
  args: { ...clientArgs },
  async run({ args }) {
    const client = clientFor(configFromFlags(args));
    // The hint is a courtesy: a daemon or token that cannot answer it leaves the list as it was.
    const [{ servers }, unused] = await Promise.all([client.bridge.list(), client.analytics.unused({ start: "false" }).catch(() => null)]);
    const unusedOf = new Map(unused?.servers.filter((s) => s.status === "listed").map((s) => [s.server, s.unused.map((t) => t.tool)]));
    const listed = servers.map((s) => (unusedOf.has(s.name) ? { ...s, unusedTools: unusedOf.get(s.name)! } : s));
    emit({ servers: listed }, args, (d) => [renderServerList(d.servers), unused ? renderUnusedHints(unused) : ""].filter(Boolean).join("\n\n"));
  },
});

export const add = defineCommand({
  meta: {
    name: "add",
    description:
      "Install an MCP server: `signet mcp add <name> [--cwd DIR] [--env K=V ...] -- <command> [args...]` (stdio) or `signet mcp add <name> --url <url> [--header K=V ...]` (streamable HTTP). Values may be secret:NAME references. Relative paths are made absolute now, since the daemon runs servers elsewhere: --cwd against the current directory; a command with a / and the arguments ., .., ./... and ../... against --cwd, or the current directory without it. A bare command (npx, node) is looked up on PATH.",
  },
  args: {
    ...nameArg,
    // Every word after the name: a word meant as the command is never dropped without a word.
    command: { type: "positional", multiple: true, description: "After --: the server's command and its arguments (stdio servers)" },
    url: { type: "string", description: "Streamable HTTP endpoint of the server (instead of a command)" },
    env: { type: "string", multiple: true, description: "Environment variable for the server, KEY=VALUE (repeatable)" },
    header: { type: "string", multiple: true, description: "HTTP header for the server, KEY=VALUE (repeatable)" },
    cwd: { type: "string", description: "Working directory of the server process (default: your home directory); a relative one is taken from the current directory" },
    description: { type: "string", description: "What the server is for" },
    disabled: { type: "boolean", description: "Install it disabled" },
    // --url names the server here; the daemon comes from SIGNET_DAEMON_URL or the config.
    agent: clientArgs.agent,
    ...outputArgs,
  },
  async run({ args }) {
    const command = (args.command as unknown as string[] | undefined) ?? [];
    const flagUrl = args.url as string | undefined;
    if (flagUrl && command.length > 0) throw new UsageError("give either --url or `-- <command> [args]`, not both");
    if (!flagUrl && command.length === 0) {
      throw new UsageError("missing the server: `signet mcp add <name> -- <command> [args]` or `signet mcp add <name> --url <url>`");
    }
    const env = keyValues("env", args.env);
    const headers = keyValues("header", args.header);
    if (flagUrl && (Object.keys(env).length > 0 || args.cwd)) throw new UsageError("--env and --cwd are for command servers, not --url ones");
    if (!flagUrl && Object.keys(headers).length > 0) throw new UsageError("--header is for --url servers");
    const request = parseInput(
      InstallServerRequestSchema,
      {
        name: args.name,
        transport: flagUrl
          ? { type: "http", url: flagUrl, headers }
          : anchorPaths({ type: "stdio", command: command[0], args: command.slice(1), env, ...(args.cwd ? { cwd: args.cwd } : {}) }, process.cwd()),
        enabled: !args.disabled,
        ...(args.description ? { description: args.description } : {}),
      },
      "server",
    );
    const server = await clientFor(configFromFlags({ agent: args.agent })).bridge.install(request);
    emit(server, args, (s) => `installed:\n${describe(s)}`);
  },
});

export const remove = defineCommand({
  meta: { name: "remove", description: "Uninstall an MCP server (its process is stopped)" },
  args: { ...nameArg, ...clientArgs },
  async run({ args }) {
    const server = await clientFor(configFromFlags(args)).bridge.remove(args.name);
    emit(server, args, (s) => `removed ${s.name}`);
  },
});

function toggle(enabled: boolean) {
  return defineCommand({
    meta: {
      name: enabled ? "enable" : "disable",
      description: enabled ? "Enable an installed MCP server" : "Disable an installed MCP server (calls are refused; its process is stopped)",
    },
    args: { ...nameArg, ...clientArgs },
    async run({ args }) {
      const server = await clientFor(configFromFlags(args)).bridge.update(args.name, { enabled });
      emit(server, args, (s) => `${s.name} ${enabled ? "enabled" : "disabled"}`);
    },
  });
}

export const enable = toggle(true);
export const disable = toggle(false);

export const importServers = defineCommand({
  meta: {
    name: "import",
    description:
      "Install the MCP servers a harness already has configured (skips Signet itself and names already installed). A repository's own servers (.mcp.json, the project's opencode.json) come disabled unless your own config approves them; approvals inside the repository are not trusted. Relative paths are resolved against the directory of the config that declares them.",
  },
  args: {
    from: { type: "string", description: `Harness to read: ${HARNESS_NAMES.join(", ")}`, required: true },
    "dry-run": { type: "boolean", description: "Show what would be installed, enabled or not, without installing it" },
    ...clientArgs,
  },
  async run({ args }) {
    const from = args.from as string;
    if (!(HARNESS_NAMES as readonly string[]).includes(from)) {
      throw new UsageError(`--from ${JSON.stringify(from)} is not a harness; use one of ${HARNESS_NAMES.join(", ")}`);
    }
    const home = process.env.HOME;
    if (!home) throw new UsageError("HOME is not set: cannot find the harness's config");
    const found = readHarnessServers(from as HarnessName, { home, cwd: process.cwd() });
    const client = clientFor(configFromFlags(args));
    const servers: { name: string; enabled: boolean; why: string }[] = [];
    const skipped = [...found.skipped];
    const existing = new Set((await client.bridge.list()).servers.map((s) => s.name));
    for (const { request, why } of found.servers) {
      if (existing.has(request.name)) {
        skipped.push({ name: request.name, reason: "already installed" });
        continue;
      }
      if (!args["dry-run"]) {
        try {
          await client.bridge.install(request);
        } catch (err) {
          if (!(err instanceof ApiError) || err.status >= 500) throw err;
          skipped.push({ name: request.name, reason: err.message });
          continue;
        }
      }
      servers.push({ name: request.name, enabled: request.enabled, why });
    }
    const installed = servers.map((s) => s.name);
    const result = { from, dryRun: Boolean(args["dry-run"]), sources: found.sources, installed, servers, skipped };
    emit(result, args, (r) =>
      [
        r.sources.length ? `read ${r.sources.join(", ")}` : `no ${from} config found`,
        `${r.dryRun ? "would install" : "installed"}: ${r.installed.length ? "" : "none"}`.trimEnd(),
        ...r.servers.map((s) => `  ${s.name}  ${s.why}`),
        ...r.skipped.map((s) => `skipped ${s.name}: ${s.reason}`),
      ].join("\n"),
    );
  },
});
