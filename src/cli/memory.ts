// Memory commands for operators and scripts: remember, get, list, modify, forget, recover, history.
// Flags become the request bodies and queries the HTTP API takes. The daemon checks them with the
// operation's schema and its refusal names the field (exit 2, as any invalid input): checking them
// here first would load zod and build the memory contract's schemas, about a third of `signet
// list`'s start, for an answer the daemon gives anyway.
import { defineCommand } from "./command";
import { COMMAND_DESCRIPTIONS } from "./descriptions";
import { ApiError } from "../client/client";
import type { HistoryEntry, Memory, RememberResponse } from "../contracts/memory";
import { defined } from "../contracts/parse";
import { clientArgs, clientFor, configFromFlags } from "./context";
import { ExitError, exitCodeOf } from "./errors";
import { filterArgs, filterFields, num } from "./flags";
import { emit } from "./output";
import { terminalText } from "./terminal-text";

/** A field shown inside a line: a newline in it must not pass for another line of the rendering. */
const inline = (text: string) => terminalText(text, { oneLine: true });

async function readContent(value: string): Promise<string> {
  if (value !== "-") return value;
  return await new Response(Bun.stdin.stream()).text();
}

function renderMemory(m: Memory): string {
  const flags = [m.type, `importance ${m.importance}`, m.pinned ? "pinned" : null, m.deletedAt ? `forgotten ${m.deletedAt}` : null]
    .filter(Boolean)
    .join(" · ");
  const meta = [
    m.tags.length ? `tags: ${inline(m.tags.join(", "))}` : null,
    m.project ? `project: ${inline(m.project)}` : null,
    m.who ? `by ${inline(m.who)}` : null,
    `created ${m.createdAt}`,
    `v${m.version}`,
  ]
    .filter(Boolean)
    .join(" · ");
  return `${m.id}  [${flags}]\n  ${m.content.replace(/\n/g, "\n  ")}\n  ${meta}`;
}

function renderHistory(history: HistoryEntry[]): string {
  return history
    .map((h) => {
      const who = inline([h.actor, h.actorType].filter(Boolean).join("/") || "unknown actor");
      const why = h.reason ? ` (${inline(h.reason)})` : "";
      return `v${h.version} ${h.action} by ${who} at ${h.createdAt}${why}\n  ${h.content.replace(/\n/g, "\n  ")}`;
    })
    .join("\n");
}

/** What a remember did; a repeat changes nothing, and says which of the values sent it left out (docs/api.md#dedupe). */
function rememberedHow(m: RememberResponse): string {
  if (!m.deduped) return "remembered";
  const ignored = m.dedupe?.ignored ?? [];
  if (ignored.length === 0) return "already remembered";
  return `already remembered; not applied: ${ignored.join(", ")} (change them with \`signet modify ${m.id} --reason ...\`)`;
}

/** What pinning does, as the --pinned flags say it. */
const PINNED = "pinned memories are given to the agent at every session start, in every project, and are not forgotten without --force";

const idArg = { id: { type: "positional", description: "Memory id, or its first 6 or more characters", required: true } } as const;

export const remember = defineCommand({
  meta: { name: "remember", description: COMMAND_DESCRIPTIONS.remember },
  args: {
    content: { type: "positional", text: true, description: "What to remember, or - to read it from stdin", required: true },
    type: { type: "string", description: "fact, preference, decision, rule, learning, issue, event, note, ... (default fact)" },
    importance: { type: "string", description: "Importance 0-1 (default 0.5)" },
    tags: { type: "string", commaList: true, description: "Comma-separated tags" },
    pinned: { type: "boolean", description: `Pin it: ${PINNED}` },
    who: { type: "string", description: "Author (default: the agent id)" },
    project: { type: "string", description: "Project path or name it belongs to" },
    "session-key": { type: "string", description: "Session the memory came from" },
    hints: { type: "string", description: "Recall hints, separated by |" },
    "created-at": { type: "string", description: "ISO time it was learned, for imports (not in the future)" },
    "review-after": { type: "string", description: "ISO time after which to review it" },
    ...clientArgs,
  },
  async run({ args }) {
    const body = defined({
      content: await readContent(args.content),
      type: args.type,
      importance: num("importance", args.importance),
      tags: args.tags,
      pinned: args.pinned,
      who: args.who,
      project: args.project,
      sessionKey: args["session-key"],
      hints: args.hints?.split("|").map((h) => h.trim()).filter(Boolean),
      createdAt: args["created-at"],
      reviewAfter: args["review-after"],
    });
    const result = await clientFor(configFromFlags(args)).memory.remember(body);
    emit(result, args, (m) => `${rememberedHow(m)}\n${renderMemory(m)}`);
  },
});

