// The document sources contract (docs/api.md#sources), shared by the /api/sources routes, the CLI
// (`signet source`), the MCP tool signet_source_search and recall with `sourceOnly`.
import { z } from "zod";
import { RECALL_STRONG_SCORE } from "./recall";

const SOURCE_DEFAULT_LIMIT = 10;
const SOURCE_MAX_LIMIT = 100;

/** A path on the daemon's machine: absolute, because the daemon does not share the caller's directory. */
export const AbsolutePathSchema = z
  .string()
  .min(1, "cannot be empty")
  .max(4096, "is longer than 4096 characters")
  .refine((p) => p.startsWith("/"), "must be an absolute path")
  .refine((p) => !p.includes("\0"), "must not contain a NUL character");

export const SourceAddRequestSchema = z
  .object({
    path: AbsolutePathSchema,
    /** Which files of a directory to take, relative to it (Bun.Glob syntax, e.g. "**\/*.md"). */
    glob: z.string().trim().min(1, "cannot be empty").max(500, "is longer than 500 characters").optional(),
  })
  .strict();
export type SourceAddRequest = z.output<typeof SourceAddRequestSchema>;

export const SourceSyncRequestSchema = z
  .object({
    /** One source; every source when absent. */
    id: z.number().int().min(1).optional(),
  })
  .strict();

export const SourceIdParamSchema = z.object({
  id: z
    .string()
    .regex(/^[1-9]\d{0,15}$/, "must be a source id (a positive integer)")
    .transform(Number),
});

export const SourceSearchRequestSchema = z
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

/** A search hit (SPEC §5's sourceOnly row): a chunk of a file, its lines 1-based and inclusive. */
export interface SourceChunkResult {
  id: string;
  path: string;
  startLine: number;
  endLine: number;
  content: string;
  score: number;
  /** The section or declaration the chunk belongs to, when its format has one. */
  heading: string | null;
  matchedBy: "hybrid" | "keyword" | "vector";
}

export interface SourceSearchResponse {
  results: SourceChunkResult[];
  meta: {
    method: "hybrid" | "keyword" | "vector";
    tookMs: number;
    candidates: number;
    embedding: "ok" | "unavailable" | "disabled";
    minScore: number;
    belowMinScore: number;
  };
}

export interface SourceSummary {
  id: number;
  path: string;
  kind: "file" | "dir";
  glob: string | null;
  files: number;
  chunks: number;
  /** Chunks with a vector of the current embedding model (the rest are keyword-only until embedded). */
  embedded: number;
  createdAt: string;
  syncedAt: string;
}

export interface SourceListResponse {
  sources: SourceSummary[];
}

/** A file that was not taken, and why (binary, too large, a link out of the source, a named pipe, unreadable, ...). */
export interface SkippedFile {
  path: string;
  reason: string;
}

/** What one add or sync did. */
export interface IngestReport {
  source: SourceSummary;
  /** Files looked at. */
  scanned: number;
  /** Files read and chunked again (new or changed). */
  parsed: number;
  /** Files whose size and mtime, or content hash, were unchanged: not parsed again. */
  unchanged: number;
  /** Files gone from disk (or no longer matching) whose chunks were removed. */
  removed: number;
  /** Chunks written by this run. */
  chunks: number;
  skipped: SkippedFile[];
  tookMs: number;
}

export interface SourceAddResponse extends IngestReport {
  /** False when the path was a source already (then this was a sync of it). */
  created: boolean;
}

export interface SourceSyncResponse {
  reports: IngestReport[];
}

export interface SourceRemoveResponse {
  removed: SourceSummary;
}

/** One line of a streamed add or sync (`accept: application/x-ndjson`): progress, then the result or the error. */
export type SourceStreamLine =
  | { progress: { done: number; total: number; path?: string } }
  | { result: unknown }
  | { error: string; code: string };
