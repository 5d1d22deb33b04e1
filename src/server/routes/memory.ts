// Memory routes (docs/api.md#memories): parse with the shared contracts, call the service, shape the answer.
import { Elysia } from "elysia";
import {
  ForgetRequestSchema,
  ListQuerySchema,
  ModifyRequestSchema,
  NoteRequestSchema,
  RecoverRequestSchema,
  RememberRequestSchema,
  type RememberResponse,
} from "../../contracts/memory";
import { parseInput } from "../../contracts/parse";
import { invalidInput } from "../../contracts/errors";
import { callerFrom } from "../caller";
import type { DaemonContext } from "../context";


function memoryId(params: { id?: string | null }): string {
  const id = params.id;
  if (!id || id.length > 200) throw invalidInput("invalid memory id in the path");
  return id;
}

export function memoryRoutes(ctx: DaemonContext) {
  const { memory, writes } = ctx;
  /** Commits a store: 201 with a new memory, 200 with the one already stored (`deduped: true`). */
  async function stored(set: { status?: number | string }, write: () => RememberResponse): Promise<RememberResponse> {
    const result = await writes.run(write);
    set.status = result.deduped ? 200 : 201;
    return result;
  }
  return new Elysia()
    .post("/api/memory/remember", ({ body, request, set }) => {
      const req = parseInput(RememberRequestSchema, body, "remember request");
      const caller = callerFrom(request, req.agentId);
      return stored(set, () => memory.remember(caller, req));
    })
    .post("/api/memory/note", ({ body, request, set }) => {
      const req = parseInput(NoteRequestSchema, body, "note request");
      const caller = callerFrom(request, req.agentId);
      return stored(set, () => memory.note(caller, req));
    })
    .get("/api/memories", ({ query, request }) => {
      const q = parseInput(ListQuerySchema, query, "list query");
      return memory.list(callerFrom(request, q.agent_id), q);
    })
    .get("/api/memory/:id", ({ params, request }) =>
      memory.get(callerFrom(request), memoryId(params)),
    )
    .get("/api/memory/:id/history", ({ params, request }) =>
      memory.history(callerFrom(request), memoryId(params)),
    )
    .patch("/api/memory/:id", ({ params, body, request }) => {
      const req = parseInput(ModifyRequestSchema, body, "modify request");
      const caller = callerFrom(request, req.agentId);
      const id = memoryId(params);
      return writes.run(() => memory.modify(caller, id, req));
    })
    .delete("/api/memory/:id", ({ params, body, request }) => {
      const req = parseInput(ForgetRequestSchema, body, "forget request");
      const caller = callerFrom(request, req.agentId);
      const id = memoryId(params);
      return writes.run(() => memory.forget(caller, id, req));
    })
    .post("/api/memory/:id/recover", ({ params, body, request }) => {
      const req = parseInput(RecoverRequestSchema, body ?? undefined, "recover request");
      const caller = callerFrom(request, req.agentId);
      const id = memoryId(params);
      return writes.run(() => memory.recover(caller, id, req));
    });
}
