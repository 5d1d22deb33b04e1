// What every harness module provides, and what the plan step gives it.
import { basename } from "node:path";
import type { CreatedContainers } from "./json-edit";

export const HARNESS_NAMES = ["claude-code", "codex", "opencode"] as const;
export type HarnessName = (typeof HARNESS_NAMES)[number];

/** The daemon URL clients use when nothing overrides it (and no daemon of the data directory runs elsewhere); not written into entries. */
const DEFAULT_DAEMON_URL = "http://127.0.0.1:3850";
export const MCP_COMMAND = "signet-mcp";
export const SERVER_NAME = "signet";

/** A command that starts signet-mcp, by whatever path (`signet-mcp`, `/home/me/.local/bin/signet-mcp`). */
export function isMcpCommand(command: string): boolean {
  return basename(command).replace(/\.exe$/i, "") === MCP_COMMAND;
}

/** Why setup does not write over an entry named signet that is not Signet's (one that does not start signet-mcp). */
function notSignetsEntry(entry: string): string {
  return `${entry} is a server of your own, not Signet's (it does not run ${MCP_COMMAND}): rename or remove it, then run this again`;
}

/**
 * Whether `existing`, the entry under Signet's name, is a server of the user's own (`isSignets`
 * says it is not Signet's): setup refuses to write over it (`installing`, naming `entry`), and
 * --uninstall keeps it.
 */
export function usersOwnEntry<T>(existing: T | undefined, isSignets: (entry: T) => boolean, installing: boolean, entry: string): boolean {
  if (existing === undefined || isSignets(existing)) return false;
  if (installing) throw new Error(notSignetsEntry(entry));
  return true;
}

/** What --uninstall says of such an entry, which it keeps. */
export function keptEntryNote(file: string, entry: string): string {
  return `kept ${entry} in ${file}: it is a server of your own, not Signet's (it does not run ${MCP_COMMAND})`;
}

/** What `signet setup` writes into a harness's entry. */
export interface EntryValues {
  /** Absolute path of the signet-mcp the harness starts. */
  command: string;
  /** Absolute path of the signet binary the lifecycle hooks run (`signet hook`, docs/hooks.md). */
  signet: string;
  /** Validated origin (src/config/daemon-url.ts) the entries reach the daemon at. */
  daemonUrl: string;
  /** The file holding the harness's API token, when the daemon needs one; never the token itself. */
  tokenFile?: string;
  /** The agent the harness acts as, when setup was told one (`--agent`). */
  agentId?: string;
}

/**
 * What every entry carries to reach the daemon setup was run for, as environment variables (the MCP
 * entry) or `signet hook` flags. The URL only when it is not the default: without one, clients use
 * the running daemon of the data directory, else the default (docs/config.md).
 */
export interface Reach {
  SIGNET_PATH: string;
  SIGNET_DAEMON_URL?: string;
  SIGNET_TOKEN_FILE?: string;
  SIGNET_AGENT_ID?: string;
}

/** The variables of `Reach`, all of them setup's: one a user put in the entry is replaced or removed. */
export const REACH_VARIABLES = ["SIGNET_PATH", "SIGNET_DAEMON_URL", "SIGNET_TOKEN_FILE", "SIGNET_AGENT_ID"];

export function reach(values: EntryValues, dataDir: string): Reach {
  const out: Reach = { SIGNET_PATH: dataDir };
  if (values.daemonUrl !== DEFAULT_DAEMON_URL) out.SIGNET_DAEMON_URL = values.daemonUrl;
  if (values.tokenFile !== undefined) out.SIGNET_TOKEN_FILE = values.tokenFile;
  if (values.agentId !== undefined) out.SIGNET_AGENT_ID = values.agentId;
  return out;
}

export interface HarnessContext {
  /** The home directory configs are found under (process.env.HOME). */
  home: string;
  /** The environment, for the harnesses' own location overrides (CODEX_HOME, XDG_CONFIG_HOME, ...). */
  env: Record<string, string | undefined>;
  /**
   * The data directory (absolute): written into the entry as SIGNET_PATH, so the agent uses the
   * store the user set up; its .daemon/ keeps the record of the files setup created (created.ts).
   */
  dataDir: string;
  /** The entry to write; undefined for --uninstall, which takes Signet's entries out. */
  install?: EntryValues;
}

/** One config file a registration touches, and how to compute its new text. */
export interface HarnessFile {
  path: string;
  /** Where Signet's entry is in it, as a dotted key (`mcpServers.signet`). */
  entry: string;
  /** The edit only takes Signet's entry out (--uninstall, or a file the harness no longer reads it from). */
  removes: boolean;
  /** Why this file is edited, when the command alone does not say it, given its text before the edit. */
  reason?(before: string | null): string | undefined;
  /**
   * The JSON paths of the objects and lists Signet's entries live in (`["mcpServers"]`, `["hooks",
   * "SessionStart"]`): those setup creates are recorded (created.ts), and --uninstall takes them away
   * once they are empty; those that were there before stay.
   */
  containers?: string[][];
  /**
   * The new text given the current one (null: the file does not exist / should not); `created` says
   * which containers setup created, for a removal.
   */
  edit(before: string | null, created: CreatedContainers): string | null;
  /** What the edit left as it was and the user should know, given the text before it. */
  notes?(before: string | null): string[];
}

export interface Harness {
  name: HarnessName;
  label: string;
  files(ctx: HarnessContext): HarnessFile[];
  /** What is left for the user to do, if anything. */
  notes?(ctx: HarnessContext): string[];
}
