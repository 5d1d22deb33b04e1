// The document sources contract (docs/api.md#sources): its operations, shared by the routes, the CLI
// (`signet source`), the MCP tool signet_source_search and recall with `sourceOnly`.
import { z } from "zod";
import { answer } from "./answer";
import { operation } from "./operation";
import { ROUTES } from "./routes";
import { RECALL_STRONG_SCORE } from "./scores";

const SOURCE_DEFAULT_LIMIT = 10;
const SOURCE_MAX_LIMIT = 100;

/** A path on the daemon's machine: absolute, because the daemon does not share the caller's directory. */
export const AbsolutePathSchema = z
  .string()
  .min(1, "cannot be empty")
  .max(4096, "is longer than 4096 characters")
  .refine((p) => p.startsWith("/"), "must be an absolute path")
  .refine((p) => !p.includes("\0"), "must not contain a NUL character");

const SourceAddRequestSchema = z
  .object({
    path: AbsolutePathSchema,
    /** Which files of a directory to take, relative to it (Bun.Glob syntax, e.g. "**\/*.md"). */
    glob: z.string().trim().min(1, "cannot be empty").max(500, "is longer than 500 characters").optional(),
  })
  .strict();
export type SourceAddRequest = z.output<typeof SourceAddRequestSchema>;

const SourceSyncRequestSchema = z
  .object({
    /** One source; every source when absent. */
    id: z.number().int().min(1).optional(),
  })
  .strict()
  .default({});

export const SourceIdParamSchema = z.object({
  id: z
    .string()
    .regex(/^[1-9]\d{0,15}$/, "must be a source id (a positive integer)")
    .transform(Number),
});

const SourceSearchRequestSchema = z
  .object({
    query: z.string().trim().min(1, "cannot be empty").max(4000, "is longer than 4000 characters"),
    limit: z.number().int().min(1).max(SOURCE_MAX_LIMIT, `must be at most ${SOURCE_MAX_LIMIT}`).default(SOURCE_DEFAULT_LIMIT),
    /** Only chunks of files whose absolute path contains this text (a directory, a file name, "docs/"). */
    path: z.string().min(1, "cannot be empty").max(4096).optional(),
    /** Chunks scoring under this are not returned (the same meaning as recall's: docs/api.md#scores). */
    minScore: z.number().min(0).max(1).default(RECALL_STRONG_SCORE),
  })
  .strict();
export type SourceSearchRequest = z.output<typeof SourceSearchRequestSchema>;

export type SourceFormat = "markdown" | "text" | "code" | "pdf";

const matchedBy = z.enum(["hybrid", "keyword", "vector"]);

/** A search hit (SPEC §5's sourceOnly row): a chunk of a file, its lines 1-based and inclusive. */
const SourceChunkResultSchema = answer({
  id: z.string(),
  path: z.string().describe("Absolute path of the file"),
  startLine: z.number().describe("First line of the chunk (1-based)"),
  endLine: z.number().describe("Last line of the chunk (inclusive)"),
  content: z.string(),
  score: z.number(),
  heading: z.string().nullable().describe("The section or declaration the chunk belongs to, when its format has one"),
  matchedBy,
});
export type SourceChunkResult = z.infer<typeof SourceChunkResultSchema>;

const SourceSearchResponseSchema = answer({
  results: z.array(SourceChunkResultSchema).describe("Chunks, best first"),
  meta: answer({
    method: matchedBy,
    tookMs: z.number(),
    candidates: z.number(),
    embedding: z.enum(["ok", "unavailable", "disabled"]),
    minScore: z.number(),
    belowMinScore: z.number(),
  }),
});
export type SourceSearchResponse = z.infer<typeof SourceSearchResponseSchema>;

/** Recall with `sourceOnly`: the search's chunks in recall's envelope, never mixed with memories. */
export const SourceRecallResponseSchema = answer({
  ...SourceSearchResponseSchema.shape,
  supporting: z.array(z.never()).describe("Always empty: chunks have no session context"),
});
export type SourceRecallResponse = z.infer<typeof SourceRecallResponseSchema>;

const SourceSummarySchema = answer({
  id: z.number(),
  path: z.string(),
  kind: z.enum(["file", "dir"]),
  glob: z.string().nullable(),
  files: z.number(),
  chunks: z.number(),
  embedded: z.number().describe("Chunks with a vector of the current embedding model (the rest are keyword-only until embedded)"),
  createdAt: z.string(),
  syncedAt: z.string(),
});
export type SourceSummary = z.infer<typeof SourceSummarySchema>;

const SourceListResponseSchema = answer({ sources: z.array(SourceSummarySchema) });

/** A file that was not taken, and why (binary, too large, a link out of the source, a named pipe, unreadable, ...). */
const SkippedFileSchema = answer({ path: z.string(), reason: z.string() });
export type SkippedFile = z.infer<typeof SkippedFileSchema>;

/** What one add or sync did. */
const IngestReportSchema = answer({
  source: SourceSummarySchema,
  scanned: z.number().describe("Files looked at"),
  parsed: z.number().describe("Files read and chunked again (new or changed)"),
  unchanged: z.number().describe("Files whose size and mtime, or content hash, were unchanged: not parsed again"),
  removed: z.number().describe("Files gone from disk (or no longer matching) whose chunks were removed"),
  chunks: z.number().describe("Chunks written by this run"),
  skipped: z.array(SkippedFileSchema),
  tookMs: z.number(),
});
export type IngestReport = z.infer<typeof IngestReportSchema>;

const SourceAddResponseSchema = answer({ ...IngestReportSchema.shape, created: z.boolean().describe("False when the path was a source already (then this was a sync of it)"),
});
export type SourceAddResponse = z.infer<typeof SourceAddResponseSchema>;

const SourceSyncResponseSchema = answer({ reports: z.array(IngestReportSchema) });

const SourceRemoveResponseSchema = answer({ removed: SourceSummarySchema });

/** One line of a streamed add or sync (`accept: application/x-ndjson`): progress, then the result or the error. */
export type SourceStreamLine =
  | { progress: { done: number; total: number; path?: string } }
  | { result: unknown }
  | { error: string; code: string };

/**
 * Document sources (docs/api.md#sources). Adding, syncing and removing make the daemon read or drop
 * files as the owner: `sources-manage` and the owner's admin token. An add or sync answers its JSON,
 * or, asked for `application/x-ndjson`, its progress lines then `{result}` (SourceStreamLine).
 */
export const SOURCES_API = {
  list: operation(ROUTES.sources.list, { response: SourceListResponseSchema }),
  /** Answers 201 with a new source, 200 when the path was one already. */
  add: operation(ROUTES.sources.add, { input: "source add request", body: SourceAddRequestSchema, response: SourceAddResponseSchema }),
  sync: operation(ROUTES.sources.sync, { input: "source sync request", body: SourceSyncRequestSchema, response: SourceSyncResponseSchema }),
  remove: operation(ROUTES.sources.remove, { response: SourceRemoveResponseSchema }),
  search: operation(ROUTES.sources.search, { input: "source search request", body: SourceSearchRequestSchema, response: SourceSearchResponseSchema }),
};
