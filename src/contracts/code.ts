// Contracts of the code index (docs/api.md#code-index): its operations, shared by the routes, the
// signet_code_* tools and `signet code`, with their requests and answers.
import { z } from "zod";
import { answer } from "./answer";
import { boolString, intString } from "./memory";
import { operation } from "./operation";
import { ROUTES } from "./routes";
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

/** The status and doctor queries. */
const CodeProjectQuerySchema = z.object({ project }).strict();

/** A code search. */
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

/** A symbol's context. */
const CodeContextRequestSchema = z.object({ symbol, project }).strict();
export type CodeContextRequest = z.output<typeof CodeContextRequestSchema>;

const BLAST_DIRECTIONS = ["backward", "forward", "both"] as const;

/** A symbol's blast radius. */
export const CodeBlastRequestSchema = z
  .object({
    symbol,
    depth: z.number().int().min(1, "must be at least 1").max(BLAST_MAX_DEPTH, `must be at most ${BLAST_MAX_DEPTH}`).default(BLAST_DEFAULT_DEPTH),
    direction: z.enum(BLAST_DIRECTIONS, { error: `must be one of ${BLAST_DIRECTIONS.join(", ")}` }).default("backward"),
    project,
  })
  .strict();
export type CodeBlastRequest = z.output<typeof CodeBlastRequestSchema>;

/** The constants query (strings, as they arrive). */
const CodeConstantsQuerySchema = z
  .object({
    limit: intString(1, CONSTANTS_MAX_LIMIT).default(CONSTANTS_DEFAULT_LIMIT),
    /** Only literals found in at least this many files (default 2: shared). */
    min_files: intString(2, 1000).default(2),
    project,
  })
  .strict();
export type CodeConstantsQuery = z.output<typeof CodeConstantsQuerySchema>;

/** The briefing query. */
const CodeBriefingQuerySchema = z.object({ compact: boolString.default(false), project }).strict();

/** Clearing an index: refused unless confirm is true. */
const CodeClearRequestSchema = z
  .object({
    confirm: z.literal(true, {
      error: "must be true: clearing deletes the project's code index (graphiq.db and manifest.json), with no backup",
    }),
    project,
  })
  .strict();

// ---- Answers ----

const location = {
  path: z.string().describe("The file, relative to the project's folder"),
  startLine: z.number(),
  endLine: z.number(),
};

const symbolRef = {
  id: z.number(),
  name: z.string(),
  kind: z.string(),
  container: z.string().nullable(),
  signature: z.string(),
  ...location,
};
const CodeSymbolRefSchema = answer(symbolRef);
export type CodeSymbolRef = z.infer<typeof CodeSymbolRefSchema>;

const CodeSearchHitSchema = answer({
  ...symbolRef,
  parts: z.array(z.string()).describe("The name's words (camelCase and snake_case split)"),
  exported: z.boolean(),
  snippet: z.string(),
  score: z.number(),
  debug: answer({
    coverage: z.number(),
    bm25: z.number(),
    nameMatch: z.number(),
    kindWeight: z.number(),
    testFile: z.number(),
    exported: z.number(),
  })
    .optional()
    .describe("The score's parts, when asked for"),
});
export type CodeSearchHit = z.infer<typeof CodeSearchHitSchema>;

const CodeSearchResponseSchema = answer({
  project: z.string(),
  query: z.string(),
  hits: z.array(CodeSearchHitSchema),
  tookMs: z.number(),
});
export type CodeSearchResponse = z.infer<typeof CodeSearchResponseSchema>;

/** A use of a symbol, or a symbol used: where, by or of what, and whether the name had other candidates. */
const CodeEdgeSchema = answer({
  symbol: CodeSymbolRefSchema.nullable(),
  path: z.string().describe("Where the reference is written"),
  line: z.number(),
  kind: z.enum(["call", "ref"]),
  ambiguous: z.boolean(),
});
export type CodeEdge = z.infer<typeof CodeEdgeSchema>;

const CodeImportSchema = answer({
  source: z.string(),
  name: z.string(),
  alias: z.string(),
  line: z.number(),
});
export type CodeImport = z.infer<typeof CodeImportSchema>;

const candidates = z
  .array(CodeSymbolRefSchema)
  .optional()
  .describe("Set when the name matched none or more than one symbol: pick one and ask with `path:name` or `Container.name`");

const CodeContextResponseSchema = answer({
  project: z.string(),
  symbol: z.string(),
  candidates,
  definition: answer({ ...symbolRef, doc: z.string(), exported: z.boolean(), source: z.string(), stale: z.boolean() }).optional(),
  container: CodeSymbolRefSchema.nullable().optional(),
  callers: z.array(CodeEdgeSchema).optional(),
  callees: z.array(CodeEdgeSchema).optional(),
  imports: z.array(CodeImportSchema).optional(),
});
export type CodeContextResponse = z.infer<typeof CodeContextResponseSchema>;

const CodeBlastNodeSchema = answer({
  ...symbolRef,
  depth: z.number(),
  direction: z.enum(["backward", "forward"]),
  via: z.number().describe("The symbol one step nearer the start that reached this one"),
});
export type CodeBlastNode = z.infer<typeof CodeBlastNodeSchema>;

