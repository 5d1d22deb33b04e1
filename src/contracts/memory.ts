// Request and response contracts of the memory API: the HTTP routes, MCP tools and CLI commands
// all validate with these schemas, so the surfaces cannot drift apart.
import { z } from "zod";
import { AgentIdSchema } from "./agent";
import { answer } from "./answer";
import { boundedJsonObject } from "./json-bounds";
import { operation } from "./operation";
import { ROUTES } from "./routes";
import { SessionKeySchema } from "./session";

const MAX_CONTENT_CHARS = 100_000;
const MAX_NOTE_CHARS = 8_000;
const MAX_TAGS = 64;
const LIST_DEFAULT_LIMIT = 100;
const LIST_MAX_LIMIT = 1000;
/**
 * `structured` is entity/attribute data, a few levels deep in practice. 32 levels and 64 KiB leave
 * room for any real record while bounding what one memory costs to print: pretty-printing indents
 * each level, so 64 KiB prints as at most about 2 MiB, not the 128 MB that 32 KB 8,000 levels deep made.
 */
const MAX_STRUCTURED_DEPTH = 32;
const MAX_STRUCTURED_BYTES = 64 * 1024;

const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

/** Date rolls 2024-02-30 over to March; a timestamp that names no real day or time is refused instead. */
function isRealCalendarTime(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?/i.exec(value);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth) return false;
  return Number(m[4] ?? 0) <= 23 && Number(m[5] ?? 0) <= 59 && Number(m[6] ?? 0) <= 59;
}

/** An ISO-8601 date or date-time, normalized to UTC with milliseconds (a zone-less time is UTC). */
export const TimestampSchema = z
  .string()
  .trim()
  .regex(ISO_TIMESTAMP, "must be an ISO-8601 date or date-time, e.g. 2026-01-31T12:00:00Z")
  .transform((value, ctx) => {
    if (!isRealCalendarTime(value)) {
      ctx.addIssue({ code: "custom", message: "is not a real date or time (check the month, day and hour)" });
      return z.NEVER;
    }
    const hasTime = /[T ]\d{2}:\d{2}/i.test(value);
    const hasZone = /(Z|[+-]\d{2}:?\d{2})$/i.test(value);
    const date = new Date(hasTime && !hasZone ? `${value.replace(" ", "T")}Z` : value);
    if (Number.isNaN(date.getTime())) {
      ctx.addIssue({ code: "custom", message: "is not a real date" });
      return z.NEVER;
    }
    // Outside these years toISOString writes a signed six-digit year, which neither sorts nor compares
    // with the rest as text (a year-10000 date would pass for the past) and no timestamp field takes back.
    const year = date.getUTCFullYear();
    if (year < 0 || year > 9999) {
      ctx.addIssue({ code: "custom", message: "is outside the years 0000-9999 once in UTC" });
      return z.NEVER;
    }
    return date.toISOString();
  });

const tagString = z
  .string()
  .trim()
  .min(1, "a tag cannot be empty")
  .max(100, "a tag is at most 100 characters")
  .refine((t) => !t.includes(","), "a tag cannot contain a comma");

/** A tag set: an array or a comma-separated string in, a de-duplicated array out. */
export const TagsSchema = z
  .union([z.array(z.string()), z.string()])
  .transform((value) => [...new Set((typeof value === "string" ? value.split(",") : value).map((t) => t.trim()).filter((t) => t.length > 0))])
  .pipe(z.array(tagString).max(MAX_TAGS, `at most ${MAX_TAGS} tags`));

export const MemoryTypeSchema = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[a-z][a-z0-9_-]{0,39}$/, "must be a short lowercase word such as fact, preference, decision, rule, learning, issue, event, note");

