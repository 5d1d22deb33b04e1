// The command a harness hook runs: `'<signet>' hook <event> --harness <name> --data-dir '<dir>'`.
// Claude Code and Codex run it through a POSIX shell, so every value in it is single-quoted; the
// daemon URL and token are not in it: `signet hook` reads them from the environment (docs/hooks.md).
import { HOOK_EVENTS, type HookEvent } from "../contracts/hook-events";
import { basename } from "node:path";

import type { HarnessName } from "./types";

/** `value` as one POSIX shell word: single-quoted, with each `'` written as `'\''`. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

export function hookCommand(signet: string, event: HookEvent, harness: HarnessName, dataDir: string): string {
  return `${shellQuote(signet)} hook ${event} --harness ${harness} --data-dir ${shellQuote(dataDir)}`;
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
