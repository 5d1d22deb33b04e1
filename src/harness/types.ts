// What every harness module provides, and what the plan step gives it.

export const HARNESS_NAMES = ["claude-code", "codex", "opencode"] as const;
export type HarnessName = (typeof HARNESS_NAMES)[number];

/** The daemon URL signet-mcp uses when nothing overrides it; not written into configs. */
export const DEFAULT_DAEMON_URL = "http://127.0.0.1:3850";
export const MCP_COMMAND = "signet-mcp";
export const SERVER_NAME = "signet";

export interface HarnessContext {
  /** The home directory configs are found under (process.env.HOME). */
  home: string;
  /** The environment, for the harnesses' own location overrides (CODEX_HOME, XDG_CONFIG_HOME, ...). */
  env: Record<string, string | undefined>;
  /** Validated origin signet-mcp should reach the daemon at. */
  daemonUrl: string;
  /** A token is configured (auth.token / SIGNET_TOKEN); it is never written, only referred to. */
  tokenSet: boolean;
  uninstall: boolean;
}

/** One config file a harness registration touches, and how to compute its new text. */
export interface HarnessFile {
  path: string;
  /** The new text given the current one (null: the file does not exist / should not). */
  edit(before: string | null): string | null;
}

export interface Harness {
  name: HarnessName;
  label: string;
  files(ctx: HarnessContext): HarnessFile[];
  notes(ctx: HarnessContext): string[];
}
