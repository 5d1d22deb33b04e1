// GET /health: liveness plus what an operator needs at a glance (docs/api.md#health).
import { z } from "zod";
import { answer } from "./answer";
import { HealthEmbeddingSchema } from "./embed";
import { operation } from "./operation";
import { ROUTES } from "./routes";

const HealthResponseSchema = answer({
  status: z.enum(["ok", "degraded"]),
  version: z.string(),
  uptimeS: z.number(),
  // Where the daemon runs: only for a caller with the owner's admin token or instance key, or an API
  // token; another account learns neither the port to relay nor the data directory.
  pid: z.number().optional(),
  port: z.number().optional(),
  dataDir: z.string().optional(),
  db: answer({ ok: z.boolean(), memories: z.number().nullable() }),
  /**
   * The store, for the owner as where the daemon runs: its kind, where it is (a PostgreSQL URL without
   * its password), and on PostgreSQL the daemons sharing it, seen in the last few seconds.
   */
  store: answer({
    kind: z.enum(["sqlite", "postgres"]),
    location: z.string(),
    daemons: z.array(answer({ id: z.string(), url: z.string(), version: z.string(), startedAt: z.string(), seenAt: z.string() })).optional(),
  }).optional(),
  embedding: HealthEmbeddingSchema,
  /**
   * With `?challenge=<nonce>`: HMAC-SHA256(instance key, "<host>:<port>\n<nonce>") over the address
   * the daemon listens on, so a client knows it reached its own daemon directly, not through a relay.
   */
  proof: z.string().optional(),
});
export type HealthResponse = z.infer<typeof HealthResponseSchema>;

export const HEALTH_API = {
  health: operation(ROUTES.health.health, { response: HealthResponseSchema }),
};
