// A harness's transcript file as the text Signet stores and searches (docs/hooks.md#transcripts):
// one line per turn, `user: ...`, `assistant: ...`, tool calls and results shortened. Claude Code
// keeps a session as JSON lines `{type: "user"|"assistant", message: {content}}`; Codex as a
// rollout of `{type: "response_item", payload: {type: "message"|"function_call"|...}}` lines. A
// file in neither shape is kept as it is. Both the bytes read and the text returned are bounded.
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";

/** At most this much of a transcript file is read: its end, which holds the latest turns. */
const MAX_READ_BYTES = 16 * 1024 * 1024;
/** A tool call's arguments or result is cut to this many characters. */
const MAX_TOOL_CHARS = 2000;

/**
 * Opening for reading without waiting: a FIFO (or a device) at the path would otherwise block the
 * open until a writer comes, and so the hook until the harness's limit; what was opened is then
 * checked to be a regular file, so nothing swapped in between the check and the open is read.
 */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

/** The last `MAX_READ_BYTES` of the file, starting at a whole line when cut; throws for anything but a regular file. */
export function readTranscriptFile(path: string): string {
  const fd = openSync(path, OPEN_FLAGS);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new Error(stat.isDirectory() ? "it is a directory" : "it is not a regular file");
    const size = stat.size;
    const length = Math.min(size, MAX_READ_BYTES);
    const buffer = Buffer.alloc(length);
    let read = 0;
    while (read < length) {
      const n = readSync(fd, buffer, read, length - read, size - length + read);
      if (n === 0) break;
      read += n;
    }
    const text = buffer.subarray(0, read).toString("utf8");
    return size > length ? text.slice(text.indexOf("\n") + 1) : text;
  } finally {
    closeSync(fd);
  }
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)} [...]` : text;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** The text of a content value: a string, or blocks of text, tool calls and tool results. */
function contentText(content: unknown): string[] {
  if (typeof content === "string") return [content];
  if (!Array.isArray(content)) return [];
  const out: string[] = [];
  for (const block of content) {
    if (!isObject(block)) continue;
    if (typeof block.text === "string") out.push(block.text);
    else if (block.type === "tool_use") out.push(`[tool ${String(block.name)} ${cut(JSON.stringify(block.input ?? {}), MAX_TOOL_CHARS)}]`);
    else if (block.type === "tool_result") out.push(`[tool result ${cut(contentText(block.content).join(" "), MAX_TOOL_CHARS)}]`);
  }
  return out;
}

/** One transcript line as `role: text`, or undefined for lines that are not part of the conversation. */
function turnOf(entry: Json): string | undefined {
  // Claude Code
  if ((entry.type === "user" || entry.type === "assistant") && isObject(entry.message) && entry.isMeta !== true) {
    const text = contentText(entry.message.content).join("\n").trim();
    return text ? `${entry.type}: ${text}` : undefined;
  }
  // Codex
  if (entry.type === "response_item" && isObject(entry.payload)) {
    const p = entry.payload;
    if (p.type === "message" && (p.role === "user" || p.role === "assistant")) {
      const text = contentText(p.content).join("\n").trim();
      return text ? `${p.role}: ${text}` : undefined;
    }
    if (p.type === "function_call") return `assistant: [tool ${String(p.name)} ${cut(String(p.arguments ?? ""), MAX_TOOL_CHARS)}]`;
    if (p.type === "function_call_output") {
      const output = isObject(p.output) ? JSON.stringify(p.output) : String(p.output ?? "");
      return `tool: [tool result ${cut(output, MAX_TOOL_CHARS)}]`;
    }
  }
  return undefined;
}

/** The conversation in a transcript file's text; the text itself when no line is a known turn. */
export function transcriptText(raw: string): string {
  const turns: string[] = [];
  let parsed = 0;
  for (const line of raw.split("\n")) {
    if (line.trim() === "") continue;
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    parsed++;
    const turn = isObject(entry) ? turnOf(entry) : undefined;
    if (turn !== undefined) turns.push(turn);
  }
  return parsed === 0 ? raw : turns.join("\n");
}

/** `text` within `maxChars`, keeping its end (the latest turns) and saying what was left out. */
export function boundTranscript(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const marker = "[earlier part of the transcript left out]\n";
  let tail = text.slice(text.length - (maxChars - marker.length));
  const newline = tail.indexOf("\n");
  if (newline >= 0 && newline < tail.length - 1) tail = tail.slice(newline + 1);
  return marker + tail;
}