const CodeBlastResponseSchema = answer({
  project: z.string(),
  symbol: z.string(),
  candidates,
  root: CodeSymbolRefSchema.optional(),
  depth: z.number(),
  direction: z.enum(BLAST_DIRECTIONS),
  nodes: z.array(CodeBlastNodeSchema),
  files: z.array(z.string()).describe("Files the reached symbols live in"),
  ambiguousSkipped: z.number().describe("Edges not followed because their name had more than one candidate"),
  tookMs: z.number(),
});
export type CodeBlastResponse = z.infer<typeof CodeBlastResponseSchema>;

const CodeLastRunSchema = answer({
  startedAt: z.string(),
  files: z.number(),
  parsed: z.number(),
  unchanged: z.number(),
  removed: z.number(),
  failed: z.array(answer({ path: z.string(), reason: z.string() })),
  symbols: z.number(),
  edges: z.number(),
  tookMs: z.number(),
});
export type CodeLastRun = z.infer<typeof CodeLastRunSchema>;

const CodeTotalsSchema = answer({ files: z.number(), symbols: z.number(), edges: z.number(), imports: z.number(), literals: z.number() });

const CodeStatusResponseSchema = answer({
  project: z.string(),
  indexPath: z.string(),
  languages: z.array(answer({ language: z.string(), files: z.number(), symbols: z.number() })),
  totals: CodeTotalsSchema,
  lastRun: CodeLastRunSchema.nullable(),
  stale: answer({ changed: z.array(z.string()), added: z.array(z.string()), removed: z.array(z.string()) }).describe(
    "Files whose content differs from the index, or that are new or gone since the last run",
  ),
});
export type CodeStatusResponse = z.infer<typeof CodeStatusResponseSchema>;

const CodeProblemSchema = answer({ problem: z.string(), fix: z.string() });
export type CodeProblem = z.infer<typeof CodeProblemSchema>;

const CodeDoctorResponseSchema = answer({
  project: z.string(),
  ok: z.boolean(),
  checks: z.array(answer({ name: z.string(), ok: z.boolean(), detail: z.string() })),
  problems: z.array(CodeProblemSchema),
});
export type CodeDoctorResponse = z.infer<typeof CodeDoctorResponseSchema>;

const CodeConstantSchema = answer({
  kind: z.enum(["string", "number"]),
  value: z.string(),
  files: z.number(),
  occurrences: z.number(),
  locations: z.array(answer({ path: z.string(), line: z.number(), symbol: z.string().nullable() })).describe("Up to 10 places it occurs"),
});
export type CodeConstant = z.infer<typeof CodeConstantSchema>;

const CodeConstantsResponseSchema = answer({ project: z.string(), constants: z.array(CodeConstantSchema) });
export type CodeConstantsResponse = z.infer<typeof CodeConstantsResponseSchema>;

const CodeClearResponseSchema = answer({ project: z.string(), cleared: z.literal(true) });
export type CodeClearResponse = z.infer<typeof CodeClearResponseSchema>;

const CodeBriefingResponseSchema = answer({
  project: z.string(),
  compact: z.boolean(),
  totals: CodeTotalsSchema,
  subsystems: z.array(
    answer({
      folder: z.string(),
      files: z.number(),
      symbols: z.number(),
      languages: z.array(z.string()),
      links: z.array(answer({ to: z.string(), edges: z.number() })),
    }),
  ),
  publicApi: z.array(answer({ ...symbolRef, dependents: z.number() })),
  hubs: z.array(answer({ ...symbolRef, incoming: z.number(), outgoing: z.number() })),
});
export type CodeBriefingResponse = z.infer<typeof CodeBriefingResponseSchema>;

/**
 * The code index (docs/api.md#code-index). Each operation may name its project; reads need `recall`.
 * Clearing deletes the project's index: `sources-manage` and the owner's admin token.
 */
export const CODE_API = {
  search: operation(ROUTES.code.search, { input: "code search request", body: CodeSearchRequestSchema, response: CodeSearchResponseSchema }),
  context: operation(ROUTES.code.context, { input: "code context request", body: CodeContextRequestSchema, response: CodeContextResponseSchema }),
  blast: operation(ROUTES.code.blast, { input: "code blast request", body: CodeBlastRequestSchema, response: CodeBlastResponseSchema }),
  status: operation(ROUTES.code.status, { input: "code status query", query: CodeProjectQuerySchema, response: CodeStatusResponseSchema }),
  doctor: operation(ROUTES.code.doctor, { input: "code doctor query", query: CodeProjectQuerySchema, response: CodeDoctorResponseSchema }),
  constants: operation(ROUTES.code.constants, { input: "code constants query", query: CodeConstantsQuerySchema, response: CodeConstantsResponseSchema }),
  briefing: operation(ROUTES.code.briefing, { input: "code briefing query", query: CodeBriefingQuerySchema, response: CodeBriefingResponseSchema }),
  clear: operation(ROUTES.code.clear, { input: "code clear request", body: CodeClearRequestSchema, response: CodeClearResponseSchema }),
};
