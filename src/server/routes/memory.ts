// Memory routes (docs/api.md#memories): the operations of contracts/memory.ts, each calling the service.
import { MEMORY_API, type RememberResponse } from "../../contracts/memory";
import { invalidInput } from "../../contracts/errors";
import { callerFrom } from "../caller";
import type { DaemonContext } from "../context";
import { routes, serve } from "../serve";

function memoryId(params: { id?: string | null }): string {
  const id = params.id;
  if (!id || id.length > 200) throw invalidInput("invalid memory id in the path");
  return id;
}

export function memoryRoutes(ctx: DaemonContext) {
  const { memory } = ctx;
  /** Commits a store: 201 with a new memory, 200 with the one already stored (`deduped: true`). */
  async function stored(set: { status?: number | string }, write: () => Promise<RememberResponse>): Promise<RememberResponse> {
    const result = await write();
    set.status = result.deduped ? 200 : 201;
    return result;
  }
  return routes(
    serve(MEMORY_API.remember, ({ body, request, set }) => stored(set, () => memory.remember(callerFrom(request, body.agentId), body))),
    serve(MEMORY_API.note, ({ body, request, set }) => stored(set, () => memory.note(callerFrom(request, body.agentId), body))),
    serve(MEMORY_API.list, ({ query, request }) => memory.list(callerFrom(request, query.agent_id), query)),
    serve(MEMORY_API.get, ({ params, request }) => memory.get(callerFrom(request), memoryId(params))),
    serve(MEMORY_API.history, ({ params, request }) => memory.history(callerFrom(request), memoryId(params))),
    serve(MEMORY_API.modify, ({ params, body, request }) => {
      const caller = callerFrom(request, body.agentId);
      const id = memoryId(params);
      return memory.modify(caller, id, body);
    }),
    serve(MEMORY_API.forget, ({ params, body, request }) => {
      const caller = callerFrom(request, body.agentId);
      const id = memoryId(params);
      return memory.forget(caller, id, body);
    }),
    serve(MEMORY_API.recover, ({ params, body, request }) => {
      const caller = callerFrom(request, body.agentId);
      const id = memoryId(params);
      return memory.recover(caller, id, body);
    }),
  );
}
