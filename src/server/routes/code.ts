// The code index (docs/api.md#code-index): reads of the active project's index, and clearing it
// (the owner's credential: src/server/guard.ts). Indexing runs in `signet index`, not here.
import { Elysia } from "elysia";
import {
  CodeBlastRequestSchema,
  CodeBriefingQuerySchema,
  CodeClearRequestSchema,
  CodeConstantsQuerySchema,
  CodeContextRequestSchema,
  CodeSearchRequestSchema,
} from "../../contracts/code";
import { parseInput } from "../../contracts/parse";
import type { DaemonContext } from "../context";

export function codeRoutes(ctx: DaemonContext) {
  const { code } = ctx;
  return new Elysia()
    .post("/api/code/search", ({ body }) => code.search(parseInput(CodeSearchRequestSchema, body, "code search request")))
    .post("/api/code/context", ({ body }) => code.context(parseInput(CodeContextRequestSchema, body, "code context request").symbol))
    .post("/api/code/blast", ({ body }) => code.blast(parseInput(CodeBlastRequestSchema, body, "code blast request")))
    .get("/api/code/status", () => code.status())
    .get("/api/code/doctor", () => code.doctor())
    .get("/api/code/constants", ({ query }) => code.constants(parseInput(CodeConstantsQuerySchema, query, "code constants query")))
    .get("/api/code/briefing", ({ query }) => code.briefing(parseInput(CodeBriefingQuerySchema, query, "code briefing query").compact))
    .post("/api/code/clear", ({ body }) => {
      parseInput(CodeClearRequestSchema, body, "code clear request");
      return code.clear();
    });
}
