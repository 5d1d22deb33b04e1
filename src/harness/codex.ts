// Codex: `[mcp_servers.signet]` in ~/.codex/config.toml ($CODEX_HOME/config.toml when set), with
// the data directory (and a daemon URL, token file or agent when there are any) in
// `[mcp_servers.signet.env]`: Codex passes an MCP server only a fixed list of its own environment
// variables, so SIGNET_PATH must be in the entry. Only the signet tables' text is rewritten. The
// lifecycle hooks (docs/hooks.md) go in hooks.json beside it, which Codex reads as
// `{hooks: {<Event>: [...]}}` like Claude Code's settings; Codex runs a new or changed hook only
// once the user has trusted it (`/hooks` in Codex), which setup says. A `[mcp_servers.signet]` that
// does not start signet-mcp is the user's own: setup refuses to write over it, --uninstall keeps it.
import { join } from "node:path";
import { COMMAND_HOOKS } from "./hook-io";
import { editHooks, hookContainers, hooksEntry } from "./hooks-json";
import { mergeEntry } from "./json-edit";
import { TomlError, getPath, isTable, parseToml, setTomlTable, tomlEqual, withoutPath, type TomlTable } from "./toml";
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

const PATH = ["mcp_servers", SERVER_NAME];
const ENTRY = PATH.join(".");

function codexEntry(values: EntryValues, dataDir: string): TomlTable {
  return { command: values.command, env: { ...reach(values, dataDir) } };
}

function codexHome(ctx: Pick<HarnessContext, "home" | "env">): string {
  return ctx.env.CODEX_HOME?.trim() || join(ctx.home, ".codex");
}

export function codexPath(ctx: Pick<HarnessContext, "home" | "env">): string {
  return join(codexHome(ctx), "config.toml");
}

/** Bun.TOML reads what Codex reads; where it cannot (it refuses integers beyond 2^53), ours decides. */
function bunParse(text: string): { ok: true; data: Record<string, unknown> } | { ok: false; error: string } {
  try {
    return { ok: true, data: Bun.TOML.parse(text) as Record<string, unknown> };
  } catch (err) {
    return { ok: false, error: (err as Error).message.replace(/^TOML Parse error:\s*/, "") };
  }
}

/** Signet's own table: one whose command starts signet-mcp. */
const isSignetTable = (entry: unknown) => isTable(entry) && typeof entry.command === "string" && isMcpCommand(entry.command);

/** A `[mcp_servers.signet]` of the user's own in the text (none where the text cannot be read). */
function hasUsersTable(text: string | null): boolean {
  try {
    const entry = getPath(parseToml(text ?? ""), PATH);
    return entry !== undefined && !isSignetTable(entry);
  } catch {
    return false;
  }
}

/** Throws when Codex could not read the text; its Bun.TOML data, or null where only our reader can keep it exact. */
export function checkCodexToml(text: string): TomlTable | null {
  const checked = bunParse(text);
  if (checked.ok) return checked.data as TomlTable;
  if (/losslessly/.test(checked.error)) return null;
  throw new TomlError(`not valid TOML (${checked.error})`);
}

function editCodexConfig(before: string | null, ctx: HarnessContext): string | null {
  const values = ctx.install;
  const text = before ?? "";
  const checked = checkCodexToml(text);
  const existing = getPath(parseToml(text), PATH);
  if (usersOwnEntry(existing, isSignetTable, values !== undefined, `[${ENTRY}]`)) return before;
  let value: TomlTable | undefined;
  if (values) {
    value = mergeEntry(existing, codexEntry(values, ctx.dataDir), { owned: ["command"], envKey: "env", envOwned: REACH_VARIABLES });
  }
  const after = setTomlTable(text, PATH, value);
  if (after === text) return before;
  if (checked) {
    // The result must read back, through Bun.TOML too, with every other key as it was.
    const reread = bunParse(after);
    if (!reread.ok) throw new TomlError(`the edited file would not parse (${reread.error})`);
    const signet = getPath(reread.data as TomlTable, PATH);
    if (!tomlEqual(withoutPath(reread.data as TomlTable, PATH), withoutPath(checked, PATH))) {
      throw new TomlError("the edit would have changed other keys");
    }
    if (values ? !isTable(signet) || signet.command !== values.command : signet !== undefined) {
      throw new TomlError("the edited file does not hold the expected [mcp_servers.signet] table");
    }
  }
  return after;
}

export const codex: Harness = {
  name: "codex",
  label: "Codex",
  files(ctx) {
    const values = ctx.install;
    return [
      {
        path: codexPath(ctx),
        entry: ENTRY,
        removes: !values,
        edit: (before) => editCodexConfig(before, ctx),
        notes: (before) => (!values && hasUsersTable(before) ? [keptEntryNote(codexPath(ctx), `[${ENTRY}]`)] : []),
      },
      {
        path: join(codexHome(ctx), "hooks.json"),
        entry: hooksEntry(COMMAND_HOOKS),
        removes: !values,
        containers: hookContainers(COMMAND_HOOKS),
        edit: (before, created) =>
          editHooks(before, COMMAND_HOOKS, values && { signet: values.signet, harness: "codex", target: reach(values, ctx.dataDir) }, created),
      },
    ];
  },
  notes: (ctx) => (ctx.install ? ["Codex runs new or changed hooks only once you trust them: open /hooks in Codex and trust Signet's hooks"] : []),
};