export const get = defineCommand({
  meta: { name: "get", description: COMMAND_DESCRIPTIONS.get },
  args: { ...idArg, ...clientArgs },
  async run({ args }) {
    const result = await clientFor(configFromFlags(args)).memory.get(args.id);
    emit(result, args, (m) => `${renderMemory(m)}\n\nhistory:\n${renderHistory(m.history)}`);
  },
});

export const history = defineCommand({
  meta: { name: "history", description: COMMAND_DESCRIPTIONS.history },
  args: { ...idArg, ...clientArgs },
  async run({ args }) {
    const result = await clientFor(configFromFlags(args)).memory.history(args.id);
    emit(result, args, (h) => renderHistory(h.history));
  },
});

export const list = defineCommand({
  meta: { name: "list", description: COMMAND_DESCRIPTIONS.list },
  args: {
    limit: { type: "string", description: "How many (default 100, max 1000)" },
    offset: { type: "string", description: "Skip this many" },
    forgotten: { type: "boolean", description: "Only forgotten memories, most recently forgotten first (recover them with signet recover)" },
    ...filterArgs,
    ...clientArgs,
  },
  async run({ args }) {
    const filters = filterFields(args);
    const query = defined({
      limit: args.limit,
      offset: args.offset,
      ...filters,
      pinned: filters.pinned === undefined ? undefined : String(filters.pinned),
      forgotten: args.forgotten ? "true" : undefined,
    });
    const result = await clientFor(configFromFlags(args)).memory.list(query);
    emit(result, args, (r) =>
      r.memories.length === 0
        ? "no memories match"
        : `${r.memories.map(renderMemory).join("\n\n")}${r.hasMore ? `\n\n(more: --offset ${r.offset + r.limit})` : ""}`,
    );
  },
});

export const modify = defineCommand({
  meta: { name: "modify", description: COMMAND_DESCRIPTIONS.modify },
  args: {
    ...idArg,
    reason: { type: "string", description: "Why (kept in the history)", required: true },
    content: { type: "string", description: "New content" },
    type: { type: "string", description: "New type" },
    importance: { type: "string", description: "New importance 0-1" },
    tags: { type: "string", commaList: true, description: "New comma-separated tag set (replaces the old one)" },
    pinned: { type: "boolean", description: `Pin (--pinned) or unpin (--no-pinned): ${PINNED}` },
    "if-version": { type: "string", description: "Only if the memory is still at this version" },
    ...clientArgs,
  },
  async run({ args }) {
    const body = defined({
      reason: args.reason,
      content: args.content,
      type: args.type,
      importance: num("importance", args.importance),
      tags: args.tags,
      pinned: args.pinned,
      ifVersion: num("if-version", args["if-version"]),
    });
    const result = await clientFor(configFromFlags(args)).memory.modify(args.id, body);
    emit(result, args, (m) => `modified\n${renderMemory(m)}`);
  },
});

export const forget = defineCommand({
  meta: { name: "forget", description: COMMAND_DESCRIPTIONS.forget },
  args: {
    ...idArg,
    reason: { type: "string", description: "Why (kept in the history)", required: true },
    force: { type: "boolean", description: "Forget it even if it is pinned" },
    ...clientArgs,
  },
  async run({ args }) {
    const body = defined({ reason: args.reason, force: args.force });
    const result = await clientFor(configFromFlags(args))
      .memory.forget(args.id, body)
      .catch((err: unknown) => {
        // The daemon's refusal names the API's field; here it is a flag.
        if (err instanceof ApiError && err.code === "pinned") {
          throw new ExitError(exitCodeOf(err), `memory ${args.id} is pinned: unpin it first (signet modify ${args.id} --no-pinned --reason ...), or add --force to forget it anyway`);
        }
        throw err;
      });
    emit(result, args, (m) => `forgotten (recover within 30 days with \`signet recover ${m.id}\`)\n${renderMemory(m)}`);
  },
});

export const recover = defineCommand({
  meta: { name: "recover", description: COMMAND_DESCRIPTIONS.recover },
  args: { ...idArg, reason: { type: "string", description: "Why (kept in the history)" }, ...clientArgs },
  async run({ args }) {
    const body = defined({ reason: args.reason });
    const result = await clientFor(configFromFlags(args)).memory.recover(args.id, body);
    emit(result, args, (m) => `recovered\n${renderMemory(m)}`);
  },
});
