// The code index (docs/api.md#code-index): reads of a project's index, and clearing it (the owner's
// credential: src/server/guard.ts). Each request may name its project (`project`: a folder in an
// indexed project); without one the project indexed last answers. Indexing runs in `signet index`.
import { Elysia } from "elysia";
import {
  CodeBlastRequestSchema,
  CodeBriefingQuerySchema,
  CodeClearRequestSchema,
  CodeConstantsQuerySchema,
  CodeContextRequestSchema,
  CodeProjectQuerySchema,
  CodeSearchRequestSchema,
} from "../../contracts/code";
import { parseInput } from "../../contracts/parse";
import type { DaemonContext } from "../context";

export function codeRoutes(ctx: DaemonContext) {
  const { code } = ctx;
  return new Elysia()
    .post("/api/code/search", ({ body }) => code.search(parseInput(CodeSearchRequestSchema, body, "code search request")))
    .post("/api/code/context", ({ body }) => code.context(parseInput(CodeContextRequestSchema, body, "code context request")))
    .post("/api/code/blast", ({ body }) => code.blast(parseInput(CodeBlastRequestSchema, body, "code blast request")))
    .get("/api/code/status", ({ query }) => code.status(parseInput(CodeProjectQuerySchema, query, "code status query").project))
    .get("/api/code/doctor", ({ query }) => code.doctor(parseInput(CodeProjectQuerySchema, query, "code doctor query").project))
    .get("/api/code/constants", ({ query }) => code.constants(parseInput(CodeConstantsQuerySchema, query, "code constants query")))
    .get("/api/code/briefing", ({ query }) => {
      const q = parseInput(CodeBriefingQuerySchema, query, "code briefing query");
      return code.briefing(q.compact, q.project);
    })
    .post("/api/code/clear", ({ body }) => code.clear(parseInput(CodeClearRequestSchema, body, "code clear request").project));
}
