// Claude Code: `mcpServers.signet` in ~/.claude.json, where Claude Code reads user-scope MCP servers
// (the entry `claude mcp add-json --scope user` writes), and the lifecycle hooks (`signet hook`,
// docs/hooks.md) in ~/.claude/settings.json. Claude Code does not read MCP servers from
// settings.json, where earlier versions of Signet also wrote the entry: setup and --uninstall take
// that one out. With CLAUDE_CONFIG_DIR set, Claude Code keeps both files there. Comments in them
// are kept as they are (json-edit.ts), though Claude Code itself may refuse them. A server the user
// named signet that does not start signet-mcp is theirs: setup refuses to write over it, and
// --uninstall keeps it, saying so.
import { join } from "node:path";
import { COMMAND_HOOKS } from "./hook-io";
import { editHooks, hookContainers, hooksEntry } from "./hooks-json";
import { JsonEditError, JsonSyntaxError, editJsonEntry, isObject, jsonEntryOf, mergeEntry, type Json } from "./json-edit";
import {
  REACH_VARIABLES,
  SERVER_NAME,
  isMcpCommand,
  keptEntryNote,
  reach,
  usersOwnEntry,
  type EntryValues,
  type Harness,
  type HarnessContext,
} from "./types";

function claudeEntry(values: EntryValues, dataDir: string): Record<string, Json> {
  return { type: "stdio", command: values.command, args: [], env: { ...reach(values, dataDir) } };
}

const SHAPE = { owned: ["type", "command", "args"], envKey: "env", envOwned: REACH_VARIABLES };
const ENTRY = `mcpServers.${SERVER_NAME}`;

export function claudePaths(ctx: Pick<HarnessContext, "home" | "env">): { settings: string; state: string } {
  const dir = ctx.env.CLAUDE_CONFIG_DIR?.trim();
  if (dir) return { settings: join(dir, "settings.json"), state: join(dir, ".claude.json") };
  return { settings: join(ctx.home, ".claude", "settings.json"), state: join(ctx.home, ".claude.json") };
}

/** Signet's own entry (one that starts signet-mcp); a server the user named signet is theirs. */
const isSignetEntry = (entry: Json | undefined) => isObject(entry) && typeof entry.command === "string" && isMcpCommand(entry.command);

/**
 * settings.json without the MCP entry an earlier signet setup wrote there (Claude Code never read
 * it); the `mcpServers` object that setup made for it goes with it when nothing else is in it.
 */
const withoutOldEntry = (text: string | null) =>
  editJsonEntry(text, "mcpServers", SERVER_NAME, (existing) => (isSignetEntry(existing) ? undefined : existing), "JSON", () => true);

/** Whether settings.json holds such an entry; an unreadable file holds none (the hooks edit names the problem). */
function hasOldEntry(text: string | null): boolean {
  try {
    return text !== null && withoutOldEntry(text) !== text;
  } catch {
    return false;
  }
}

/** `edit(text)`, or the text as it is where the edit fails with an error of the kind `unless`. */
function unless(kind: typeof JsonEditError, text: string | null, edit: (text: string | null) => string | null): string | null {
  try {
    return edit(text);
  } catch (err) {
    if (err instanceof kind) return text;
    throw err;
  }
}

export const claudeCode: Harness = {
  name: "claude-code",
  label: "Claude Code",
  files(ctx) {
    const { settings, state } = claudePaths(ctx);
    const values = ctx.install;
    return [
      {
        path: state,
        entry: ENTRY,
        removes: !values,
        containers: [["mcpServers"]],
        edit: (before, created) =>
          editJsonEntry(
            before,
            "mcpServers",
            SERVER_NAME,
            (existing) => {
              if (usersOwnEntry(existing, isSignetEntry, values !== undefined, ENTRY)) return existing;
              return values ? (mergeEntry(existing, claudeEntry(values, ctx.dataDir), SHAPE) as Json) : undefined;
            },
            "JSON",
            created,
          ),
        notes: (before) => {
          const entry = jsonEntryOf(before, "mcpServers", SERVER_NAME);
          return !values && entry !== undefined && !isSignetEntry(entry) ? [keptEntryNote(state, ENTRY)] : [];
        },
      },
      {
        path: settings,
        entry: hooksEntry(COMMAND_HOOKS),
        removes: !values,
        containers: hookContainers(COMMAND_HOOKS),
        // Said only where there was such an entry to take out.
        reason: (before) =>
          hasOldEntry(before) ? `the lifecycle hooks; an MCP entry an earlier signet setup wrote here is taken out, as Claude Code reads MCP servers from ${state}` : undefined,
        edit: (before, created) => {
          // A file that cannot be edited there: the hooks edit below names the problem.
          const text = unless(JsonEditError, before, withoutOldEntry);
          if (values) return editHooks(text, COMMAND_HOOKS, { signet: values.signet, harness: "claude-code", target: reach(values, ctx.dataDir) }, created);
          // Claude Code cannot read hooks from a file that is not JSON either: nothing to take out.
          return unless(JsonSyntaxError, text, (t) => editHooks(t, COMMAND_HOOKS, undefined, created));
        },
      },
    ];
  },
};
