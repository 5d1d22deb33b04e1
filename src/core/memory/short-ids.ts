// Memories by a short id: the first characters of the id, as `signet list` shows them, name a memory
// when no other memory in the caller's scope starts the same way (docs/api.md#short-ids). Each store
// reads the candidates its own way (exact id, or ids in a prefix's range); the rules are here.
import { SignetError, invalidInput, notFound } from "../../contracts/errors";
import type { MemoryLookup, MemoryRow } from "./store";

/** Fewer characters would often be ambiguous: 6 hex digits tell 16.7 million ids apart. */
const MIN_PREFIX = 6;
const FULL_ID_LENGTH = 36;
/** Candidates an ambiguous prefix names in its error; one more is read to know there are more. */
export const SHOWN_CANDIDATES = 5;

/** What to read for a lookup: the memory with that id, or those whose id starts with a prefix. A too short prefix is invalid input. */
export function lookupQuery(lookup: MemoryLookup): { id: string } | { prefix: string } {
  const wanted = lookup.id.trim().toLowerCase();
  if (wanted.length >= FULL_ID_LENGTH || !/^[0-9a-f-]+$/.test(wanted)) return { id: wanted };
  if (!new RegExp(`^[0-9a-f]{${MIN_PREFIX}}`).test(wanted)) {
    throw invalidInput(`memory id ${lookup.id} is too short: give the whole id or at least its first ${MIN_PREFIX} characters`);
  }
  return { prefix: wanted };
}

/**
 * The memory a lookup names, from what its query read: the memory with the id (when in scope), or
 * the one memory in scope whose id starts with the prefix (up to SHOWN_CANDIDATES + 1 of them, in
 * id order). An ambiguous prefix is invalid input; an id nobody in scope has is not found, whoever
 * else may hold it.
 */
export function pickLookedUp(lookup: MemoryLookup, query: { id: string } | { prefix: string }, rows: MemoryRow[]): MemoryRow {
  if ("id" in query) {
    const row = rows[0];
    if (!row || !lookup.agentIds.includes(row.agent_id)) throw notFound(`memory ${lookup.id}`);
    return row;
  }
  if (rows.length === 1) return rows[0]!;
  if (rows.length === 0) throw new SignetError("not_found", `no memory has an id starting with ${lookup.id}`);
  const many = rows.length > SHOWN_CANDIDATES ? `more than ${SHOWN_CANDIDATES}` : String(rows.length);
  const candidates = rows.slice(0, SHOWN_CANDIDATES).map((r) => `${r.id} ${JSON.stringify(preview(r.content))}`);
  throw invalidInput(`memory id ${lookup.id} is ambiguous: ${many} memories start with it (${candidates.join(", ")}); give more characters`);
}

/**
 * Ids hold only [0-9a-f-], all below "g", so the range [prefix, prefix + "g") is exactly the ids
 * starting with it, and the id index answers it.
 */
export function prefixRange(prefix: string): [string, string] {
  return [prefix, `${prefix}g`];
}

function preview(content: string): string {
  const line = content.replace(/\s+/g, " ");
  return line.length > 40 ? `${line.slice(0, 39)}…` : line;
}
