// The command a harness hook runs: `'<signet>' hook <event> --harness <name> --data-dir '<dir>'`,
// then `--url`, `--token-file` and `--agent` when the entry carries them: the same values the MCP
// entry carries as environment variables (types.ts `reach`), so hooks reach the same daemon as the
// agent's tools. Claude Code and Codex run it through a POSIX shell, so every value in it is
// single-quoted (the URL is a validated origin, the token file a path: never the token itself).
import { HOOK_EVENTS, type HookEvent } from "../contracts/hook-events";
import { basename } from "node:path";

import type { HarnessName, Reach } from "./types";

/** `signet hook`'s flag for each variable an entry carries. */
export const HOOK_FLAGS: Record<keyof Reach, string> = {
  SIGNET_PATH: "--data-dir",
  SIGNET_DAEMON_URL: "--url",
  SIGNET_TOKEN_FILE: "--token-file",
  SIGNET_AGENT_ID: "--agent",
};

/** `value` as one POSIX shell word: single-quoted, with each `'` written as `'\''`. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** The flags after `--harness <name>`, as an argument list: `--data-dir <dir>`, and the rest the entry carries. */
export function hookFlags(target: Reach): string[] {
  return (Object.keys(HOOK_FLAGS) as (keyof Reach)[]).flatMap((name) => (target[name] === undefined ? [] : [HOOK_FLAGS[name], target[name]!]));
}

export function hookCommand(signet: string, event: HookEvent, harness: HarnessName, target: Reach): string {
  const flags = hookFlags(target).map((word, i) => (i % 2 === 0 ? word : shellQuote(word)));
  return `${shellQuote(signet)} hook ${event} --harness ${harness} ${flags.join(" ")}`;
}

const FIRST_WORD = /^\s*(?:'((?:[^']|'\\'')*)'|"([^"]*)"|(\S+))\s+hook\s+(\S+)/;

/** A command `signet setup` wrote (a signet binary by any path running `hook <event>`); others are the user's. */
export function isSignetHookCommand(command: unknown): boolean {
  if (typeof command !== "string") return false;
  const match = FIRST_WORD.exec(command);
  if (!match) return false;
  const program = (match[1]?.replaceAll(`'\\''`, "'") ?? match[2] ?? match[3])!;
  return basename(program) === "signet" && (HOOK_EVENTS as readonly string[]).includes(match[4]!);
}
