// Export, import and backup (docs/api.md#export-import-and-backup): the owner's operations over every
// agent's memories and the store, so the guard asks for the admin token on all of them.
import { TRANSFER_API } from "../../contracts/transfer";
import { exportStream } from "../../core/transfer/export";
import { importBatch } from "../../core/transfer/import";
import { callerFrom } from "../caller";
import type { DaemonContext } from "../context";
import { routes, serve } from "../serve";

export function transferRoutes(ctx: DaemonContext) {
  const { memory } = ctx;
  return routes(
    serve(TRANSFER_API.export, async ({ query, request }) => {
      const body = await exportStream(await ctx.stores.exportReader(), { forgotten: query.forgotten ?? false });
      // The answer takes as long as the client takes to read it.
      ctx.setIdleTimeout?.(request, 0);
      return new Response(body, { headers: { "content-type": "application/x-ndjson" } });
    }),
    serve(TRANSFER_API.import, ({ body, request }) => {
      const caller = callerFrom(request, "agentId" in body ? body.agentId : undefined);
      return importBatch(memory, caller, body);
    }),
    serve(TRANSFER_API.backup, ({ body }) => ctx.stores.backup(body.path)),
  );
}
