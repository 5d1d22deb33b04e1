// Claude Code: `mcpServers.signet` in ~/.claude/settings.json (the place Signet's design first gave
// it) and in ~/.claude.json (where current Claude Code reads user-scope servers). With
// CLAUDE_CONFIG_DIR set, Claude Code keeps both files in that directory. Comments in them are
// kept as they are (json-edit.ts), though Claude Code itself may refuse a file that has them.
import { join } from "node:path";
import { editJsonEntry, mergeEntry, type Json } from "./json-edit";
import { DEFAULT_DAEMON_URL, MCP_COMMAND, SERVER_NAME, type Harness, type HarnessContext } from "./types";

function claudeEntry(ctx: HarnessContext): Record<string, Json> {
  const entry: Record<string, Json> = { type: "stdio", command: MCP_COMMAND, args: [] };
  if (ctx.daemonUrl !== DEFAULT_DAEMON_URL) entry.env = { SIGNET_DAEMON_URL: ctx.daemonUrl };
  return entry;
}

const SHAPE = { owned: ["type", "command", "args"], envKey: "env", envOwned: ["SIGNET_DAEMON_URL"] };

export function claudePaths(ctx: Pick<HarnessContext, "home" | "env">): { settings: string; state: string } {
  const dir = ctx.env.CLAUDE_CONFIG_DIR?.trim();
  if (dir) return { settings: join(dir, "settings.json"), state: join(dir, ".claude.json") };
  return { settings: join(ctx.home, ".claude", "settings.json"), state: join(ctx.home, ".claude.json") };
}

export const claudeCode: Harness = {
  name: "claude-code",
  label: "Claude Code",
  files(ctx) {
    const { settings, state } = claudePaths(ctx);
    const edit = (before: string | null) =>
      editJsonEntry(before, "mcpServers", SERVER_NAME, (existing) =>
        ctx.uninstall ? undefined : (mergeEntry(existing, claudeEntry(ctx), SHAPE) as Json),
      );
    return [
      { path: settings, edit },
      { path: state, edit },
    ];
  },
  notes(ctx) {
    if (ctx.uninstall || !ctx.tokenSet) return [];
    return ["a token is configured but was not written to Claude Code's config: start Claude Code with SIGNET_TOKEN in its environment"];
  },
};
