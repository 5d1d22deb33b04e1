// OpenCode: `mcp.signet` in ~/.config/opencode/opencode.json ($XDG_CONFIG_HOME/opencode when set).
import { join } from "node:path";
import { editJsonEntry, mergeEntry, type Json } from "./json-edit";
import { DEFAULT_DAEMON_URL, MCP_COMMAND, SERVER_NAME, type Harness, type HarnessContext } from "./types";

export function opencodeEntry(ctx: HarnessContext): Record<string, Json> {
  const entry: Record<string, Json> = { type: "local", command: [MCP_COMMAND], enabled: true };
  if (ctx.daemonUrl !== DEFAULT_DAEMON_URL) entry.environment = { SIGNET_DAEMON_URL: ctx.daemonUrl };
  return entry;
}

const SHAPE = { owned: ["type", "command", "enabled"], envKey: "environment", envOwned: ["SIGNET_DAEMON_URL"] };

export function opencodePath(ctx: Pick<HarnessContext, "home" | "env">): string {
  const xdg = ctx.env.XDG_CONFIG_HOME?.trim();
  return join(xdg || join(ctx.home, ".config"), "opencode", "opencode.json");
}

export const opencode: Harness = {
  name: "opencode",
  label: "OpenCode",
  files(ctx) {
    return [
      {
        path: opencodePath(ctx),
        edit: (before) =>
          editJsonEntry(before, "mcp", SERVER_NAME, (existing) =>
            ctx.uninstall ? undefined : (mergeEntry(existing, opencodeEntry(ctx), SHAPE) as Json),
          ),
      },
    ];
  },
  notes(ctx) {
    if (ctx.uninstall || !ctx.tokenSet) return [];
    return ["a token is configured but was not written to OpenCode's config: start OpenCode with SIGNET_TOKEN in its environment"];
  },
};
