// Contracts of the code index (docs/api.md#code-index): the requests of /api/code/*, shared by the
// route, the signet_code_* tools and `signet code`, and the answers.
import { z } from "zod";
import { boolString, intString } from "./memory";
import { AbsolutePathSchema } from "./sources";

const CODE_SEARCH_DEFAULT_TOP = 10;
const CODE_SEARCH_MAX_TOP = 100;
const BLAST_DEFAULT_DEPTH = 2;
const BLAST_MAX_DEPTH = 10;
const CONSTANTS_DEFAULT_LIMIT = 50;
const CONSTANTS_MAX_LIMIT = 500;
export const NO_PROJECT_MESSAGE = "no project indexed: run `signet index <path>`";

const symbol = z.string().trim().min(1, "cannot be empty").max(300, "is longer than 300 characters");

/**
 * The folder whose project answers (docs/code.md#which-project-answers): an indexed project or a
 * folder inside one. Omitted: the project indexed last.
 */
const project = AbsolutePathSchema.optional();

/** GET /api/code/status and /api/code/doctor query parameters. */
export const CodeProjectQuerySchema = z.object({ project }).strict();

/** POST /api/code/search */
export const CodeSearchRequestSchema = z
  .object({
    query: z.string().trim().min(1, "cannot be empty").max(500, "is longer than 500 characters"),
    top: z.number().int().min(1, "must be at least 1").max(CODE_SEARCH_MAX_TOP, `must be at most ${CODE_SEARCH_MAX_TOP}`).default(CODE_SEARCH_DEFAULT_TOP),
    file: z.string().max(1000, "is longer than 1000 characters").optional(),
    debug: z.boolean().default(false),
    project,
  })
  .strict();
export type CodeSearchRequest = z.output<typeof CodeSearchRequestSchema>;

/** POST /api/code/context */
export const CodeContextRequestSchema = z.object({ symbol, project }).strict();
export type CodeContextRequest = z.output<typeof CodeContextRequestSchema>;

const BLAST_DIRECTIONS = ["backward", "forward", "both"] as const;
type BlastDirection = (typeof BLAST_DIRECTIONS)[number];

/** POST /api/code/blast */
export const CodeBlastRequestSchema = z
  .object({
    symbol,
    depth: z.number().int().min(1, "must be at least 1").max(BLAST_MAX_DEPTH, `must be at most ${BLAST_MAX_DEPTH}`).default(BLAST_DEFAULT_DEPTH),
    direction: z.enum(BLAST_DIRECTIONS, { error: `must be one of ${BLAST_DIRECTIONS.join(", ")}` }).default("backward"),
    project,
  })
  .strict();
export type CodeBlastRequest = z.output<typeof CodeBlastRequestSchema>;

/** GET /api/code/constants query parameters (strings, as they arrive). */
export const CodeConstantsQuerySchema = z
  .object({
    limit: intString(1, CONSTANTS_MAX_LIMIT).default(CONSTANTS_DEFAULT_LIMIT),
    /** Only literals found in at least this many files (default 2: shared). */
    min_files: intString(2, 1000).default(2),
    project,
  })
  .strict();
export type CodeConstantsQuery = z.output<typeof CodeConstantsQuerySchema>;

/** GET /api/code/briefing query parameters. */
export const CodeBriefingQuerySchema = z.object({ compact: boolString.default(false), project }).strict();

/** POST /api/code/clear: refused unless confirm is true. */
export const CodeClearRequestSchema = z
  .object({
    confirm: z.literal(true, {
      error: "must be true: clearing deletes the project's code index (graphiq.db and manifest.json), with no backup",
    }),
    project,
  })
  .strict();

// ---- Answers ----
// Type aliases, not interfaces: the MCP tools hand them on as structuredContent, an open object.

type CodeLocation = {
  path: string;
  startLine: number;
  endLine: number;
};

export type CodeSymbolRef = CodeLocation & {
  id: number;
  name: string;
  kind: string;
  container: string | null;
  signature: string;
};

export type CodeSearchHit = CodeSymbolRef & {
  /** The name's words (camelCase and snake_case split). */
  parts: string[];
  exported: boolean;
  snippet: string;
  score: number;
  debug?: { coverage: number; bm25: number; nameMatch: number; kindWeight: number; testFile: number; exported: number };
};

export type CodeSearchResponse = {
  project: string;
  query: string;
  hits: CodeSearchHit[];
  tookMs: number;
};

/** A use of a symbol, or a symbol used: where, by or of what, and whether the name had other candidates. */
export type CodeEdge = {
  symbol: CodeSymbolRef | null;
  /** Where the reference is written. */
  path: string;
  line: number;
  kind: "call" | "ref";
  ambiguous: boolean;
};

export type CodeImport = {
  source: string;
  name: string;
  alias: string;
  line: number;
};

export type CodeContextResponse = {
  project: string;
  symbol: string;
  /** Set when the name matched more than one symbol: pick one and ask with `path:name` or `Container.name`. */
  candidates?: CodeSymbolRef[];
  definition?: CodeSymbolRef & { doc: string; exported: boolean; source: string; stale: boolean };
  container?: CodeSymbolRef | null;
  callers?: CodeEdge[];
  callees?: CodeEdge[];
  imports?: CodeImport[];
};

export type CodeBlastNode = CodeSymbolRef & {
  depth: number;
  direction: "backward" | "forward";
  /** The symbol one step nearer the start that reached this one. */
  via: number;
};

export type CodeBlastResponse = {
  project: string;
  symbol: string;
  candidates?: CodeSymbolRef[];
  root?: CodeSymbolRef;
  depth: number;
  direction: BlastDirection;
  nodes: CodeBlastNode[];
  /** Files the reached symbols live in. */
  files: string[];
  /** Edges not followed because their name had more than one candidate. */
  ambiguousSkipped: number;
  tookMs: number;
};

export type CodeLastRun = {
  startedAt: string;
  files: number;
  parsed: number;
  unchanged: number;
  removed: number;
  failed: { path: string; reason: string }[];
  symbols: number;
  edges: number;
  tookMs: number;
};

export type CodeStatusResponse = {
  project: string;
  indexPath: string;
  languages: { language: string; files: number; symbols: number }[];
  totals: { files: number; symbols: number; edges: number; imports: number; literals: number };
  lastRun: CodeLastRun | null;
  /** Files whose content differs from the index, or that are new or gone since the last run. */
  stale: { changed: string[]; added: string[]; removed: string[] };
};

export type CodeProblem = {
  problem: string;
  fix: string;
};

export type CodeDoctorResponse = {
  project: string;
  ok: boolean;
  checks: { name: string; ok: boolean; detail: string }[];
  problems: CodeProblem[];
};

export type CodeConstant = {
  kind: "string" | "number";
  value: string;
  files: number;
  occurrences: number;
  /** Up to 10 places it occurs. */
  locations: { path: string; line: number; symbol: string | null }[];
};

export type CodeConstantsResponse = {
  project: string;
  constants: CodeConstant[];
};

export type CodeClearResponse = {
  project: string;
  cleared: true;
};

export type CodeBriefingResponse = {
  project: string;
  compact: boolean;
  totals: CodeStatusResponse["totals"];
  subsystems: { folder: string; files: number; symbols: number; languages: string[]; links: { to: string; edges: number }[] }[];
  publicApi: (CodeSymbolRef & { dependents: number })[];
  hubs: (CodeSymbolRef & { incoming: number; outgoing: number })[];
};
