// Document sources (docs/api.md#sources): the operations of contracts/sources.ts. Adding, syncing and
// removing make the daemon read files as the owner, so the guard asks for the owner's admin token on
// them (src/server/guard.ts); listing and searching need none. An add or sync asked for as NDJSON
// streams its progress, then its result.
import { parseInput } from "../../contracts/parse";
import { SOURCES_API, SourceIdParamSchema, type SourceStreamLine } from "../../contracts/sources";
import type { ProgressListener } from "../../core/sources/service";
import type { DaemonContext } from "../context";
import { toErrorResponse } from "../http-errors";
import { routes, serve } from "../serve";

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

  return routes(
    serve(SOURCES_API.list, async () => ({ sources: await sources.list() })),
    serve(SOURCES_API.add, async ({ body, request, set }) => {
      const isNew = (await sources.store.sourceByPath(sources.checkAdd(body).path)) === null;
      return answer(request, isNew ? 201 : 200, set, (onProgress) => sources.add(body, onProgress));
    }),
    serve(SOURCES_API.sync, async ({ body, request, set }) => {
      await sources.checkSync(body.id);
      return answer(request, 200, set, (onProgress) => sources.sync(body.id, onProgress));
    }),
    serve(SOURCES_API.remove, ({ params }) => sources.remove(parseInput(SourceIdParamSchema, params, "source id").id)),
    serve(SOURCES_API.search, ({ body }) => sources.search(body)),
  );
}
