// GET /health: liveness plus what an operator needs at a glance (docs/api.md#health).
import type { EmbeddingStatus } from "./embed";

export interface HealthResponse {
  status: "ok" | "degraded";
  version: string;
  uptimeS: number;
  /**
   * Where the daemon runs: only for a caller with the owner's admin token or instance key, or an API
   * token; another account learns neither the port to relay nor the data directory.
   */
  pid?: number;
  port?: number;
  dataDir?: string;
  db: { ok: boolean; memories: number | null };
  /** The worker's status without `error`: /health says whether the provider is ok, not why. */
  embedding: Omit<EmbeddingStatus, "error">;
  /**
   * With `?challenge=<nonce>`: HMAC-SHA256(instance key, "<host>:<port>\n<nonce>") over the address
   * the daemon listens on, so a client knows it reached its own daemon directly, not through a relay.
   */
  proof?: string;
}
