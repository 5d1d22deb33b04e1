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

  /** What a job is given: its progress, and the call that says it has its turn and with what status it answers. */
  type Hooks = { onProgress?: ProgressListener; onStart: (status: number) => void };

  /**
   * The job's answer: plain JSON, or (when asked for) NDJSON progress lines then `{result}` or the
   * error body. Input is checked before this, and the status is the one the job gives once it has
   * its turn (behind the adds and syncs before it): until then a refusal is a plain JSON error with
   * its own status either way. `statusOf` gives it from the result when the job never said it.
   */
  async function answer<T>(request: Request, set: { status?: number | string }, job: (hooks: Hooks) => Promise<T>, statusOf: (result: T) => number) {
    // Ingesting a large tree outlasts the HTTP idle timeout; the client bounds its own wait.
    ctx.setIdleTimeout?.(request, 0);
    if (!wantsStream(request)) {
      const result = await job({ onStart: () => {} });
      set.status = statusOf(result);
      return result;
    }
    const encoder = new TextEncoder();
    let open = true;
    let begun = false;
    let begin!: (status: number) => void;
    let refuse!: (err: unknown) => void;
    const status = new Promise<number>((resolve, reject) => {
      begin = (s) => {
        begun = true;
        resolve(s);
      };
      refuse = reject;
    });
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        const send = (line: SourceStreamLine) => open && controller.enqueue(encoder.encode(`${JSON.stringify(line)}\n`));
        job({ onProgress: (progress) => send({ progress }), onStart: begin })
          .then(
            (result) => {
              if (!begun) begin(statusOf(result));
              send({ result });
            },
            async (err) => {
              // Refused before its turn: nothing is streamed, the route answers the error itself.
              if (!begun) return refuse(err);
              send((await toErrorResponse(err, request.method, new URL(request.url).pathname, ctx.log).json()) as SourceStreamLine);
            },
          )
          .finally(() => open && controller.close());
      },
      // The caller went away: the job still runs to its end (each batch is committed as it goes).
      cancel: () => void (open = false),
    });
    return new Response(body, { status: await status, headers: { "content-type": STREAM_TYPE } });
  }

  return routes(
    serve(SOURCES_API.list, async () => ({ sources: await sources.list() })),
    serve(SOURCES_API.add, async ({ body, request, set }) => {
      sources.checkAdd(body);
      // 201 for a new source, 200 for one that was there: decided in the add's turn, where it is opened.
      const statusOf = (created: boolean) => (created ? 201 : 200);
      return answer(
        request,
        set,
        ({ onProgress, onStart }) => sources.add(body, onProgress, (created) => onStart(statusOf(created))),
        (r) => statusOf(r.created),
      );
    }),
    serve(SOURCES_API.sync, async ({ body, request, set }) => {
      await sources.checkSync(body.id);
      return answer(request, set, ({ onProgress, onStart }) => sources.sync(body.id, onProgress, () => onStart(200)), () => 200);
    }),
    serve(SOURCES_API.remove, ({ params }) => sources.remove(parseInput(SourceIdParamSchema, params, "source id").id)),
    serve(SOURCES_API.search, ({ body }) => sources.search(body)),
  );
}
