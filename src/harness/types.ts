// What every harness module provides, and what the plan step gives it.
import { basename } from "node:path";

export const HARNESS_NAMES = ["claude-code", "codex", "opencode"] as const;
export type HarnessName = (typeof HARNESS_NAMES)[number];

/** The daemon URL signet-mcp uses when nothing overrides it; not written into configs. */
export const DEFAULT_DAEMON_URL = "http://127.0.0.1:3850";
export const MCP_COMMAND = "signet-mcp";
export const SERVER_NAME = "signet";

/** A command that starts signet-mcp, by whatever path (`signet-mcp`, `/home/me/.local/bin/signet-mcp`). */
export function isMcpCommand(command: string): boolean {
  return basename(command).replace(/\.exe$/i, "") === MCP_COMMAND;
}

/** What `signet setup` writes into a harness's entry. */
export interface EntryValues {
  /** Absolute path of the signet-mcp the harness starts. */
  command: string;
  /** Absolute path of the signet binary the lifecycle hooks run (`signet hook`, docs/hooks.md). */
  signet: string;
  /** Validated origin signet-mcp should reach the daemon at. */
  daemonUrl: string;
  /** A token is configured (auth.token / SIGNET_TOKEN); it is never written, only referred to. */
  tokenSet: boolean;
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
  /** Why this file is edited, when the command alone does not say it. */
  reason?: string;
  /** The new text given the current one (null: the file does not exist / should not). */
  edit(before: string | null): string | null;
}

export interface Harness {
  name: HarnessName;
  label: string;
  files(ctx: HarnessContext): HarnessFile[];
  notes(ctx: HarnessContext): string[];
}

/** The note of a harness that cannot be given the token by name. */
export function tokenNote(ctx: HarnessContext, label: string): string[] {
  if (!ctx.install?.tokenSet) return [];
  return [`a token is configured but was not written to ${label}'s config: start ${label} with SIGNET_TOKEN in its environment`];
}

/**
 * Hook commands carry no daemon URL (docs/hooks.md): `signet hook` reads SIGNET_DAEMON_URL from the
 * harness's environment, else daemon.url in agent.yaml. Said when setup was given another URL.
 */
export function hookUrlNote(ctx: HarnessContext, label: string): string[] {
  const url = ctx.install?.daemonUrl;
  if (url === undefined || url === DEFAULT_DAEMON_URL) return [];
  return [
    `the lifecycle hooks reach the daemon at SIGNET_DAEMON_URL from ${label}'s environment, else daemon.url in ${ctx.dataDir}/agent.yaml: set one of them to ${url} (it is never written into a hook command)`,
  ];
}
