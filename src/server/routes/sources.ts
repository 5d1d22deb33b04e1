// Document sources (docs/api.md#sources). Adding, syncing and removing make the daemon read files as
// the owner, so the guard asks for the owner's admin token on them (src/server/guard.ts); listing and
// searching need none. An add or sync asked for as NDJSON streams its progress, then its result.
import { Elysia } from "elysia";
import { parseInput } from "../../contracts/parse";
import {
  SourceAddRequestSchema,
  SourceIdParamSchema,
  SourceSearchRequestSchema,
  SourceSyncRequestSchema,
  type SourceListResponse,
  type SourceStreamLine,
} from "../../contracts/sources";
import type { ProgressListener } from "../../core/sources/service";
import type { DaemonContext } from "../context";
import { toErrorResponse } from "../http-errors";

const STREAM_TYPE = "application/x-ndjson";

function wantsStream(request: Request): boolean {
  return (request.headers.get("accept") ?? "").split(",").some((t) => t.split(";", 1)[0]!.trim().toLowerCase() === STREAM_TYPE);
}

export function sourceRoutes(ctx: DaemonContext) {
  const { sources } = ctx;

  /**
   * The job's answer: plain JSON, or (when asked for) NDJSON progress lines then `{result}` or the
   * error body. Input is checked before this, so a refusal keeps its own status either way.
   */
  function answer<T>(request: Request, status: number, set: { status?: number | string }, job: (onProgress?: ProgressListener) => Promise<T>) {
    // Ingesting a large tree outlasts the HTTP idle timeout; the client bounds its own wait.
    ctx.setIdleTimeout?.(request, 0);
    if (!wantsStream(request)) {
      return job().then((result) => {
        set.status = status;
        return result;
      });
    }
    const encoder = new TextEncoder();
    let open = true;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        const send = (line: SourceStreamLine) => open && controller.enqueue(encoder.encode(`${JSON.stringify(line)}\n`));
        job((progress) => send({ progress })).then(
          (result) => send({ result }),
          async (err) => send((await toErrorResponse(err, request.method, new URL(request.url).pathname, ctx.log).json()) as SourceStreamLine),
        ).finally(() => open && controller.close());
      },
      // The caller went away: the job still runs to its end (each batch is committed as it goes).
      cancel: () => void (open = false),
    });
    return new Response(body, { status, headers: { "content-type": STREAM_TYPE } });
  }

  return new Elysia()
    .get("/api/sources", (): SourceListResponse => ({ sources: sources.list() }))
    .post("/api/sources", ({ body, request, set }) => {
      const req = parseInput(SourceAddRequestSchema, body, "source add request");
      const isNew = sources.store.sourceByPath(sources.checkAdd(req).path) === null;
      return answer(request, isNew ? 201 : 200, set, (onProgress) => sources.add(req, onProgress));
    })
    .post("/api/sources/sync", ({ body, request, set }) => {
      const req = parseInput(SourceSyncRequestSchema, body ?? {}, "source sync request");
      sources.checkSync(req.id);
      return answer(request, 200, set, (onProgress) => sources.sync(req.id, onProgress));
    })
    .delete("/api/sources/:id", ({ params }) => sources.remove(parseInput(SourceIdParamSchema, params, "source id").id))
    .post("/api/sources/search", ({ body }) => sources.search(parseInput(SourceSearchRequestSchema, body, "source search request")));
}
