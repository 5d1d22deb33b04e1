// A memory as a line of a `signet export` file (docs/api.md#the-export-file), written by hand so a test
// chooses its id, agent and state: version 1, created once, never read, not forgotten.
import type { z } from "zod";
import type { ExportRecordSchema } from "../../src/contracts/transfer";

export type ExportRecordLine = z.input<typeof ExportRecordSchema>;

export function exportRecord(id: string, content: string, agentId = "default"): ExportRecordLine {
  const at = "2025-03-01T10:00:00.000Z";
  const snapshot = { content, type: "fact", importance: 0.5, tags: [] as string[], pinned: false };
  return {
    kind: "memory",
    id,
    ...snapshot,
    who: agentId,
    project: null,
    agentId,
    source: "api",
    sessionKey: null,
    hints: [],
    transcript: null,
    structured: null,
    reviewAfter: null,
    createdAt: at,
    updatedAt: at,
    version: 1,
    accessCount: 0,
    lastAccessedAt: null,
    deletedAt: null,
    deleteReason: null,
    history: [
      { version: 1, action: "create", ...snapshot, agentId, actor: "api", actorType: null, runtimePath: null, reason: null, createdAt: at },
    ],
  };
}

/** The header line of an export file holding `count` memories. */
export const exportHeader = (count: number, forgotten = false) => ({
  kind: "signet-export",
  version: 1,
  exportedAt: "2025-03-01T10:00:00.000Z",
  count,
  forgotten,
});
