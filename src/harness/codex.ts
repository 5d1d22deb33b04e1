// Codex: `[mcp_servers.signet]` in ~/.codex/config.toml ($CODEX_HOME/config.toml when set), with
// the daemon URL in `[mcp_servers.signet.env]`. Only the signet tables' text is rewritten.
import { join } from "node:path";
import { mergeEntry } from "./json-edit";
import { TomlError, getPath, isTable, parseToml, setTomlTable, tomlEqual, withoutPath, type TomlTable } from "./toml";
import { MCP_COMMAND, SERVER_NAME, type Harness, type HarnessContext } from "./types";

const PATH = ["mcp_servers", SERVER_NAME];

function codexEntry(ctx: HarnessContext): TomlTable {
  return { command: MCP_COMMAND, env: { SIGNET_DAEMON_URL: ctx.daemonUrl } };
}

export function codexPath(ctx: Pick<HarnessContext, "home" | "env">): string {
  const codexHome = ctx.env.CODEX_HOME?.trim();
  return join(codexHome || join(ctx.home, ".codex"), "config.toml");
}

/** Bun.TOML reads what Codex reads; where it cannot (it refuses integers beyond 2^53), ours decides. */
function bunParse(text: string): { ok: true; data: Record<string, unknown> } | { ok: false; error: string } {
  try {
    return { ok: true, data: Bun.TOML.parse(text) as Record<string, unknown> };
  } catch (err) {
    return { ok: false, error: (err as Error).message.replace(/^TOML Parse error:\s*/, "") };
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
  const text = before ?? "";
  const checked = checkCodexToml(text);
  const existing = getPath(parseToml(text), PATH);
  let value: TomlTable | undefined;
  if (!ctx.uninstall) {
    const merged = mergeEntry(existing, codexEntry(ctx), {
      owned: ["command"],
      envKey: "env",
      envOwned: ["SIGNET_DAEMON_URL"],
      addToLists: { env_vars: ctx.tokenSet ? ["SIGNET_TOKEN"] : [] },
    });
    value = merged;
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
    if (ctx.uninstall ? signet !== undefined : !isTable(signet) || signet.command !== MCP_COMMAND) {
      throw new TomlError("the edited file does not hold the expected [mcp_servers.signet] table");
    }
  }
  return after;
}

export const codex: Harness = {
  name: "codex",
  label: "Codex",
  files(ctx) {
    return [{ path: codexPath(ctx), edit: (before) => editCodexConfig(before, ctx) }];
  },
  notes(ctx) {
    if (ctx.uninstall || !ctx.tokenSet) return [];
    return ["a token is configured: Codex forwards SIGNET_TOKEN from its own environment (env_vars); the token itself was not written"];
  },
};
