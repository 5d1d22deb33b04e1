// Export, import and backup (docs/api.md#export-import-and-backup): the export file's records, the
// requests and the answers, shared by the routes and `signet export|import|backup`.
import { z } from "zod";
import { AgentIdSchema } from "./agent";
import { answer } from "./answer";
import {
  boolString,
  ContentSchema,
  HintsSchema,
  ImportanceSchema,
  MemoryTypeSchema,
  shortText,
  StructuredSchema,
  TagsSchema,
  TimestampSchema,
  TranscriptSchema,
} from "./memory";
import { operation } from "./operation";
import { AbsolutePathSchema } from "./sources";
import { ROUTES } from "./routes";

/** The export file's format; a newer file is refused by name rather than half understood. */
export const EXPORT_FORMAT_VERSION = 1;
/** Records (or items, or notes) in one import request. */
const IMPORT_BATCH_MAX = 1000;
export const IMPORT_FORMATS = ["signet", "server-memory", "basic-memory"] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

const MemoryIdSchema = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, "must be a memory id (a UUID)");
/** Provenance headers and a memory's source are cut to 100 characters when stored. */
const provenance = z.string().max(100).nullable();
const storedReason = z.string().max(2000).nullable();
const version = z.number().int().min(1);

/** The first line of an export file. */
export const ExportHeaderSchema = z
  .object({
    kind: z.literal("signet-export", { message: 'must be "signet-export": this is not a Signet export file' }),
    version: z
      .number()
      .int()
      .min(1)
      .max(EXPORT_FORMAT_VERSION, `is newer than this signet reads (format version ${EXPORT_FORMAT_VERSION}): import it with a newer signet`),
    exportedAt: TimestampSchema,
    count: z.number().int().min(0),
    /** Whether forgotten memories were exported too (`signet export --forgotten`). */
    forgotten: z.boolean(),
  })
  .strict();
export type ExportHeader = z.output<typeof ExportHeaderSchema>;

/** One version of a memory, exactly as its history holds it (with the runtime path the API leaves out). */
const ExportHistoryEntrySchema = z
  .object({
    version,
    action: z.enum(["create", "modify", "forget", "recover"]),
    content: ContentSchema,
    type: MemoryTypeSchema,
    importance: ImportanceSchema,
    tags: TagsSchema,
    pinned: z.boolean(),
    agentId: AgentIdSchema,
    actor: provenance,
    actorType: provenance,
    runtimePath: provenance,
    reason: storedReason,
    createdAt: TimestampSchema,
  })
  .strict();
export type ExportHistoryEntry = z.output<typeof ExportHistoryEntrySchema>;

/** Every other line of an export file: a whole memory, as the API answers it, with its whole history. */
export const ExportRecordSchema = z
  .object({
    kind: z.literal("memory", { message: 'must be "memory"' }),
    id: MemoryIdSchema,
    content: ContentSchema,
    type: MemoryTypeSchema,
    importance: ImportanceSchema,
    tags: TagsSchema,
    pinned: z.boolean(),
    who: shortText(200).nullable(),
    project: shortText(1000).nullable(),
    agentId: AgentIdSchema,
    source: provenance,
    sessionKey: shortText(500).nullable(),
    hints: HintsSchema,
    transcript: TranscriptSchema.nullable(),
    structured: StructuredSchema.nullable(),
    reviewAfter: TimestampSchema.nullable(),
    createdAt: TimestampSchema,
    updatedAt: TimestampSchema,
    version,
    accessCount: z.number().int().min(0),
    lastAccessedAt: TimestampSchema.nullable(),
    deletedAt: TimestampSchema.nullable(),
    deleteReason: storedReason,
    history: z.array(ExportHistoryEntrySchema).min(1, "needs at least the entry that created the memory"),
  })
  .strict()
  .superRefine((record, ctx) => {
    // A memory's version counts its writes: its history runs up to exactly that version.
    const versions = record.history.map((h) => h.version);
    // An empty history is refused above, naming what it needs.
    if (versions.length === 0) return;
    if (versions.some((v, i) => i > 0 && v <= versions[i - 1]!)) {
      ctx.addIssue({ code: "custom", path: ["history"], message: "versions must increase from one entry to the next" });
    } else if (versions.at(-1) !== record.version) {
      ctx.addIssue({ code: "custom", path: ["history"], message: `ends at version ${versions.at(-1)}, but the memory is at version ${record.version}` });
    }
  });
export type ExportRecord = z.output<typeof ExportRecordSchema>;

/**
 * Why `record` cannot be the memory it says it is, or null. Its history ends in the state it was
 * written to (the same content; forgotten exactly when the last change forgot it), is all its own
 * agent's, and nothing in it is later than `now` (the daemon's clock). Importance is not compared:
 * dreaming decays it without a new version.
 */
