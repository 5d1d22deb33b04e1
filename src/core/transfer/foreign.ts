// Memories from other tools' files (docs/api.md#foreign-formats) are made into records of an export
// file, so one path writes every import. Their ids come from where they came from (format, agent,
// the source's own name for them, their text): importing the same file again finds each one stored,
// forgotten ones included, and skips it.
import { createHash } from "node:crypto";
import { parseInput } from "../../contracts/parse";
import { ExportRecordSchema, type ExportRecord, type ImportFormat } from "../../contracts/transfer";
import type { Caller } from "../memory/service";

const MAX_TAGS = 64;
const MAX_TAG_CHARS = 100;

/** One memory read from a foreign file. */
export interface ForeignMemory {
  /** What names it in its source beside its text (an entity, a note), for its id. */
  origin: string;
  content: string;
  /** A word such as fact or decision; anything else becomes `fact`. */
  type: string;
  /** Names from the source, made into valid tags. */
  tags: string[];
  structured: Record<string, unknown>;
}

/** A UUID (version 8: made by us from a hash) that names the same memory of the same file every time. */
function derivedId(parts: string[]): string {
  const hex = createHash("sha256").update(parts.join("\u0000")).digest("hex");
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** Source names as tags: no commas, at most 100 characters, no empty or repeated ones. */
function asTags(names: string[]): string[] {
  const tags = names.map((n) => n.replace(/,/g, " ").replace(/\s+/g, " ").trim().slice(0, MAX_TAG_CHARS).trim()).filter((t) => t !== "");
  return [...new Set(tags)].slice(0, MAX_TAGS);
}

/**
 * The export record of a foreign memory, created now by `caller` (its agent owns it), or the reason
 * it cannot be one (an observation longer than a memory may be, ...).
 */
export function foreignRecord(
  format: Exclude<ImportFormat, "signet">,
  caller: Caller,
  m: ForeignMemory,
  createdAt: string,
  nowIso: string,
): ExportRecord | { reason: string } {
  const type = /^[a-z][a-z0-9_-]{0,39}$/.test(m.type.toLowerCase()) ? m.type.toLowerCase() : "fact";
  const tags = asTags(m.tags);
  const snapshot = { content: m.content, type, importance: 0.5, tags, pinned: false };
  const record = {
    kind: "memory",
    id: derivedId([format, caller.agentId, m.origin, m.content]),
    ...snapshot,
    who: caller.agentId,
    project: null,
    agentId: caller.agentId,
    source: format,
    sessionKey: null,
    hints: [],
    transcript: null,
    structured: m.structured,
    reviewAfter: null,
    createdAt,
    updatedAt: nowIso,
    version: 1,
    accessCount: 0,
    lastAccessedAt: null,
    deletedAt: null,
    deleteReason: null,
    history: [
      {
        version: 1,
        action: "create",
        ...snapshot,
        agentId: caller.agentId,
        actor: caller.actor,
        actorType: caller.actorType,
        runtimePath: caller.runtimePath,
        reason: `imported from ${format}`,
        createdAt: nowIso,
      },
    ],
  };
  try {
    return parseInput(ExportRecordSchema, record, "memory");
  } catch (err) {
    return { reason: (err as Error).message };
  }
}
