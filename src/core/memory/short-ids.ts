// Memories by a short id: the first characters of the id, as `signet list` shows them, name a memory
// when no other memory in the caller's scope starts the same way (docs/api.md#short-ids).
import { SignetError, invalidInput, notFound } from "../../contracts/errors";
import type { MemoryStore, MemoryRow } from "./store";

/** Fewer characters would often be ambiguous: 6 hex digits tell 16.7 million ids apart. */
const MIN_PREFIX = 6;
const FULL_ID_LENGTH = 36;
/** Candidates an ambiguous prefix names in its error. */
const SHOWN = 5;

/**
 * The memory `id` names among `agentIds`' memories: the memory with that id, or the one memory whose
 * id starts with it. An ambiguous or too short prefix is invalid input; an id nobody in scope has is
 * not found, whoever else may hold it.
 */
export function findById(store: MemoryStore, agentIds: string[], id: string): MemoryRow {
  const wanted = id.trim().toLowerCase();
  if (wanted.length < FULL_ID_LENGTH && /^[0-9a-f-]+$/.test(wanted)) {
    if (!new RegExp(`^[0-9a-f]{${MIN_PREFIX}}`).test(wanted)) {
      throw invalidInput(`memory id ${id} is too short: give the whole id or at least its first ${MIN_PREFIX} characters`);
    }
    const rows = store.withIdPrefix(wanted, agentIds, SHOWN + 1);
    if (rows.length === 1) return rows[0]!;
    if (rows.length === 0) throw new SignetError("not_found", `no memory has an id starting with ${id}`);
    const many = rows.length > SHOWN ? `more than ${SHOWN}` : String(rows.length);
    const candidates = rows.slice(0, SHOWN).map((r) => `${r.id} ${JSON.stringify(preview(r.content))}`);
    throw invalidInput(`memory id ${id} is ambiguous: ${many} memories start with it (${candidates.join(", ")}); give more characters`);
  }
  const row = store.get(wanted);
  if (!row || !agentIds.includes(row.agent_id)) throw notFound(`memory ${id}`);
  return row;
}

function preview(content: string): string {
  const line = content.replace(/\s+/g, " ");
  return line.length > 40 ? `${line.slice(0, 39)}…` : line;
}
