// Signet's lifecycle hooks in a JSON hooks config: Claude Code's settings.json and Codex's
// hooks.json share the shape `hooks.<Event>: [{matcher?, hooks: [{type: "command", command,
// timeout}]}]`. Signet's handlers are those whose command runs `signet hook` (hook-command.ts);
// every other group and handler is the user's and stays as it is, byte for byte (json-edit.ts). A
// group of Signet's own is updated where it stands; a Signet handler sharing a group with the
// user's is taken out of it; a new group goes after the event's last one.
import { getNodeValue, type Node } from "jsonc-parser";
import { hookCommand, isSignetHookCommand } from "./hook-command";
import type { HarnessHook } from "./hook-io";
import {
  DuplicateKeyError,
  NONE_CREATED,
  addAt,
  appendTo,
  containerAt,
  isObject,
  parseJsonConfig,
  propertyOf,
  removeAt,
  removeFrom,
  replaceAt,
  valueOf,
  valuesAt,
  type CreatedContainers,
  type Json,
  type JsonObject,
} from "./json-edit";
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
const holdsSignetHandler = (groups: Json) =>
  Array.isArray(groups) && groups.some((g) => isObject(g) && Array.isArray(g.hooks) && g.hooks.some(isSignetHandler));

/**
 * The text after the next change the event's list needs to hold Signet's group `mine` (or none of
 * Signet's handlers, `mine` undefined); undefined when it needs none. The first group of Signet's
 * alone becomes `mine`, any other goes.
 */
function nextChange(text: string | null, event: string, mine: JsonObject | undefined, created: CreatedContainers): string | undefined {
  const config = parseJsonConfig(text ?? "");
  const path = ["hooks", event];
  let list: Node | undefined;
  try {
    list = containerAt(config, path, "array");
  } catch (err) {
    // A key written twice stands in the way only of an edit that has something to change.
    if (err instanceof DuplicateKeyError && !mine && !valuesAt(config, path).some(holdsSignetHandler)) return undefined;
    throw err;
  }
  let placed = false;
  for (const [i, group] of (list?.children ?? []).entries()) {
    const value = getNodeValue(group) as Json;
    // Signet's group as it should be, whatever its command looks like, is in place.
    if (mine && !placed && Bun.deepEquals(value, mine)) {
      placed = true;
      continue;
    }
    if (!isObject(value) || !Array.isArray(value.hooks) || !value.hooks.some(isSignetHandler)) continue;
    const handlers = value.hooks;
    if (!handlers.every(isSignetHandler)) {
      const node = valueOf(propertyOf(config.body, group, "hooks", [...path, String(i)])!);
      return removeFrom(config, node, handlers.findIndex(isSignetHandler));
    }
    if (mine && !placed) return replaceAt(config, group, mine);
    return removeAt(config, path, i, created);
  }
  if (!mine || placed) return undefined;
  return list ? appendTo(config, list, mine) : addAt(config, path, [mine]);
}

/**
 * The new text of a hooks config: Signet's hooks installed (`values`) or taken out (undefined). An
 * event list or `hooks` object left empty goes when setup created it (`created`).
 */
export function editHooks(
  before: string | null,
  hooks: readonly HarnessHook[],
  values: HookValues | undefined,
  created: CreatedContainers = NONE_CREATED,
): string | null {
  let text = before;
  // Taken out in the reverse of the order they went in, so that each removal meets the text its
  // insertion left (two events' lists can share a line).
  for (const hook of values ? hooks : [...hooks].reverse()) {
    const mine = values ? groupFor(hook, values) : undefined;
    // One change at a time, each made on the text the last one left.
    for (let next = nextChange(text, hook.harnessEvent, mine, created); next !== undefined; next = nextChange(text, hook.harnessEvent, mine, created)) text = next;
  }
  return text;
}

/** The containers Signet's hooks live in: `hooks` and each event's list. */
export const hookContainers = (hooks: readonly HarnessHook[]): string[][] => [["hooks"], ...hooks.map((h) => ["hooks", h.harnessEvent])];

/** How a plan names Signet's entry in a hooks config. */
export const hooksEntry = (hooks: readonly HarnessHook[]) => `Signet's hooks (${hooks.map((h) => h.harnessEvent).join(", ")})`;
