// `POST /api/import` (docs/api.md#post-apiimport): one batch of an export file, or of a foreign
// format made into export records first, written memory by memory. The records are written together
// (in SQLite one group commit, each record its own savepoint): whatever happens to one, the others of
// the batch keep their outcome.
import { exportRecordProblem, type ExportRecord, type ImportFormat, type ImportRequest, type ImportResponse } from "../../contracts/transfer";
import type { Caller, MemoryService } from "../memory/service";
import { basicMemoryMemories } from "./basic-memory";
import { foreignRecord, type ForeignMemory } from "./foreign";
import { serverMemoryMemories } from "./server-memory";

/** Writes a batch; foreign memories belong to `caller`'s agent, export records to their own. */
export async function importBatch(memory: MemoryService, caller: Caller, req: ImportRequest, now: Date = new Date()): Promise<ImportResponse> {
  const answer: ImportResponse = { imported: 0, skipped: 0, duplicates: [], conflicts: [], rejected: [] };
  const nowIso = now.toISOString();
  const records: ExportRecord[] = [];
  /** Foreign memories read from `source`, made into records created at `createdAt`. */
  const collect = (format: Exclude<ImportFormat, "signet">, source: string, read: () => ForeignMemory[], createdAt = nowIso) => {
    let memories: ForeignMemory[];
    try {
      memories = read();
    } catch (err) {
      answer.rejected.push({ source, reason: (err as Error).message });
      return;
    }
    for (const m of memories) {
      const record = foreignRecord(format, caller, m, createdAt, nowIso);
      if ("reason" in record) answer.rejected.push({ source, reason: record.reason });
      else records.push(record);
    }
  };
  if (req.format === "signet") {
    // A record whose history is not its own would be stored as a memory no change of the daemon's made.
    for (const record of req.records) {
      const problem = exportRecordProblem(record, nowIso);
      if (problem === null) records.push(record);
      else answer.rejected.push({ source: `memory ${record.id}`, reason: problem });
    }
  } else if (req.format === "server-memory") {
    for (const item of req.items) {
      const source = item.type === "entity" ? `entity ${item.name}` : `relation ${item.from} ${item.relationType} ${item.to}`;
      collect(req.format, source, () => serverMemoryMemories(item));
    }
  } else {
    // A note's memories were learned when it was last written, as far as anyone can tell.
    for (const note of req.notes) {
      const learned = note.modifiedAt !== undefined && note.modifiedAt < nowIso ? note.modifiedAt : nowIso;
      collect(req.format, note.path, () => basicMemoryMemories(note), learned);
    }
  }
  const results = await Promise.allSettled(records.map((record) => memory.restore(record)));
  for (const [i, settled] of results.entries()) {
    const record = records[i]!;
    if (settled.status === "rejected") {
      answer.rejected.push({ source: `memory ${record.id}`, reason: (settled.reason as Error).message });
      continue;
    }
    const result = settled.value;
    if (result.outcome === "imported") answer.imported++;
    else if (result.outcome === "skipped") answer.skipped++;
    else if (result.outcome === "duplicate") answer.duplicates.push({ id: record.id, existingId: result.existingId });
    else answer.conflicts.push({ id: record.id, reason: result.reason });
  }
  return answer;
}
