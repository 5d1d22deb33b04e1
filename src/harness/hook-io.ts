// What `signet hook` reads from a harness and prints back (docs/hooks.md): each harness's lifecycle
// events and the Signet hook each one runs, the hook JSON a harness writes on stdin, and the output
// it expects. Formats as the harnesses document them: Claude Code's hooks reference and Codex's
// (the JSON schemas its binary ships), which share field names; OpenCode has no command hooks, so
// Signet's own plugin (opencode-plugin.ts) writes the same fields.
import type { HookEvent } from "../contracts/hook-events";
import type { HookContextResponse } from "../contracts/session";
import type { HarnessName } from "./types";

/** A harness event and the Signet hook it runs; `timeoutS` is the harness's limit on the command. */
export interface HarnessHook {
  harnessEvent: string;
  event: HookEvent;
  timeoutS: number;
}

/**
 * Claude Code and Codex name their events alike. SessionStart also fires after a compaction
 * (source `compact`), which is when the start context must come back; PostCompact opens the new
 * injection window.
 */
export const COMMAND_HOOKS: readonly HarnessHook[] = [
  { harnessEvent: "SessionStart", event: "session-start", timeoutS: 10 },
  { harnessEvent: "UserPromptSubmit", event: "user-prompt-submit", timeoutS: 10 },
  { harnessEvent: "PreCompact", event: "pre-compaction", timeoutS: 30 },
  { harnessEvent: "PostCompact", event: "compaction-complete", timeoutS: 10 },
  { harnessEvent: "SessionEnd", event: "session-end", timeoutS: 30 },
];

export class HookInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "HookInputError";
  }
}

/** The parts of a harness's hook JSON Signet uses. */
export interface HookInput {
  sessionKey: string;
  /** The working directory: the session's project. */
  project?: string;
  prompt?: string;
  /** Claude Code and Codex: the file the conversation is kept in. */
  transcriptPath?: string;
  /** OpenCode (Signet's plugin): the conversation as text. */
  transcript?: string;
  parentSessionKey?: string;
}

/** The longest project the daemon keeps (src/contracts/session.ts, src/contracts/memory.ts). */
const MAX_PROJECT_CHARS = 1000;

/**
 * A harness's working directory as the project Signet files a session and its memories under.
 * `signet hook` (the session's project) and signet-mcp (a stored memory's) both derive it here, so
 * session-start's "memories for this project" finds what the agent stored in that project.
 */
export function projectOfDirectory(cwd: string): string {
  return cwd.slice(0, MAX_PROJECT_CHARS);
}

function optionalString(data: Record<string, unknown>, key: string): string | undefined {
  const value = data[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw new HookInputError(`"${key}" is not a string`);
  return value.trim() === "" ? undefined : value;
}

/** The hook JSON as Signet needs it; a short HookInputError when it is not a harness's hook JSON. */
export function parseHookInput(text: string): HookInput {
  if (text.trim() === "") throw new HookInputError("no hook JSON on stdin");
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new HookInputError("stdin is not JSON");
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) throw new HookInputError("stdin is not a JSON object");
  const fields = data as Record<string, unknown>;
  const sessionKey = optionalString(fields, "session_id");
  if (sessionKey === undefined) throw new HookInputError('"session_id" is missing');
  const input: HookInput = { sessionKey };
  const project = optionalString(fields, "cwd");
  if (project !== undefined) input.project = project;
  const prompt = optionalString(fields, "prompt");
  if (prompt !== undefined) input.prompt = prompt;
  const transcriptPath = optionalString(fields, "transcript_path");
  if (transcriptPath !== undefined) input.transcriptPath = transcriptPath;
  const transcript = optionalString(fields, "transcript");
  if (transcript !== undefined) input.transcript = transcript;
  const parent = optionalString(fields, "parent_session_id");
  if (parent !== undefined) input.parentSessionKey = parent;
  return input;
}

/** The events whose hook sends the conversation so far. */
export const SENDS_TRANSCRIPT: ReadonlySet<HookEvent> = new Set(["session-end", "pre-compaction"]);

const CONTEXT_EVENT: Partial<Record<HookEvent, string>> = {
  "session-start": "SessionStart",
  "user-prompt-submit": "UserPromptSubmit",
};

/** What a hook prints: a JSON value, or plain text. `signet hook` escapes what must not reach stdout raw (src/cli/hook.ts). */
export type HookOutput = { json: Record<string, unknown> } | { text: string };

/**
 * What to print for the daemon's answer, or undefined for nothing. Claude Code and Codex add
 * `hookSpecificOutput.additionalContext` to the conversation at SessionStart and UserPromptSubmit.
 * Claude Code takes a PreCompact hook's plain stdout as instructions for the compaction summary;
 * Codex's PreCompact and both harnesses' PostCompact and SessionEnd show output to the user at
 * most, so nothing is printed there. Signet's OpenCode plugin reads `{context, memoryIds}`.
 */
export function hookOutput(harness: HarnessName, event: HookEvent, answer: HookContextResponse): HookOutput | undefined {
  const context = answer.context.trim();
  if (context === "") return undefined;
  if (harness === "opencode") return { json: { context, memoryIds: answer.memoryIds } };
  const hookEventName = CONTEXT_EVENT[event];
  if (hookEventName) return { json: { hookSpecificOutput: { hookEventName, additionalContext: context } } };
  if (event === "pre-compaction" && harness === "claude-code") return { text: context };
  return undefined;
}
