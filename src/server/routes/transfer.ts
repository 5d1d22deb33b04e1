// Export, import and backup (docs/api.md#export-import-and-backup): the owner's operations over every
// agent's memories and the database file, so the guard asks for the admin token on all of them.
import { Elysia } from "elysia";
import { databasePath } from "../../config/paths";
import { parseInput } from "../../contracts/parse";
import { BackupRequestSchema, ExportQuerySchema, ImportRequestSchema } from "../../contracts/transfer";
import { backupDatabase } from "../../core/transfer/backup";
import { exportStream } from "../../core/transfer/export";
import { importBatch } from "../../core/transfer/import";
import { callerFrom } from "../caller";
import type { DaemonContext } from "../context";

export function transferRoutes(ctx: DaemonContext) {
  const { memory, writes } = ctx;
  return new Elysia()
    .get("/api/export", ({ query, request }) => {
      const q = parseInput(ExportQuerySchema, query, "export query");
      const body = exportStream(databasePath(ctx.config.dataDir), { forgotten: q.forgotten ?? false });
      // The answer takes as long as the client takes to read it.
      ctx.setIdleTimeout?.(request, 0);
      return new Response(body, { headers: { "content-type": "application/x-ndjson" } });
    })
    .post("/api/import", ({ body, request }) => {
      const req = parseInput(ImportRequestSchema, body, "import request");
      const caller = callerFrom(request, "agentId" in req ? req.agentId : undefined);
      return writes.run(() => importBatch(memory, caller, req));
    })
    .post("/api/backup", ({ body }) => {
      const req = parseInput(BackupRequestSchema, body, "backup request");
      return backupDatabase(memory.store, req.path);
    });
}
