// How the memory tools answer (docs/mcp.md#memory-answers): compact text for the model to read, and
// the daemon's whole answer as structuredContent, described by its operation's response schema. The text
// goes to a model, not a terminal, so content is given as stored (control characters included).
import type { HistoryEntry, ListResponse, Memory, MemoryWithHistory, RememberResponse } from "../contracts/memory";

/**
 * Content longer than this is cut in the text of every tool but memory_get, with a line saying so:
 * a list of long memories would otherwise flood the model's context. The structured answer always
 * has it whole, and memory_get shows it whole.
 */
const SHOWN_CHARS = 2000;
const count = (n: number) => n.toLocaleString("en-US");
const indent = (text: string) => `  ${text.replace(/\n/g, "\n  ")}`;

function shownContent(content: string, whole: boolean): string {
  if (whole || content.length <= SHOWN_CHARS) return indent(content);
  // Never split a surrogate pair.
  const end = /[\uD800-\uDBFF]/.test(content[SHOWN_CHARS - 1] ?? "") ? SHOWN_CHARS - 1 : SHOWN_CHARS;
  return `${indent(content.slice(0, end))}\n  [content cut: ${count(end)} of ${count(content.length)} characters shown; memory_get shows it whole]`;
}

/** `[id · type · v2 · created 2026-12-01 · updated 2026-12-03 · pinned · by ann · tags: a, b]` and the content below. */
function memoryRow(m: Memory, wholeContent = false): string {
  const meta = [
    m.id,
    m.type,
    `v${m.version}`,
    `created ${m.createdAt.slice(0, 10)}`,
    m.version > 1 ? `updated ${m.updatedAt.slice(0, 10)}` : null,
    m.pinned ? "pinned" : null,
    m.who ? `by ${m.who}` : null,
    // Tags cannot contain commas (docs/api.md#memories), so the list reads back unambiguously.
    m.tags.length > 0 ? `tags: ${m.tags.join(", ")}` : null,
  ].filter(Boolean);
  return `[${meta.join(" · ")}]\n${shownContent(m.content, wholeContent)}`;
}

/** memory_store and signet_save_note. */
export function storedText(m: RememberResponse): string {
  if (!m.deduped) return `Stored as a new memory:\n${memoryRow(m)}`;
  const ignored = m.dedupe?.ignored ?? [];
  const unapplied =
    ignored.length > 0 ? ` Not applied: ${ignored.join(", ")} (the stored memory keeps its own; change them with memory_modify).` : "";
  return `Already stored (deduped): the same content was stored before, so nothing new was written.${unapplied} The existing memory:\n${memoryRow(m)}`;
}

export function modifiedText(m: Memory): string {
  return `Modified. The memory now:\n${memoryRow(m)}`;
}

export function forgottenText(m: Memory): string {
  return `Forgotten at ${m.deletedAt} (reason: ${m.deleteReason}). It no longer appears in searches or lists; an operator can recover it within 30 days (\`signet recover ${m.id}\`).\n${memoryRow(m)}`;
}

export function listText(r: ListResponse): string {
  const n = r.memories.length;
  if (n === 0) return r.offset === 0 ? "No memories." : `No memories at offset ${r.offset}.`;
  const more = r.hasMore ? `More: call memory_list with offset ${r.offset + n}.` : "No more.";
  const rows = r.memories.map((m, i) => `${r.offset + i + 1}. ${memoryRow(m)}`);
  return [`Memories ${r.offset + 1}–${r.offset + n}, newest first. ${more}`, ...rows].join("\n");
}

const SNAPSHOT_FIELDS = ["content", "type", "importance", "pinned"] as const;

/** What a history entry changed from the one before it. */
function changed(before: HistoryEntry | undefined, h: HistoryEntry): string {
  if (!before) return "";
  const fields: string[] = SNAPSHOT_FIELDS.filter((f) => before[f] !== h[f]);
  if (before.tags.join(",") !== h.tags.join(",")) fields.push("tags");
  return fields.length > 0 ? ` (changed ${fields.join(", ")})` : "";
}

function historyLine(h: HistoryEntry, before: HistoryEntry | undefined): string {
  const by = h.actor ? ` by ${h.actor}` : "";
  const why = h.reason ? `: ${h.reason}` : "";
  return `  v${h.version} ${h.action} ${h.createdAt}${by}${changed(before, h)}${why}`;
}

/** memory_get: the whole content, the other fields that are set, and a summary of the history. */
export function memoryDetailText(m: MemoryWithHistory): string {
  const details = [
    `importance ${m.importance}`,
    `agent ${m.agentId}`,
    m.project ? `project ${m.project}` : null,
    m.source ? `source ${m.source}` : null,
    m.sessionKey ? `session ${m.sessionKey}` : null,
    `created ${m.createdAt}`,
    `updated ${m.updatedAt}`,
  ].filter(Boolean);
  const lines = [memoryRow(m, true), details.join(" · ")];
  if (m.deletedAt) lines.push(`Forgotten at ${m.deletedAt} (reason: ${m.deleteReason}).`);
  if (m.hints.length > 0) lines.push(`hints: ${JSON.stringify(m.hints)}`);
  if (m.reviewAfter) lines.push(`review after ${m.reviewAfter}`);
  const extra = [
    m.transcript !== null ? `transcript (${count(m.transcript.length)} characters)` : null,
    m.structured !== null ? "structured data" : null,
  ].filter(Boolean);
  if (extra.length > 0) lines.push(`Also stored, in the structured result: ${extra.join(", ")}.`);
  lines.push(
    `History (${m.history.length} version${m.history.length === 1 ? "" : "s"}, oldest first; earlier contents in the structured result):`,
    ...m.history.map((h, i) => historyLine(h, m.history[i - 1])),
  );
  return lines.join("\n");
}
