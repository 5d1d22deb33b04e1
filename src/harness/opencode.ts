// OpenCode: `mcp.signet` in its global config, ~/.config/opencode/ ($XDG_CONFIG_HOME/opencode when
// set). OpenCode reads opencode.json and then opencode.jsonc there, both as JSONC, merging the second
// over the first key by key, and writes its own changes to opencode.jsonc when that exists. So the
// entry goes in opencode.jsonc when it exists and in opencode.json otherwise (created when neither
// does). With both, an entry already in opencode.json is updated in step (removed on --uninstall),
// so the two never merge into a mix of old and new values. OPENCODE_CONFIG names a file OpenCode
// merges over both (https://opencode.ai/docs/config/#precedence-order): when it is set, the entry
// goes there (created when missing), and one in the global files is kept in step with it the same
// way. The lifecycle hooks are a plugin, plugins/signet.js in the global directory
// (opencode-plugin.ts), a file that is Signet's alone. An `mcp.signet` that does not start
// signet-mcp is the user's own: setup refuses to write over it (or to keep one elsewhere in step
// with it), --uninstall keeps it.
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { editJsonEntry, isObject, jsonEntryOf, mergeEntry, type Json } from "./json-edit";
import { isSignetPlugin, opencodePlugin } from "./opencode-plugin";
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
  type HarnessFile,
} from "./types";

function opencodeEntry(values: EntryValues, dataDir: string): Record<string, Json> {
  return { type: "local", command: [values.command], enabled: true, environment: { ...reach(values, dataDir) } };
}

const SHAPE = { owned: ["type", "command", "enabled"], envKey: "environment", envOwned: REACH_VARIABLES };
const ENTRY = `mcp.${SERVER_NAME}`;

/** Signet's own entry: one whose command starts signet-mcp. */
const isSignetEntry = (entry: Json | undefined) =>
  isObject(entry) && Array.isArray(entry.command) && typeof entry.command[0] === "string" && isMcpCommand(entry.command[0]);

/**
 * OpenCode's global config files, the file OPENCODE_CONFIG names (`custom`, merged over them; a
 * relative name is taken from the current directory, as OpenCode started here takes it) and the plugin.
 */
export function opencodeFiles(ctx: Pick<HarnessContext, "home" | "env">): { json: string; jsonc: string; custom?: string; plugin: string } {
  const xdg = ctx.env.XDG_CONFIG_HOME?.trim();
  const dir = join(xdg || join(ctx.home, ".config"), "opencode");
  const custom = ctx.env.OPENCODE_CONFIG?.trim();
  return {
    json: join(dir, "opencode.json"),
    jsonc: join(dir, "opencode.jsonc"),
    ...(custom ? { custom: resolve(custom) } : {}),
    plugin: join(dir, "plugins", "signet.js"),
  };
}

export const opencode: Harness = {
  name: "opencode",
  label: "OpenCode",
  files(ctx) {
    /** `add`: write the entry even where there is none yet; otherwise only keep an existing one in step. */
    const values = ctx.install;
    const file = (path: string, add: boolean): HarnessFile => ({
      path,
      entry: ENTRY,
      removes: !values,
      containers: [["mcp"]],
      edit: (before, created) =>
        editJsonEntry(
          before,
          "mcp",
          SERVER_NAME,
          (existing) => {
            if (usersOwnEntry(existing, isSignetEntry, values !== undefined, ENTRY)) return existing;
            return !values || (!add && existing === undefined) ? undefined : (mergeEntry(existing, opencodeEntry(values, ctx.dataDir), SHAPE) as Json);
          },
          "JSONC",
          created,
        ),
      notes: (before) => {
        const entry = jsonEntryOf(before, "mcp", SERVER_NAME, "JSONC");
        return !values && entry !== undefined && !isSignetEntry(entry) ? [keptEntryNote(path, ENTRY)] : [];
      },
    });
    const { json, jsonc, custom, plugin } = opencodeFiles(ctx);
    const hooks: HarnessFile = {
      path: plugin,
      entry: "Signet's lifecycle plugin",
      removes: !values,
      // A file of that name that setup did not write is the user's.
      edit: (before) => {
        if (before !== null && !isSignetPlugin(before)) {
          if (!values) return before;
          throw new Error("it is not the plugin signet setup writes; move it away, then run this again");
        }
        return values ? opencodePlugin(values.signet, reach(values, ctx.dataDir)) : null;
      },
    };
    if (custom !== undefined) {
      // The file OpenCode merges last holds the entry; an older one below it would merge into it.
      const below = [json, jsonc].filter((path) => path !== custom && existsSync(path));
      return [...below.map((path) => file(path, false)), file(custom, true), hooks];
    }
    if (!existsSync(jsonc)) return [file(json, true), hooks];
    return existsSync(json) ? [file(json, false), file(jsonc, true), hooks] : [file(jsonc, true), hooks];
  },
};