export const ContentSchema = z.string().trim().min(1, "cannot be empty").max(MAX_CONTENT_CHARS, `is longer than ${MAX_CONTENT_CHARS} characters`);
export const ImportanceSchema = z.number().min(0, "must be between 0 and 1").max(1, "must be between 0 and 1");
export const shortText = (max: number) => z.string().trim().min(1).max(max);
export const HintsSchema = z.array(shortText(1000)).max(50, "at most 50 hints");
export const TranscriptSchema = z.string().max(1_000_000);
export const StructuredSchema = boundedJsonObject({ maxDepth: MAX_STRUCTURED_DEPTH, maxBytes: MAX_STRUCTURED_BYTES });

export const RememberRequestSchema = z
  .object({
    content: ContentSchema,
    type: MemoryTypeSchema.optional(),
    importance: ImportanceSchema.optional(),
    tags: TagsSchema.optional(),
    pinned: z.boolean().optional(),
    who: shortText(200).optional(),
    project: shortText(1000).optional(),
    agentId: AgentIdSchema.optional(),
    sessionKey: SessionKeySchema.optional(),
    hints: HintsSchema.optional(),
    transcript: TranscriptSchema.optional(),
    structured: StructuredSchema.optional(),
    reviewAfter: TimestampSchema.optional(),
    createdAt: TimestampSchema.optional(),
  })
  .strict();
export type RememberRequest = z.output<typeof RememberRequestSchema>;

const NoteRequestSchema = z
  .object({
    content: z.string().trim().min(1, "cannot be empty").max(MAX_NOTE_CHARS, `is longer than ${MAX_NOTE_CHARS} characters`),
    title: shortText(200).optional(),
    tags: TagsSchema.optional(),
    project: shortText(1000).optional(),
    agentId: AgentIdSchema.optional(),
  })
  .strict();
export type NoteRequest = z.output<typeof NoteRequestSchema>;

const reason = z.string().trim().min(1, "is required: say why").max(2000);

const ModifyRequestSchema = z
  .object({
    reason,
    content: ContentSchema.optional(),
    type: MemoryTypeSchema.optional(),
    importance: ImportanceSchema.optional(),
    tags: TagsSchema.optional(),
    pinned: z.boolean().optional(),
    ifVersion: z.number().int().min(1).optional(),
    agentId: AgentIdSchema.optional(),
  })
  .strict()
  .refine((m) => m.content !== undefined || m.type !== undefined || m.importance !== undefined || m.tags !== undefined || m.pinned !== undefined, {
    message: "nothing to change: give at least one of content, type, importance, tags, pinned",
  });
export type ModifyRequest = z.output<typeof ModifyRequestSchema>;

const ForgetRequestSchema = z.object({ reason, force: z.boolean().optional(), agentId: AgentIdSchema.optional() }).strict();
export type ForgetRequest = z.output<typeof ForgetRequestSchema>;

const RecoverRequestSchema = z.object({ reason: reason.optional(), agentId: AgentIdSchema.optional() }).strict().default({});
export type RecoverRequest = z.output<typeof RecoverRequestSchema>;

export const boolString = z.enum(["true", "false", "1", "0"]).transform((v) => v === "true" || v === "1");
/** A whole number in a query string. */
export const intString = (min: number, max: number) =>
  z
    .string()
    .regex(/^-?\d+$/, "must be a whole number")
    .transform(Number)
    .pipe(z.number().int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));

/** GET /api/memories query parameters (strings, as they arrive). */
export const ListQuerySchema = z
  .object({
    limit: intString(1, LIST_MAX_LIMIT).default(LIST_DEFAULT_LIMIT),
    offset: intString(0, Number.MAX_SAFE_INTEGER).default(0),
    type: MemoryTypeSchema.optional(),
    tags: TagsSchema.optional(),
    project: z.string().optional(),
    who: z.string().optional(),
    since: TimestampSchema.optional(),
    until: TimestampSchema.optional(),
    pinned: boolString.optional(),
    /** true: only forgotten memories, most recently forgotten first (docs/api.md#get-apimemories). */
    forgotten: boolString.optional(),
    agent_id: AgentIdSchema.optional(),
  })
  .strict();
