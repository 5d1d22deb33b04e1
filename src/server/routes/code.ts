// The code index (docs/api.md#code-index): the operations of contracts/code.ts, reads of a project's
// index and clearing it. Each request may name its project (`project`: a folder in an indexed
// project); without one the project indexed last answers. Indexing runs in `signet index`.
import { CODE_API } from "../../contracts/code";
import type { DaemonContext } from "../context";
import { routes, serve } from "../serve";

export function codeRoutes(ctx: DaemonContext) {
  const { code } = ctx;
  return routes(
    serve(CODE_API.search, ({ body }) => code.search(body)),
    serve(CODE_API.context, ({ body }) => code.context(body)),
    serve(CODE_API.blast, ({ body }) => code.blast(body)),
    serve(CODE_API.status, ({ query }) => code.status(query.project)),
    serve(CODE_API.doctor, ({ query }) => code.doctor(query.project)),
    serve(CODE_API.constants, ({ query }) => code.constants(query)),
    serve(CODE_API.briefing, ({ query }) => code.briefing(query.compact, query.project)),
    serve(CODE_API.clear, ({ body }) => code.clear(body.project)),
  );
}
