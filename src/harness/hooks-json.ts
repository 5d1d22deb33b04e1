// Signet's lifecycle hooks in a JSON hooks config: Claude Code's settings.json and Codex's
// hooks.json share the shape `hooks.<Event>: [{matcher?, hooks: [{type: "command", command,
// timeout}]}]`. Signet's handlers are those whose command runs `signet hook` (hook-command.ts);
// every other group and handler is the user's and stays as it is. A group of Signet's own is
// updated where it stands; a Signet handler sharing a group with the user's is taken out of it.
import { hookCommand, isSignetHookCommand } from "./hook-command";
import type { HarnessHook } from "./hook-io";
import { editJsonEntry, isObject, type Json, type JsonObject } from "./json-edit";
import type { HarnessName, Reach } from "./types";

export interface HookValues {
  /** Absolute path of the signet binary the hooks run. */
  signet: string;
  harness: HarnessName;
  /** The data directory and what else the entry carries to reach the daemon. */
  target: Reach;
}

function groupFor(hook: HarnessHook, values: HookValues): JsonObject {
  return { hooks: [{ type: "command", command: hookCommand(values.signet, hook.event, values.harness, values.target), timeout: hook.timeoutS }] };
}

const isSignetHandler = (handler: Json) => isObject(handler) && isSignetHookCommand(handler.command);

/** The event's groups with Signet's group in place (`mine`), or without Signet's handlers (`mine` undefined). */
function editGroups(existing: Json | undefined, mine: JsonObject | undefined, event: string): Json | undefined {
  if (existing !== undefined && !Array.isArray(existing)) throw new Error(`"hooks.${event}" is not a list`);
  const out: Json[] = [];
  let placed = false;
  for (const group of existing ?? []) {
    if (!isObject(group) || !Array.isArray(group.hooks) || !group.hooks.some(isSignetHandler)) {
      out.push(group);
      continue;
    }
    const theirs = group.hooks.filter((h) => !isSignetHandler(h));
    if (theirs.length > 0) out.push({ ...group, hooks: theirs });
    else if (mine && !placed) {
      out.push(mine);
      placed = true;
    }
  }
  if (mine && !placed) out.push(mine);
  return out.length > 0 ? out : undefined;
}

/** The new text of a hooks config: Signet's hooks installed (`values`) or taken out (undefined). */
export function editHooks(before: string | null, hooks: readonly HarnessHook[], values: HookValues | undefined): string | null {
  let text = before;
  for (const hook of hooks) {
    const mine = values ? groupFor(hook, values) : undefined;
    text = editJsonEntry(text, "hooks", hook.harnessEvent, (existing) => editGroups(existing, mine, hook.harnessEvent));
  }
  return text;
}

/** How a plan names Signet's entry in a hooks config. */
export const hooksEntry = (hooks: readonly HarnessHook[]) => `Signet's hooks (${hooks.map((h) => h.harnessEvent).join(", ")})`;