export function exportRecordProblem(record: ExportRecord, now: string): string | null {
  const future = (field: string, at: string | null) => (at !== null && at > now ? `${field} ${at} is in the future` : null);
  const last = record.history.at(-1)!;
  const forgotten = record.deletedAt !== null;
  const stranger = record.history.find((h) => h.agentId !== record.agentId);
  return (
    future("createdAt", record.createdAt) ??
    future("updatedAt", record.updatedAt) ??
    future("deletedAt", record.deletedAt) ??
    future("lastAccessedAt", record.lastAccessedAt) ??
    record.history.map((h) => future(`history version ${h.version}: createdAt`, h.createdAt)).find((p) => p !== null) ??
    (last.content !== record.content ? `its content differs from its last history entry's (version ${last.version})` : null) ??
    (forgotten && last.action !== "forget"
      ? `it is forgotten (deletedAt ${record.deletedAt}), but its last history entry (version ${last.version}) is a ${last.action}, not a forget`
      : null) ??
    (!forgotten && last.action === "forget" ? `it is not forgotten (deletedAt is null), but its last history entry (version ${last.version}) forgets it` : null) ??
    (stranger ? `history version ${stranger.version} belongs to agent ${stranger.agentId}, the memory to agent ${record.agentId}` : null)
  );
}

const ExportQuerySchema = z.object({ forgotten: boolString.optional() }).strict();

const graphName = z.string().trim().min(1, "cannot be empty").max(1000);

/** A line of @modelcontextprotocol/server-memory's memory.jsonl (its own fields only; others are ignored). */
export const ServerMemoryItemSchema = z.discriminatedUnion(
  "type",
  [
    z.object({
      type: z.literal("entity"),
      name: graphName,
      entityType: graphName,
      observations: z.array(ContentSchema).max(10_000),
    }),
    z.object({ type: z.literal("relation"), from: graphName, to: graphName, relationType: graphName }),
  ],
  { message: 'must be a server-memory line: {"type":"entity",...} or {"type":"relation",...}' },
);
export type ServerMemoryItem = z.output<typeof ServerMemoryItemSchema>;

/** A note's text at most: a memory holds 100,000 characters, a note may hold many of them. */
export const NOTE_MAX_CHARS = 1_000_000;

/** A basic-memory note, read by the CLI: its path in the notes directory, its text and its modification time. */
const NoteFileSchema = z
  .object({
    path: z.string().min(1).max(4096),
    text: z.string().max(NOTE_MAX_CHARS, `is larger than ${NOTE_MAX_CHARS} characters`),
    modifiedAt: TimestampSchema.optional(),
  })
  .strict();
export type NoteFile = z.output<typeof NoteFileSchema>;

const batch = <T extends z.ZodType>(item: T) =>
  z.array(item).min(1, "is empty").max(IMPORT_BATCH_MAX, `at most ${IMPORT_BATCH_MAX} in one request`);

/** A batch of an export file, or of a foreign format the daemon converts. */
const ImportRequestSchema = z.discriminatedUnion(
  "format",
  [
    z.object({ format: z.literal("signet"), records: batch(ExportRecordSchema) }).strict(),
    // Foreign memories belong to the caller's agent: `agentId`, else the x-signet-agent-id header.
    z.object({ format: z.literal("server-memory"), items: batch(ServerMemoryItemSchema), agentId: AgentIdSchema.optional() }).strict(),
    z.object({ format: z.literal("basic-memory"), notes: batch(NoteFileSchema), agentId: AgentIdSchema.optional() }).strict(),
  ],
  { message: `must name a format: ${IMPORT_FORMATS.join(", ")}` },
);
export type ImportRequest = z.output<typeof ImportRequestSchema>;

const ImportResponseSchema = answer({
  imported: z.number().describe("Memories created"),
  skipped: z.number().describe("Records whose memory is stored already: same id, holding the record's version with its content (or changed here since)"),
  duplicates: z
    .array(answer({ id: z.string(), existingId: z.string() }))
    .describe("Live records whose text a live memory of the same agent and project holds under another id (dedupe)"),
  conflicts: z.array(answer({ id: z.string(), reason: z.string() })).describe("Records whose id is taken by a memory that differs: left as it is, never overwritten"),
  rejected: z
    .array(answer({ source: z.string(), reason: z.string() }))
    .describe("Foreign notes that could not be read as memories, and records dated later than the daemon's clock or whose history does not end in their state"),
});
export type ImportResponse = z.infer<typeof ImportResponseSchema>;

const BackupRequestSchema = z
  .object({
    path: AbsolutePathSchema,
  })
  .strict();

const BackupResponseSchema = answer({
  path: z.string(),
  bytes: z.number(),
  memories: z.number().describe("Memories in the copy, forgotten ones included"),
});
export type BackupResponse = z.infer<typeof BackupResponseSchema>;

/** The owner's operations over every agent's memories and the database file: the admin token (the guard). */
export const TRANSFER_API = {
  /** The export file as a stream: its header line, then one memory a line. */
  export: operation(ROUTES.transfer.export, { input: "export query", query: ExportQuerySchema, response: z.union([ExportHeaderSchema, ExportRecordSchema]) }),
  import: operation(ROUTES.transfer.import, { input: "import request", body: ImportRequestSchema, response: ImportResponseSchema }),
  backup: operation(ROUTES.transfer.backup, { input: "backup request", body: BackupRequestSchema, response: BackupResponseSchema }),
};