export type ListQuery = z.output<typeof ListQuerySchema>;

const nullableString = z.string().nullable();

const HistoryEntrySchema = answer({
  version: z.number(),
  action: z.enum(["create", "modify", "forget", "recover"]),
  content: z.string(),
  type: z.string(),
  importance: z.number(),
  tags: z.array(z.string()),
  pinned: z.boolean(),
  agentId: z.string(),
  actor: nullableString,
  actorType: nullableString,
  reason: nullableString,
  createdAt: z.string(),
});
export type HistoryEntry = z.infer<typeof HistoryEntrySchema>;

export const MemorySchema = answer({
  id: z.string(),
  content: z.string(),
  type: z.string(),
  importance: z.number(),
  tags: z.array(z.string()),
  pinned: z.boolean(),
  who: nullableString,
  project: nullableString,
  agentId: z.string(),
  source: nullableString,
  sessionKey: nullableString,
  hints: z.array(z.string()),
  transcript: nullableString,
  structured: z.record(z.string(), z.unknown()).nullable(),
  reviewAfter: nullableString,
  createdAt: z.string(),
  updatedAt: z.string(),
  version: z.number(),
  accessCount: z.number(),
  lastAccessedAt: nullableString,
  deletedAt: nullableString.describe("Set while the memory is forgotten"),
  deleteReason: nullableString,
});
export type Memory = z.infer<typeof MemorySchema>;

/**
 * A remember answer. With `deduped: true` the stored memory comes back unchanged, and `dedupe.ignored`
 * names the fields the request sent with other values than it holds: none of them was applied
 * (docs/api.md#dedupe).
 */
const RememberResponseSchema = answer({ ...MemorySchema.shape, deduped: z.boolean().describe("True when the same content was already stored: this is the existing memory"),
  dedupe: answer({
    ignored: z.array(z.string()).describe("Fields sent with other values than the stored memory has; none was applied"),
  }).optional(),
});
export type RememberResponse = z.infer<typeof RememberResponseSchema>;

const MemoryWithHistorySchema = answer({ ...MemorySchema.shape, history: z.array(HistoryEntrySchema).describe("Every version, oldest first"),
});
export type MemoryWithHistory = z.infer<typeof MemoryWithHistorySchema>;

const ListResponseSchema = answer({
  memories: z.array(MemorySchema).describe("Newest first"),
  limit: z.number(),
  offset: z.number(),
  hasMore: z.boolean().describe("More memories follow: ask again with offset + memories.length"),
});
export type ListResponse = z.infer<typeof ListResponseSchema>;

const HistoryResponseSchema = answer({ memoryId: z.string(), history: z.array(HistoryEntrySchema) });
export type HistoryResponse = z.infer<typeof HistoryResponseSchema>;

/** The memory API (docs/api.md#memories). Writing a memory answers 201, or 200 with the one already stored. */
export const MEMORY_API = {
  remember: operation(ROUTES.memory.remember, { input: "remember request", body: RememberRequestSchema, response: RememberResponseSchema }),
  note: operation(ROUTES.memory.note, { input: "note request", body: NoteRequestSchema, response: RememberResponseSchema }),
  list: operation(ROUTES.memory.list, { input: "list query", query: ListQuerySchema, response: ListResponseSchema }),
  get: operation(ROUTES.memory.get, { response: MemoryWithHistorySchema }),
  history: operation(ROUTES.memory.history, { response: HistoryResponseSchema }),
  modify: operation(ROUTES.memory.modify, { input: "modify request", body: ModifyRequestSchema, response: MemorySchema }),
  forget: operation(ROUTES.memory.forget, { input: "forget request", body: ForgetRequestSchema, response: MemorySchema }),
  recover: operation(ROUTES.memory.recover, { input: "recover request", body: RecoverRequestSchema, response: MemorySchema }),
};
